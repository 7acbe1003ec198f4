package render

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/stats"
)

// Figure is one figure of a report.
type Figure struct {
	Name    string // file name without extension, e.g. "times-seqscan"
	Title   string // also drawn on the figure
	Caption string // one or two sentences for under the figure in Markdown: what is shown, n, what the whiskers/bars are

	panels        [][]*plot.Plot // rows of panels, drawn aligned
	legend        []legendItem   // drawn in a row under the title
	xlabel        string         // the panels' x axis, drawn once under them
	width, height vg.Length
}

// The size of a figure: a blog column, and the PNG's resolution.
const (
	figureWidth  = 16 * vg.Centimeter
	figureHeight = 10 * vg.Centimeter
	pngDPI       = 150
)

// Font sizes, in points, for a figure shown at its size.
const (
	titleSize  = 12
	panelSize  = 10
	labelSize  = 10
	tickSize   = 9
	legendSize = 9
	noteSize   = 8
)

// sans is the typeface of every text: gonum/plot's embedded Liberation
// Sans, never a system font.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Figures returns every figure the analysis supports, in a stable order:
// for each host, the ratios to the baseline, then for each test its times,
// the times by position in the round, the read requests, the disk's
// throughput over time and the vacuum figures, then the sweeps of a
// numeric setting. With several hosts each name starts with the host.
func Figures(a *analyze.Analysis) []Figure {
	var out []Figure
	for _, host := range a.Hosts {
		v := figView{a: a, host: host, multi: len(a.Hosts) > 1}
		add := func(f Figure, ok bool) {
			if ok {
				f.Name = v.name(f.Name)
				f.Title = v.title(f.Title)
				out = append(out, liftXLabel(f))
			}
		}
		add(v.ratios())
		for _, test := range a.Tests {
			add(v.times(test))
			add(v.position(test))
			add(v.reads(test))
			add(v.disk(test))
			add(v.vacuum(test))
		}
		for _, f := range v.sweeps() {
			add(f, true)
		}
	}
	// Names are file names: make each unique.
	seen := map[string]int{}
	for i := range out {
		n := out[i].Name
		seen[n]++
		if k := seen[n]; k > 1 {
			out[i].Name = fmt.Sprintf("%s-%d", n, k)
		}
	}
	return out
}

// WriteFigure writes dir/NAME.svg and dir/NAME.png, each whole or not at
// all.
func WriteFigure(dir string, f Figure) error {
	if len(f.panels) == 0 {
		return fmt.Errorf("figure %q has nothing to draw", f.Name)
	}
	if !fileNameOK(f.Name) {
		return fmt.Errorf("figure name %q is not a file name", f.Name)
	}
	for _, format := range []string{"svg", "png"} {
		err := WriteFile(filepath.Join(dir, f.Name+"."+format), func(w io.Writer) error {
			return f.write(w, format)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// write draws the figure in format ("svg" or "png") to w.
func (f Figure) write(w io.Writer, format string) error {
	width, height := f.width, f.height
	if width == 0 {
		width, height = figureWidth, figureHeight
	}
	switch format {
	case "svg":
		c := &svgCanvas{Canvas: vgsvg.New(width, height)}
		f.draw(draw.New(c))
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return err
		}
		_, err := w.Write(c.fit(b.Bytes()))
		return err
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(pngDPI))
		f.draw(draw.New(c))
		// Fast compression: a report draws every figure, and the default
		// level spends most of its time there for a few percent of size.
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		return enc.Encode(w, c.Image())
	}
	return fmt.Errorf("unknown figure format %q", format)
}

// svgCanvas is an SVG canvas that remembers how wide each text it wrote
// is in the font it was laid out with.
type svgCanvas struct {
	*vgsvg.Canvas
	widths []vg.Length
}

func (c *svgCanvas) FillString(f font.Face, pt vg.Point, s string) {
	// XML allows no control character: one in a name from a capture would
	// make the whole figure unreadable.
	s = PlainText(s)
	c.widths = append(c.widths, f.Width(s))
	c.Canvas.FillString(f, pt, s)
}

// fit makes the SVG look as it was laid out where Liberation Sans is
// missing: it names fonts of the same metrics (Arimo, Arial, Helvetica)
// after it, and gives each text its width, to which a browser stretches
// or squeezes whatever font it has, so that nothing overlaps.
func (c *svgCanvas) fit(svg []byte) []byte {
	svg = bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;"))
	parts := bytes.Split(svg, []byte("<text "))
	if len(parts)-1 != len(c.widths) {
		return svg // not as vgsvg writes texts: leave them
	}
	var b bytes.Buffer
	b.Write(parts[0])
	for i, p := range parts[1:] {
		fmt.Fprintf(&b, `<text textLength="%.5g" lengthAdjust="spacingAndGlyphs" `, c.widths[i].Points())
		b.Write(p)
	}
	return b.Bytes()
}

// draw draws the title, the legend and the panels on c.
func (f Figure) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	margin := vg.Points(8)
	c := draw.Crop(dc, margin, -margin, margin/2, -margin)

	ts := textStyle(titleSize, true)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
	for _, line := range wrapText(ts, f.Title, c.Max.X-c.Min.X) {
		c.FillText(ts, vg.Point{X: c.Center().X, Y: c.Max.Y}, line)
		c.Max.Y -= ts.Height(line)
	}
	c.Max.Y -= vg.Points(4)
	if len(f.legend) > 0 {
		c.Max.Y -= drawLegend(c, f.legend) + vg.Points(4)
	}
	if len(f.panels) == 0 {
		return
	}
	if f.xlabel != "" {
		ls := textStyle(labelSize, false)
		ls.XAlign, ls.YAlign = draw.XCenter, draw.YBottom
		c.FillText(ls, vg.Point{X: c.Center().X, Y: c.Min.Y + ls.FontExtents().Descent}, f.xlabel)
		c.Min.Y += ls.Height(f.xlabel) + vg.Points(3)
	}
	tiles := draw.Tiles{Rows: len(f.panels), Cols: len(f.panels[0]), PadX: vg.Points(14), PadY: vg.Points(10)}
	cs := plot.Align(f.panels, tiles, c)
	for i, row := range f.panels {
		for j, p := range row {
			if p == nil {
				continue
			}
			// A panel's title is centred over its data, not over its
			// axes and data.
			if p.Title.Text != "" {
				tile := cs[i][j]
				data := p.DataCanvas(tile)
				shift := data.Center().X - tile.Center().X
				p.Title.TextStyle.XAlign = text.XAlignment(float64(shift/p.Title.TextStyle.Width(p.Title.Text)) - 0.5)
			}
			p.Draw(cs[i][j])
		}
	}
}

// liftXLabel draws the panels' x axis label once under them all when they
// share it: gonum/plot makes room for a label wider than its panel by
// narrowing the panel, and places it wrongly on a logarithmic axis.
func liftXLabel(f Figure) Figure {
	label := ""
	for _, row := range f.panels {
		for _, p := range row {
			if p == nil || p.X.Label.Text == "" {
				continue
			}
			if label != "" && p.X.Label.Text != label {
				return f
			}
			label = p.X.Label.Text
		}
	}
	for _, row := range f.panels {
		for _, p := range row {
			if p != nil {
				p.X.Label.Text = ""
			}
		}
	}
	f.xlabel = label
	return f
}

// wrapText breaks txt into lines no wider than width.
func wrapText(ts text.Style, txt string, width vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(txt) {
		try := w
		if line != "" {
			try = line + " " + w
		}
		if line != "" && ts.Width(try) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		line = try
	}
	return append(lines, line)
}

// legendItem is one entry of a figure's legend: a mark and what it means.
type legendItem struct {
	label string
	thumb func(c *draw.Canvas)
}

// drawLegend lays the items out in centred rows under the top of c and
// returns the height they took.
func drawLegend(c draw.Canvas, items []legendItem) vg.Length {
	ts := textStyle(legendSize, false)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
	thumbW, gap, sep := vg.Points(16), vg.Points(4), vg.Points(14)
	lineH := ts.Height("Xg") * 1.35
	width := c.Max.X - c.Min.X
	var rows [][]int
	var widths []vg.Length
	itemW := func(it legendItem) vg.Length { return thumbW + gap + ts.Width(it.label) }
	for i, it := range items {
		w := itemW(it)
		if n := len(rows); n > 0 && widths[n-1]+sep+w <= width {
			rows[n-1] = append(rows[n-1], i)
			widths[n-1] += sep + w
			continue
		}
		rows = append(rows, []int{i})
		widths = append(widths, w)
	}
	for r, row := range rows {
		top := c.Max.Y - vg.Length(r)*lineH
		x := c.Center().X - widths[r]/2
		for _, i := range row {
			it := items[i]
			pad := lineH * 0.15
			tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: top - lineH + pad},
				Max: vg.Point{X: x + thumbW, Y: top - pad},
			}}
			it.thumb(&tc)
			c.FillText(ts, vg.Point{X: x + thumbW + gap, Y: top - lineH/2}, it.label)
			x += itemW(it) + sep
		}
	}
	return vg.Length(len(rows)) * lineH
}

// textStyle is the style of a text of the given size.
func textStyle(size vg.Length, bold bool) text.Style {
	f := font.From(sans, size)
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{Color: color.Black, Font: f, Handler: plot.DefaultTextHandler}
}

// newPlot is a panel with the figures' fonts and ticks that label round
// numbers.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle = textStyle(panelSize, true)
	p.Title.TextStyle.XAlign, p.Title.TextStyle.YAlign = draw.XCenter, draw.YTop
	p.Title.Padding = vg.Points(4)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle = textStyle(labelSize, false)
		ax.Label.TextStyle.XAlign, ax.Label.TextStyle.YAlign = draw.XCenter, draw.YBottom
		ax.Label.Padding = vg.Points(3)
		align := ax.Tick.Label
		ax.Tick.Label = textStyle(tickSize, false)
		ax.Tick.Label.XAlign, ax.Tick.Label.YAlign = align.XAlign, align.YAlign
		ax.Tick.Length = vg.Points(4)
		ax.Tick.Marker = linearTicks{}
		ax.Padding = vg.Points(3)
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	return p
}

// addGrid adds light grid lines at the labelled ticks of the value axis:
// the y axis, or the x axis when vertical.
func addGrid(p *plot.Plot, vertical bool) {
	g := plotter.NewGrid()
	sty := draw.LineStyle{Color: gridColor, Width: vg.Points(0.6)}
	g.Vertical, g.Horizontal = draw.LineStyle{}, sty
	if vertical {
		g.Vertical, g.Horizontal = sty, draw.LineStyle{}
	}
	p.Add(g)
}

// categories makes ax show names at 0, 1, 2... On a horizontal axis about
// width long, names that would crowd are thinned out when they are
// numbers (every k-th is labelled) and slanted otherwise.
func categories(ax *plot.Axis, names []string, width vg.Length) {
	ticks := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		ticks[i] = plot.Tick{Value: float64(i), Label: n}
	}
	ax.Tick.Marker = ticks
	ax.Min, ax.Max = -0.5, float64(len(names))-0.5
	if width <= 0 || len(names) == 0 {
		return
	}
	var widest vg.Length
	numbers := true
	for _, n := range names {
		widest = max(widest, ax.Tick.Label.Width(n))
		_, err := strconv.Atoi(n)
		numbers = numbers && err == nil
	}
	slot := width / vg.Length(len(names))
	need := widest + vg.Points(6)
	if need <= slot {
		return
	}
	if numbers {
		k := int(math.Ceil(float64(need / slot)))
		for i := range ticks {
			if i%k != 0 {
				ticks[i].Label = ""
			}
		}
		return
	}
	ax.Tick.Label.Rotation = math.Pi / 6
	ax.Tick.Label.XAlign, ax.Tick.Label.YAlign = draw.XRight, draw.YTop
}

// Widths of the data area a panel has, for categories: a figure's one
// panel, and one of three side by side.
const (
	fullWidth  = figureWidth - 80
	thirdWidth = (figureWidth-60)/3 - 40
)

// valueRange sets ax to show values from lo to hi: from 0 unless that
// would squash them into the top of the panel.
func valueRange(ax *plot.Axis, lo, hi float64) {
	switch {
	case !(hi > 0) || math.IsInf(hi, 0):
		ax.Min, ax.Max = 0, 1
	case lo > 0.6*hi:
		pad := (hi - lo) * 0.15
		if pad == 0 {
			pad = hi * 0.05
		}
		ax.Min, ax.Max = lo-pad, hi+pad
	default:
		ax.Min, ax.Max = 0, hi*1.08
	}
}

// linearTicks labels about six round values.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: formatTick(lo, 1, math.Abs(lo))}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	top := math.Max(math.Abs(lo), math.Abs(hi))
	ms := []float64{1, 2, 5}
	if mag >= 10 && top < 1e4 {
		ms = []float64{1, 2, 2.5, 5} // 250, 500, 750: whole numbers
	}
	step := 10 * mag
	for _, m := range ms {
		if m*mag >= raw*0.999 {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: formatTick(v, step, top)})
	}
	return ticks
}

// formatTick writes v with as many decimals as step needs, in thousands
// (k) or millions (M) when the axis reaches 10,000.
func formatTick(v, step, top float64) string {
	suffix := ""
	switch {
	case top >= 1e7 && step >= 1e5:
		v, step, suffix = v/1e6, step/1e6, "M"
	case top >= 1e4 && step >= 100:
		v, step, suffix = v/1e3, step/1e3, "k"
	}
	if v == 0 {
		return "0"
	}
	prec := 0
	for prec < 6 && math.Abs(step*math.Pow10(prec)-math.Round(step*math.Pow10(prec))) > 1e-6 {
		prec++
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = "0"
	}
	return s + suffix
}

// logTicks labels values of the 1-2-5 series (denser when the range is
// short) on a logarithmic axis.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for _, ms := range [][]float64{{1}, {1, 2, 5}, {1, 1.5, 2, 3, 5, 7}, {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9}} {
		ticks = ticks[:0]
		for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
			for _, m := range ms {
				v := m * math.Pow(10, e)
				if v >= lo*0.9999 && v <= hi*1.0001 {
					ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
				}
			}
		}
		if len(ticks) >= 4 {
			break
		}
	}
	return ticks
}

// Marks, drawn in data coordinates.

// dotGlyph is a filled circle, slightly translucent so that overlapping dots
// show, outlined in a darker shade so that light colours stay visible.
type dotGlyph struct{}

func (dotGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	col := color.NRGBAModel.Convert(sty.Color).(color.NRGBA)
	path := circlePath(pt, sty.Radius)
	c.SetColor(translucent(col, 0.8))
	c.Fill(path)
	c.SetLineStyle(draw.LineStyle{Color: darker(col, 0.7), Width: vg.Points(0.6)})
	c.Stroke(path)
}

// ringGlyph is a hollow circle: white inside, a thick outline.
type ringGlyph struct{}

func (ringGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	path := circlePath(pt, sty.Radius)
	c.SetColor(color.White)
	c.Fill(path)
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)})
	c.Stroke(circlePath(pt, sty.Radius-vg.Points(0.75)))
}

func circlePath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Arc(pt, r, 0, 2*math.Pi)
	p.Close()
	return p
}

const dotRadius = 3.2 // points

// scatter is a scatter of glyphs of one colour; values that are not
// finite numbers are left out.
func scatter(xys plotter.XYs, col color.Color, shape draw.GlyphDrawer) *plotter.Scatter {
	xys = slices.DeleteFunc(slices.Clone(xys), func(q plotter.XY) bool {
		return math.IsNaN(q.X) || math.IsInf(q.X, 0) || math.IsNaN(q.Y) || math.IsInf(q.Y, 0)
	})
	s, err := plotter.NewScatter(xys)
	if err != nil {
		panic(err) // cannot happen: every value is finite
	}
	s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(dotRadius), Shape: shape}
	return s
}

// strokes is a set of polylines in one style.
type strokes struct {
	paths [][]plotter.XY
	style draw.LineStyle
}

func (l *strokes) add(xy ...plotter.XY) { l.paths = append(l.paths, xy) }

func (l *strokes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, path := range l.paths {
		pts := make([]vg.Point, len(path))
		for i, q := range path {
			pts[i] = vg.Point{X: trX(q.X), Y: trY(q.Y)}
		}
		c.StrokeLines(l.style, c.ClipLinesXY(pts)...)
	}
}

func (l *strokes) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, path := range l.paths {
		for _, q := range path {
			xmin, xmax = math.Min(xmin, q.X), math.Max(xmax, q.X)
			ymin, ymax = math.Min(ymin, q.Y), math.Max(ymax, q.Y)
		}
	}
	return
}

// barSet is filled rectangles.
type barSet struct {
	rects []bar
}

type bar struct {
	x0, x1, y0, y1 float64
	color          color.Color
	label          string // written upwards above the bar
}

func (b *barSet) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, r := range b.rects {
		pts := []vg.Point{{X: trX(r.x0), Y: trY(r.y0)}, {X: trX(r.x1), Y: trY(r.y0)}, {X: trX(r.x1), Y: trY(r.y1)}, {X: trX(r.x0), Y: trY(r.y1)}}
		c.FillPolygon(r.color, c.ClipPolygonXY(pts))
		if r.label != "" {
			ts := textStyle(noteSize, false)
			ts.Rotation = math.Pi / 2
			ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
			c.FillText(ts, vg.Point{X: (trX(r.x0) + trX(r.x1)) / 2, Y: trY(r.y1) + vg.Points(2)}, r.label)
		}
	}
}

func (b *barSet) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, r := range b.rects {
		xmin, xmax = math.Min(xmin, r.x0), math.Max(xmax, r.x1)
		ymin, ymax = math.Min(ymin, r.y0), math.Max(ymax, r.y1)
	}
	return
}

// dataNotes are texts at points of the data, moved by dy.
type dataNotes []struct {
	x, y float64
	text string
	dy   vg.Length
}

func (n dataNotes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ts := textStyle(noteSize, false)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YBottom
	for _, t := range n {
		c.FillText(ts, vg.Point{X: trX(t.x), Y: trY(t.y) + t.dy}, t.text)
	}
}

// formatCount writes a count or an amount with three significant digits
// at most: 12, 0.19, 3107, 30k.
func formatCount(v float64) string {
	switch {
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// refLine is a line across the whole panel at a value of one axis, with an
// optional label at its end.
type refLine struct {
	vertical bool
	at       float64
	style    draw.LineStyle
	label    string
}

func (r refLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ts := textStyle(noteSize, false)
	ts.Color = r.style.Color
	if r.vertical {
		x := trX(r.at)
		c.StrokeLine2(r.style, x, c.Min.Y, x, c.Max.Y)
		if r.label != "" {
			// The label goes on the side of the line with more room.
			ts.XAlign, ts.YAlign = draw.XLeft, draw.YTop
			at := x + vg.Points(2)
			if x > c.Center().X {
				ts.XAlign, at = draw.XRight, x-vg.Points(2)
			}
			c.FillText(ts, vg.Point{X: at, Y: c.Max.Y}, r.label)
		}
		return
	}
	y := trY(r.at)
	c.StrokeLine2(r.style, c.Min.X, y, c.Max.X, y)
	if r.label != "" {
		ts.XAlign, ts.YAlign = draw.XRight, draw.YBottom
		c.FillText(ts, vg.Point{X: c.Max.X - vg.Points(2), Y: y + vg.Points(1.5)}, r.label)
	}
}

func (r refLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	if r.vertical {
		return r.at, r.at, math.Inf(1), math.Inf(-1)
	}
	return math.Inf(1), math.Inf(-1), r.at, r.at
}

// Legend thumbnails.

func dotThumb(col color.Color) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: col, Radius: vg.Points(dotRadius), Shape: dotGlyph{}}, c.Center())
	}
}

func ringThumb(col color.Color) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: col, Radius: vg.Points(dotRadius), Shape: ringGlyph{}}, c.Center())
	}
}

func lineThumb(sty draw.LineStyle) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		y := c.Center().Y
		c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
	}
}

func barThumb(col color.Color) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		m := c.Center()
		h := (c.Max.Y - c.Min.Y) / 2
		c.FillPolygon(col, []vg.Point{{X: m.X - h, Y: c.Min.Y}, {X: m.X + h, Y: c.Min.Y}, {X: m.X + h, Y: c.Max.Y}, {X: m.X - h, Y: c.Max.Y}})
	}
}

// whiskerThumb is a vertical line with caps: a range.
func whiskerThumb(sty draw.LineStyle) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		m := c.Center()
		w := vg.Points(3)
		c.StrokeLine2(sty, m.X, c.Min.Y, m.X, c.Max.Y)
		c.StrokeLine2(sty, m.X-w, c.Min.Y, m.X+w, c.Min.Y)
		c.StrokeLine2(sty, m.X-w, c.Max.Y, m.X+w, c.Max.Y)
	}
}

// intervalThumb is a horizontal line with caps: an interval.
func intervalThumb(sty draw.LineStyle) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		m := c.Center()
		h := vg.Points(3)
		c.StrokeLine2(sty, c.Min.X, m.Y, c.Max.X, m.Y)
		c.StrokeLine2(sty, c.Min.X, m.Y-h, c.Min.X, m.Y+h)
		c.StrokeLine2(sty, c.Max.X, m.Y-h, c.Max.X, m.Y+h)
	}
}

// configLegend is one entry per configuration, each a mark drawn by thumb.
func (v figView) configLegend(configs []string, thumb func(color.Color) func(*draw.Canvas)) []legendItem {
	var items []legendItem
	for _, c := range configs {
		items = append(items, legendItem{c, thumb(v.color(c))})
	}
	return items
}

// figView is what the figures of one host draw from.
type figView struct {
	a     *analyze.Analysis
	host  string
	multi bool
}

func (v figView) name(s string) string {
	if v.multi {
		return safeName(v.host) + "-" + s
	}
	return s
}

func (v figView) title(s string) string {
	if v.multi {
		return s + " (host " + v.host + ")"
	}
	return s
}

func (v figView) color(config string) color.NRGBA { return configNRGBA(v.a, config) }

// configIndex orders configurations as the analysis lists them.
func (v figView) configIndex(config string) int {
	if i := slices.Index(v.a.Configs, config); i >= 0 {
		return i
	}
	return len(v.a.Configs)
}

// timings are the host's timings of test with at least one round, in the
// order of the configurations.
func (v figView) timings(test string) []analyze.Timing {
	var out []analyze.Timing
	for _, t := range v.a.Timings {
		if t.Host == v.host && t.Test == test && len(t.Rounds) > 0 {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(x, y analyze.Timing) int { return cmp.Compare(v.configIndex(x.Config), v.configIndex(y.Config)) })
	return out
}

// runs are the host's runs of test that succeeded and pass keep, in the
// order of the configurations, then of the rounds.
func (v figView) runs(test string, keep func(*analyze.Run) bool) []*analyze.Run {
	var out []*analyze.Run
	for _, r := range v.a.Runs {
		if r.Host == v.host && r.Test == test && r.Status == "ok" && keep(r) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(x, y *analyze.Run) int {
		return cmp.Or(cmp.Compare(v.configIndex(x.Config), v.configIndex(y.Config)), cmp.Compare(x.Round, y.Round), cmp.Compare(x.RunID, y.RunID))
	})
	return out
}

// configsOf lists the configurations of runs, in order.
func configsOf(runs []*analyze.Run) []string {
	var out []string
	for _, r := range runs {
		if !slices.Contains(out, r.Config) {
			out = append(out, r.Config)
		}
	}
	return out
}

// countText says how many there are of each configuration: "n = 6 per
// configuration" or "n = 6 (pg17), 5 (pg18)".
func countText(configs []string, n func(string) int, what string) string {
	if len(configs) == 0 {
		return "n = 0"
	}
	same := true
	for _, c := range configs {
		same = same && n(c) == n(configs[0])
	}
	if same {
		if len(configs) == 1 {
			return fmt.Sprintf("n = %d %s", n(configs[0]), what)
		}
		return fmt.Sprintf("n = %d %s per configuration", n(configs[0]), what)
	}
	var parts []string
	for _, c := range configs {
		parts = append(parts, fmt.Sprintf("%d (%s)", n(c), c))
	}
	return fmt.Sprintf("n = %s %s", strings.Join(parts, ", "), what)
}

// timeScale is a unit of time and its size in ms.
type timeScale struct {
	name string
	div  float64
}

// timeUnit is ms, or s when a median is above 10 s.
func timeUnit(ms []float64) timeScale {
	if len(ms) > 0 && slices.Max(ms) > 10000 {
		return timeScale{"s", 1000}
	}
	return timeScale{"ms", 1}
}

// offsets spreads marks of the values ys across a category's width w so
// that close values do not hide each other: ranked by value, they go
// alternately left and right, at full and at a third of the width, so
// that neighbours in value are apart and the marks show no slope.
func offsets(ys []float64, w float64) []float64 {
	out := make([]float64, len(ys))
	if len(ys) < 2 {
		return out
	}
	order := make([]int, len(ys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ys[a], ys[b]) })
	for rank, i := range order {
		side := -1.0
		if rank%2 == 1 {
			side = 1
		}
		size := 0.5
		if rank%4 >= 2 {
			size = 0.5 / 3
		}
		out[i] = side * size * w
	}
	return out
}

// roundsOf are a timing's rounds in the order of the rounds.
func roundsOf(t analyze.Timing) []analyze.RoundValue {
	rs := slices.Clone(t.Rounds)
	slices.SortStableFunc(rs, func(x, y analyze.RoundValue) int {
		return cmp.Or(cmp.Compare(x.Round, y.Round), cmp.Compare(x.RunID, y.RunID))
	})
	return rs
}

// 1. times-TEST: every round of each configuration.
func (v figView) times(test string) (Figure, bool) {
	tims := v.timings(test)
	if len(tims) == 0 {
		return Figure{}, false
	}
	var configs []string
	var medians []float64
	for _, t := range tims {
		configs = append(configs, t.Config)
		medians = append(medians, t.Summary.Median)
	}
	u := timeUnit(medians)
	p := newPlot("", "configuration", "time of the statement ("+u.name+")")
	addGrid(p, false)
	categories(&p.X, configs, fullWidth)
	lo, hi := math.Inf(1), math.Inf(-1)
	whisker := draw.LineStyle{Color: neutral, Width: vg.Points(1)}
	median := draw.LineStyle{Color: color.Black, Width: vg.Points(2.2)}
	for i, t := range tims {
		// The whisker stands left of the dots, the median bar crosses both.
		x := float64(i)
		s := t.Summary
		w := &strokes{style: whisker}
		wx, hw := x-0.2, 0.04
		w.add(plotter.XY{X: wx, Y: s.Min / u.div}, plotter.XY{X: wx, Y: s.Max / u.div})
		w.add(plotter.XY{X: wx - hw, Y: s.Min / u.div}, plotter.XY{X: wx + hw, Y: s.Min / u.div})
		w.add(plotter.XY{X: wx - hw, Y: s.Max / u.div}, plotter.XY{X: wx + hw, Y: s.Max / u.div})
		m := &strokes{style: median}
		m.add(plotter.XY{X: x - 0.28, Y: s.Median / u.div}, plotter.XY{X: x + 0.28, Y: s.Median / u.div})
		rs := roundsOf(t)
		var ys []float64
		for _, r := range rs {
			ys = append(ys, r.TimeMs)
		}
		off := offsets(ys, 0.3)
		var xys plotter.XYs
		for j, r := range rs {
			xys = append(xys, plotter.XY{X: x + 0.05 + off[j], Y: r.TimeMs / u.div})
			lo, hi = math.Min(lo, r.TimeMs/u.div), math.Max(hi, r.TimeMs/u.div)
		}
		p.Add(w, m, scatter(xys, v.color(t.Config), dotGlyph{}))
	}
	valueRange(&p.Y, lo, hi)
	n := map[string]int{}
	for _, t := range tims {
		n[t.Config] = len(t.Rounds)
	}
	return Figure{
		Name:  "times-" + safeName(test),
		Title: test + ": time of each round",
		Caption: fmt.Sprintf("Time of the %s statement on each configuration (%s): dots are rounds, the bar is the median, whiskers span min to max.",
			test, countText(configs, func(c string) int { return n[c] }, "rounds")),
		panels: [][]*plot.Plot{{p}},
		legend: []legendItem{
			{"one round", dotThumb(neutral)},
			{"median", lineThumb(median)},
			{"min to max", whiskerThumb(whisker)},
		},
	}, true
}

// 2. ratios: each configuration's median relative to the baseline's.
func (v figView) ratios() (Figure, bool) {
	type row struct {
		test string
		tims []analyze.Timing
	}
	var rows []row
	var configs []string
	var all []float64
	invalid := false
	ns := map[int]bool{}
	for _, test := range v.a.Tests {
		var cmpd []analyze.Timing
		for _, t := range v.timings(test) {
			if t.Compare == nil || !(t.Compare.Ratio > 0) || math.IsInf(t.Compare.Ratio, 0) {
				continue
			}
			cmpd = append(cmpd, t)
			if !slices.Contains(configs, t.Config) {
				configs = append(configs, t.Config)
			}
			all = append(all, t.Compare.Ratio)
			if t.Compare.CIValid {
				all = append(all, t.Compare.Lo, t.Compare.Hi)
			} else {
				invalid = true
			}
			ns[len(t.Rounds)] = true
		}
		if len(cmpd) > 0 {
			rows = append(rows, row{test, cmpd})
		}
	}
	if len(rows) == 0 {
		return Figure{}, false
	}
	for _, r := range rows {
		for _, b := range v.timings(r.test) {
			if b.Config == v.a.Baseline {
				ns[len(b.Rounds)] = true
			}
		}
	}
	slices.SortStableFunc(configs, func(x, y string) int { return cmp.Compare(v.configIndex(x), v.configIndex(y)) })
	base := v.a.Baseline
	p := newPlot("", "median time relative to "+base+" (below 1 is faster)", "")
	addGrid(p, true)
	p.Add(refLine{vertical: true, at: 1, style: draw.LineStyle{Color: neutral, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, label: base})
	var names []string
	for i := len(rows) - 1; i >= 0; i-- {
		names = append(names, rows[i].test)
	}
	categories(&p.Y, names, 0)
	m := len(configs)
	for i, r := range rows {
		y0 := float64(len(rows) - 1 - i)
		for _, t := range r.tims {
			j := slices.Index(configs, t.Config)
			y := y0
			if m > 1 {
				y += (float64(m-1)/2 - float64(j)) * 0.7 / float64(m)
			}
			c := t.Compare
			col := v.color(t.Config)
			if c.CIValid {
				e := &strokes{style: draw.LineStyle{Color: col, Width: vg.Points(1.4)}}
				h := 0.07
				e.add(plotter.XY{X: c.Lo, Y: y}, plotter.XY{X: c.Hi, Y: y})
				e.add(plotter.XY{X: c.Lo, Y: y - h}, plotter.XY{X: c.Lo, Y: y + h})
				e.add(plotter.XY{X: c.Hi, Y: y - h}, plotter.XY{X: c.Hi, Y: y + h})
				p.Add(e)
			}
			var shape draw.GlyphDrawer = dotGlyph{}
			if !c.Significant {
				shape = ringGlyph{}
			}
			s := scatter(plotter.XYs{{X: c.Ratio, Y: y}}, col, shape)
			s.GlyphStyle.Radius = vg.Points(4)
			p.Add(s)
			if m <= 2 {
				p.Add(dataNotes{{x: c.Ratio, y: y, text: strconv.FormatFloat(c.Ratio, 'f', 2, 64), dy: vg.Points(6)}})
			}
		}
	}
	all = append(all, 1)
	lo, hi := slices.Min(all), slices.Max(all)
	if hi/lo > 4 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
		p.X.Min, p.X.Max = lo/1.15, hi*1.15
	} else {
		pad := (hi - lo) * 0.08
		p.X.Min, p.X.Max = math.Max(0, lo-pad), hi+pad
	}

	var legend []legendItem
	if m > 1 {
		legend = v.configLegend(configs, dotThumb)
	}
	legend = append(legend,
		legendItem{"significant", dotThumb(neutral)},
		legendItem{"not significant", ringThumb(neutral)},
		legendItem{fmt.Sprintf("%.0f%% interval", 100*v.a.Confidence), intervalThumb(draw.LineStyle{Color: neutral, Width: vg.Points(1.4)})},
	)
	nText := roundsText(ns)
	who := strings.Join(configs, ", ")
	caption := fmt.Sprintf("Median time of each test on %s divided by the median on %s (%s). "+
		"Bars are the %.0f%% interval of the ratio: the Moses interval that goes with the Mann-Whitney test, computed on logarithms, "+
		"so it can miss the ratio of medians when a sample is bimodal. Hollow markers are not significant at %g after Holm's correction over tests.",
		who, base, nText, 100*v.a.Confidence, v.a.Alpha)
	if invalid {
		caption += " A marker without a bar has too few rounds for an interval."
	}
	title := "Time relative to " + base
	if m == 1 {
		title = "Time on " + configs[0] + " relative to " + base
	}
	f := Figure{
		Name:    "ratios",
		Title:   title + fmt.Sprintf(", with %.0f%% intervals", 100*v.a.Confidence),
		Caption: caption,
		panels:  [][]*plot.Plot{{p}},
		legend:  legend,
	}
	if k := len(rows) * m; k > 8 {
		f.width, f.height = figureWidth, figureHeight+vg.Length(k-8)*0.6*vg.Centimeter
	}
	return f, true
}

// 3. reads-TEST: read requests and their size, per run.
func (v figView) reads(test string) (Figure, bool) {
	runs := v.runs(test, func(r *analyze.Run) bool { return r.Disk != nil && !r.Disk.Reset })
	if len(runs) == 0 {
		return Figure{}, false
	}
	var bytesRead []float64
	for _, r := range runs {
		bytesRead = append(bytesRead, r.Disk.ReadBytes)
	}
	if medianOf(bytesRead) < 1<<20 {
		return Figure{}, false
	}
	configs := configsOf(runs)
	p := newPlot("", "read requests per run", "average size of a read request (KiB)")
	addGrid(p, false)
	xmax, ymax := 0.0, 0.0
	for _, r := range runs {
		xmax, ymax = math.Max(xmax, r.Disk.Reads), math.Max(ymax, r.Disk.RAreqSzKiB)
	}
	xmax, ymax = xmax*1.1, ymax*1.15
	// When the runs of a test read about the same bytes (three in four
	// within 15% of their median), a curve of equal volume shows that
	// fewer requests means larger ones.
	vol := medianOf(bytesRead) / 1024 // KiB
	near := 0
	for _, b := range bytesRead {
		if math.Abs(b/1024-vol) <= 0.15*vol {
			near++
		}
	}
	curve := &strokes{style: draw.LineStyle{Color: neutral, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}}
	var path []plotter.XY
	x0 := vol / ymax
	for i := range 201 {
		x := x0 * math.Pow(xmax/x0, float64(i)/200)
		path = append(path, plotter.XY{X: x, Y: vol / x})
	}
	if ymax > 0 && x0 < xmax && 4*near >= 3*len(bytesRead) {
		curve.paths = [][]plotter.XY{path}
		p.Add(curve)
	}
	n := map[string]int{}
	for _, c := range configs {
		var xys plotter.XYs
		for _, r := range runs {
			if r.Config == c {
				xys = append(xys, plotter.XY{X: r.Disk.Reads, Y: r.Disk.RAreqSzKiB})
				n[c]++
			}
		}
		p.Add(scatter(xys, v.color(c), dotGlyph{}))
	}
	p.X.Min, p.X.Max = 0, xmax
	p.Y.Min, p.Y.Max = 0, ymax
	legend := v.configLegend(configs, dotThumb)
	if len(curve.paths) > 0 {
		legend = append(legend, legendItem{"same bytes read (" + mibText(vol*1024) + ")", lineThumb(curve.style)})
	}
	caption := fmt.Sprintf("Each dot is one run of %s (%s): the read requests the disk completed during the statement and their average size "+
		"(iostat's rareq-sz).", test, countText(configs, func(c string) int { return n[c] }, "runs"))
	if len(curve.paths) > 0 {
		caption += fmt.Sprintf(" The dashed curve joins the points that read the same %s, the median of the runs: "+
			"along it, fewer requests means larger ones.", mibText(vol*1024))
	}
	return Figure{
		Name:    "reads-" + safeName(test),
		Title:   test + ": read requests and their size, per run",
		Caption: caption,
		panels:  [][]*plot.Plot{{p}},
		legend:  legend,
	}, true
}

// mibText writes bytes in MiB (or GiB) with three significant digits.
func mibText(b float64) string {
	if b >= 10*(1<<30) {
		return strconv.FormatFloat(b/(1<<30), 'f', 0, 64) + " GiB"
	}
	m := b / (1 << 20)
	switch {
	case m >= 100:
		return strconv.FormatFloat(m, 'f', 0, 64) + " MiB"
	case m >= 10:
		return strconv.FormatFloat(m, 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(m, 'f', 2, 64) + " MiB"
}

// medianOf is the median of xs, 0 when there is none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return stats.Summarize(xs, 0.95).Median
}

// 4. vacuum-TEST: VACUUM VERBOSE's figures per round.
func (v figView) vacuum(test string) (Figure, bool) {
	var rows []analyze.VacuumRow
	for _, r := range v.a.Vacuums {
		if r.Host == v.host && r.Test == test {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return Figure{}, false
	}
	slices.SortStableFunc(rows, func(x, y analyze.VacuumRow) int {
		return cmp.Or(cmp.Compare(x.Round, y.Round), cmp.Compare(v.configIndex(x.Config), v.configIndex(y.Config)), cmp.Compare(x.RunID, y.RunID))
	})
	var rounds []int
	var configs []string
	for _, r := range rows {
		if !slices.Contains(rounds, r.Round) {
			rounds = append(rounds, r.Round)
		}
		if !slices.Contains(configs, r.Config) {
			configs = append(configs, r.Config)
		}
	}
	slices.Sort(rounds)
	slices.SortStableFunc(configs, func(x, y string) int { return cmp.Compare(v.configIndex(x), v.configIndex(y)) })
	type measure struct {
		title string
		get   func(analyze.VacuumRow) (float64, bool)
	}
	i64 := func(p *int64, div float64) (float64, bool) {
		if p == nil {
			return 0, false
		}
		return float64(*p) / div, true
	}
	measures := []measure{
		{"WAL written (MiB)", func(r analyze.VacuumRow) (float64, bool) { return i64(r.WALBytes, 1<<20) }},
		{"full page images", func(r analyze.VacuumRow) (float64, bool) { return i64(r.WALFPI, 1) }},
		{"tuples frozen", func(r analyze.VacuumRow) (float64, bool) { return i64(r.TuplesFrozen, 1) }},
	}
	names := make([]string, len(rounds))
	for i, r := range rounds {
		names[i] = strconv.Itoa(r)
	}
	var panels []*plot.Plot
	var shown []string
	missing := false
	for _, m := range measures {
		p := newPlot(m.title, "round", "")
		addGrid(p, false)
		categories(&p.X, names, thirdWidth)
		b := &barSet{}
		hi, some, gaps := 0.0, false, false
		k := len(configs)
		w := 0.8 / float64(k)
		for _, r := range rows {
			val, ok := m.get(r)
			if !ok {
				gaps = true
				continue
			}
			some = true
			x := float64(slices.Index(rounds, r.Round)) - 0.4 + w*float64(slices.Index(configs, r.Config))
			b.rects = append(b.rects, bar{x0: x + w*0.06, x1: x + w*0.94, y1: val, color: v.color(r.Config)})
			hi = math.Max(hi, val)
		}
		if !some {
			continue
		}
		missing = missing || gaps
		// A bar too short to see says its value.
		for i, r := range b.rects {
			if r.y1 < 0.04*hi {
				b.rects[i].label = formatCount(r.y1)
			}
		}
		p.Add(b)
		p.Y.Min, p.Y.Max = 0, hi*1.08
		if hi == 0 {
			p.Y.Max = 1
		}
		panels = append(panels, p)
		shown = append(shown, strings.TrimSuffix(m.title, " (MiB)"))
	}
	if len(panels) == 0 {
		return Figure{}, false
	}
	n := map[string]int{}
	for _, r := range rows {
		n[r.Config]++
	}
	caption := fmt.Sprintf("What VACUUM VERBOSE reported in each round of %s (%s), summed over the tables vacuumed: %s.",
		test, countText(configs, func(c string) int { return n[c] }, "runs"), strings.Join(shown, ", "))
	if missing {
		caption += " A missing bar is a figure the server did not print."
	}
	return Figure{
		Name:    "vacuum-" + safeName(test),
		Title:   test + ": what VACUUM VERBOSE reported, per round",
		Caption: caption,
		panels:  [][]*plot.Plot{panels},
		legend:  v.configLegend(configs, barThumb),
	}, true
}

// 5. disk-TEST: the device's throughput over each run.
func (v figView) disk(test string) (Figure, bool) {
	// Runs shorter than the sampling interval have no series: the figure
	// is drawn when at least half the runs have one.
	runs := v.runs(test, func(r *analyze.Run) bool { return len(r.Series) > 0 })
	if len(runs) == 0 || 2*len(runs) < len(v.runs(test, func(*analyze.Run) bool { return true })) {
		return Figure{}, false
	}
	configs := configsOf(runs)
	writes := false
	for _, r := range runs {
		writes = writes || (r.Disk != nil && r.Disk.WriteBytes >= 1<<20)
	}
	device := runs[0].Device
	limit := v.a.Limits[device]
	type panel struct {
		title string
		get   func(s analyze.DiskInterval) float64
		limit float64
	}
	panels := []panel{{"read", func(s analyze.DiskInterval) float64 { return s.Stats.RKiBPerS / 1024 }, cmp.Or(limit.ReadMiBs, limit.MiBs)}}
	if writes {
		panels = append(panels, panel{"written", func(s analyze.DiskInterval) float64 { return s.Stats.WKiBPerS / 1024 }, cmp.Or(limit.WriteMiBs, limit.MiBs)})
	}
	var plots [][]*plot.Plot
	xmax, limited := 0.0, false
	for i, pn := range panels {
		xlabel := ""
		if i == len(panels)-1 {
			xlabel = "seconds from the start of the statement"
		}
		p := newPlot("", xlabel, pn.title+" (MiB/s)")
		addGrid(p, false)
		hi := 0.0
		for _, r := range runs {
			l := &strokes{style: draw.LineStyle{Color: translucent(v.color(r.Config), 0.85), Width: vg.Points(1)}}
			var path []plotter.XY
			for _, s := range r.Series {
				if s.Stats.Reset || !(s.Stats.Seconds > 0) {
					if len(path) > 0 {
						l.add(path...)
					}
					path = nil
					continue
				}
				val := pn.get(s)
				start := s.OffsetS - s.Stats.Seconds
				path = append(path, plotter.XY{X: start, Y: val}, plotter.XY{X: s.OffsetS, Y: val})
				hi = math.Max(hi, val)
				xmax = math.Max(xmax, s.OffsetS)
			}
			if len(path) > 0 {
				l.add(path...)
			}
			p.Add(l)
		}
		if pn.limit > 0 {
			p.Add(refLine{at: pn.limit, style: draw.LineStyle{Color: neutral, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}},
				label: fmt.Sprintf("limit %g MiB/s", pn.limit)})
			hi = math.Max(hi, pn.limit)
			limited = true
		}
		p.Y.Min, p.Y.Max = 0, math.Max(hi*1.08, 1)
		plots = append(plots, []*plot.Plot{p})
	}
	if !(xmax > 0) {
		return Figure{}, false // no interval could be measured
	}
	for _, row := range plots {
		row[0].X.Min = math.Min(0, row[0].X.Min)
		row[0].X.Max = xmax
	}
	n := map[string]int{}
	for _, r := range runs {
		n[r.Config]++
	}
	what := "Read throughput"
	if writes {
		what = "Read and write throughput"
	}
	caption := fmt.Sprintf("%s of the disk (%s) during each run of %s (%s), one line per run; each step is one interval between /proc/diskstats samples%s.",
		what, device, test, countText(configs, func(c string) int { return n[c] }, "runs"), v.sampleText())
	if limited {
		caption += " The dashed line is the device's limit the study gives."
	}
	f := Figure{
		Name:    "disk-" + safeName(test),
		Title:   test + ": disk throughput during each run",
		Caption: caption,
		panels:  plots,
		legend: v.configLegend(configs, func(c color.Color) func(*draw.Canvas) {
			return lineThumb(draw.LineStyle{Color: c, Width: vg.Points(1.5)})
		}),
	}
	if len(plots) > 1 {
		f.width, f.height = figureWidth, 12*vg.Centimeter
	}
	return f, true
}

// sampleText is " (every 250ms)" when the host's study says how often
// the disk was sampled.
func (v figView) sampleText() string {
	for _, s := range v.a.Setups {
		if s.Host == v.host && s.Sample != "" {
			return " (every " + s.Sample + ")"
		}
	}
	return ""
}

// 6. position-TEST: time by position in the round.
func (v figView) position(test string) (Figure, bool) {
	tims := v.timings(test)
	var positions []int
	var medians []float64
	for _, t := range tims {
		medians = append(medians, t.Summary.Median)
		for _, r := range t.Rounds {
			if !slices.Contains(positions, r.Position) {
				positions = append(positions, r.Position)
			}
		}
	}
	if len(positions) < 2 {
		return Figure{}, false
	}
	slices.Sort(positions)
	names := make([]string, len(positions))
	for i, pos := range positions {
		names[i] = strconv.Itoa(pos)
	}
	u := timeUnit(medians)
	p := newPlot("", "position in the round (1 ran first)", "time of the statement ("+u.name+")")
	addGrid(p, false)
	categories(&p.X, names, fullWidth)
	m := len(tims)
	lo, hi := math.Inf(1), math.Inf(-1)
	var configs []string
	n := map[string]int{}
	for j, t := range tims {
		configs = append(configs, t.Config)
		n[t.Config] = len(t.Rounds)
		dodge := 0.0
		if m > 1 {
			dodge = (float64(j) - float64(m-1)/2) * 0.7 / float64(m)
		}
		col := v.color(t.Config)
		line := &strokes{style: draw.LineStyle{Color: col, Width: vg.Points(1.2)}}
		bar := &strokes{style: draw.LineStyle{Color: col, Width: vg.Points(2.5)}}
		width := min(0.3, 0.49/float64(m))
		half := width/2 + 0.01
		var path []plotter.XY
		var xys plotter.XYs
		for i, pos := range positions {
			var at []float64
			for _, r := range roundsOf(t) {
				if r.Position == pos {
					at = append(at, r.TimeMs/u.div)
				}
			}
			if len(at) == 0 {
				continue
			}
			off := offsets(at, width)
			for k, y := range at {
				xys = append(xys, plotter.XY{X: float64(i) + dodge + off[k], Y: y})
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
			md := medianOf(at)
			path = append(path, plotter.XY{X: float64(i) + dodge, Y: md})
			bar.add(plotter.XY{X: float64(i) + dodge - half, Y: md}, plotter.XY{X: float64(i) + dodge + half, Y: md})
		}
		if len(path) > 1 {
			line.add(path...)
			p.Add(line)
		}
		p.Add(bar, scatter(xys, col, dotGlyph{}))
	}
	valueRange(&p.Y, lo, hi)
	legend := v.configLegend(configs, dotThumb)
	legend = append(legend, legendItem{"median at each position", lineThumb(draw.LineStyle{Color: neutral, Width: vg.Points(2.5)})})
	return Figure{
		Name:  "position-" + safeName(test),
		Title: test + ": time by position in the round",
		Caption: fmt.Sprintf("Each dot is a run of %s (%s), placed by its position in its round (configurations take turns); "+
			"bars mark each configuration's median at each position, and lines join them. Times that rise or fall with the position in every configuration show an order effect.",
			test, countText(configs, func(c string) int { return n[c] }, "runs")),
		panels: [][]*plot.Plot{{p}},
		legend: legend,
	}, true
}

// 7. sweep-SETTING: median times against a declared numeric setting.
func (v figView) sweeps() []Figure {
	var out []Figure
	for _, s := range v.a.Settings {
		if s.Host != v.host || !s.Declared {
			continue
		}
		if f, ok := v.sweep(s); ok {
			out = append(out, f)
		}
	}
	return out
}

func (v figView) sweep(s analyze.SettingRow) (Figure, bool) {
	// The configurations with timings, and the setting's value in each.
	var configs []string
	for _, c := range v.a.Configs {
		if _, ok := s.Values[c]; ok {
			configs = append(configs, c)
		}
	}
	vals, unitName, ok := numericSetting(s.Values, configs)
	if !ok {
		return Figure{}, false
	}
	distinct := map[float64]bool{}
	for _, x := range vals {
		distinct[x] = true
	}
	if len(distinct) < 3 {
		return Figure{}, false
	}
	// Lines join the configurations that agree on every other declared
	// setting that differs.
	group := map[string]string{}
	var groups []string
	for _, c := range configs {
		var parts []string
		for _, o := range v.a.Settings {
			if o.Host == v.host && o.Declared && o.Name != s.Name {
				parts = append(parts, o.Name+"="+o.Values[c])
			}
		}
		k := strings.Join(parts, ", ")
		group[c] = k
		if !slices.Contains(groups, k) {
			groups = append(groups, k)
		}
	}
	xs := slices.Sorted(maps.Keys(distinct))
	logX := xs[0] > 0 && xs[len(xs)-1]/xs[0] >= 8
	var ticks plot.ConstantTicks
	for _, x := range xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	xlabel := s.Name
	if unitName != "" {
		xlabel += " (" + unitName + ")"
	}
	dashes := [][]vg.Length{nil, {vg.Points(5), vg.Points(3)}, {vg.Points(1.5), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}}
	var panels []*plot.Plot
	var tests []string
	anyCI := false
	ns := map[int]bool{}
	anyQPS, anyTime := false, false
	for _, test := range v.a.Tests {
		// A timed test's median time, or a throughput test's median QPS.
		byConfig := map[string]analyze.Timing{}
		for _, t := range v.timings(test) {
			byConfig[t.Config] = t
		}
		qps := false
		if len(byConfig) == 0 {
			for _, g := range v.a.Throughputs {
				if g.Host == v.host && g.Test == test {
					byConfig[g.Config] = analyze.Timing{Config: g.Config, Summary: g.QPS}
					qps = true
				}
			}
		}
		var ms []float64
		for _, c := range configs {
			if t, ok := byConfig[c]; ok {
				ms = append(ms, t.Summary.Median)
			}
		}
		if len(ms) < 2 {
			continue
		}
		u := timeUnit(ms)
		ylabel := "median time (" + u.name + ")"
		if qps {
			u.name, u.div, ylabel = "QPS", 1, "median QPS"
			anyQPS = true
		} else {
			anyTime = true
		}
		p := newPlot(test, "", ylabel)
		addGrid(p, false)
		lo, hi := math.Inf(1), math.Inf(-1)
		for gi, g := range groups {
			line := &strokes{style: draw.LineStyle{Color: neutral, Width: vg.Points(1.2), Dashes: dashes[gi%len(dashes)]}}
			var path []plotter.XY
			for i, c := range configs {
				t, ok := byConfig[c]
				if !ok || group[c] != g {
					continue
				}
				path = append(path, plotter.XY{X: vals[i], Y: t.Summary.Median / u.div})
			}
			slices.SortStableFunc(path, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
			if len(path) > 1 {
				line.add(path...)
				p.Add(line)
			}
		}
		for i, c := range configs {
			t, ok := byConfig[c]
			if !ok {
				continue
			}
			sm := t.Summary
			ns[sm.N] = true
			y := sm.Median / u.div
			lo, hi = math.Min(lo, y), math.Max(hi, y)
			if sm.CIValid {
				anyCI = true
				e := &strokes{style: draw.LineStyle{Color: v.color(c), Width: vg.Points(1.2)}}
				e.add(plotter.XY{X: vals[i], Y: sm.Lo / u.div}, plotter.XY{X: vals[i], Y: sm.Hi / u.div})
				p.Add(e)
				lo, hi = math.Min(lo, sm.Lo/u.div), math.Max(hi, sm.Hi/u.div)
			}
			p.Add(scatter(plotter.XYs{{X: vals[i], Y: y}}, v.color(c), dotGlyph{}))
		}
		valueRange(&p.Y, lo, hi)
		p.X.Tick.Marker = ticks
		if logX {
			p.X.Scale = plot.LogScale{}
			p.X.Min, p.X.Max = xs[0]/1.3, xs[len(xs)-1]*1.3
		} else {
			pad := (xs[len(xs)-1] - xs[0]) * 0.08
			p.X.Min, p.X.Max = xs[0]-pad, xs[len(xs)-1]+pad
		}
		panels = append(panels, p)
		tests = append(tests, test)
	}
	if len(panels) == 0 {
		return Figure{}, false
	}
	cols := min(len(panels), 3)
	var rows [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, panels[i:min(i+cols, len(panels))])
		rows = append(rows, row)
	}
	// The x axis's label goes under the last row.
	for _, p := range rows[len(rows)-1] {
		if p != nil {
			p.X.Label.Text = xlabel
		}
	}
	for i := 0; i+1 < len(rows); i++ {
		for j, p := range rows[i] {
			if rows[i+1][j] == nil && p != nil {
				p.X.Label.Text = xlabel
			}
		}
	}
	legend := v.configLegend(configs, dotThumb)
	if len(groups) > 1 {
		for gi, g := range groups {
			legend = append(legend, legendItem{g, lineThumb(draw.LineStyle{Color: neutral, Width: vg.Points(1.2), Dashes: dashes[gi%len(dashes)]})})
		}
	}
	nText := roundsText(ns)
	what := "Median time"
	switch {
	case anyQPS && anyTime:
		what = "Median time (QPS for a throughput test)"
	case anyQPS:
		what = "Median QPS"
	}
	caption := fmt.Sprintf("%s of each test (%s) against %s, one point per configuration", what, nText, s.Name)
	if len(groups) > 1 {
		caption += "; a line joins the configurations that share the other settings"
	}
	if anyCI {
		caption += fmt.Sprintf("; bars are the %.0f%% interval of the median (order statistics, n ≥ 6)", 100*v.a.Confidence)
	}
	f := Figure{
		Name:    "sweep-" + safeName(s.Name),
		Title:   strings.SplitN(what, " (", 2)[0] + " against " + s.Name,
		Caption: caption + ".",
		panels:  rows,
		legend:  legend,
	}
	if len(rows) > 1 {
		f.width, f.height = figureWidth, figureHeight+vg.Length(len(rows)-1)*6*vg.Centimeter
	}
	return f, true
}

// numericSetting reads a setting's value in each configuration as a
// number: plain, or with one of PostgreSQL's memory or time units, which
// are then brought to one unit when they differ.
func numericSetting(values map[string]string, configs []string) ([]float64, string, bool) {
	type parsed struct {
		x    float64
		unit string
	}
	var ps []parsed
	for _, c := range configs {
		s := strings.TrimSpace(values[c])
		i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+') })
		num, u := s, ""
		if i >= 0 {
			num, u = s[:i], strings.TrimSpace(s[i:])
		}
		x, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, "", false
		}
		if _, ok := unitScale[u]; !ok && u != "" {
			return nil, "", false
		}
		ps = append(ps, parsed{x, u})
	}
	if len(ps) == 0 {
		return nil, "", false
	}
	out := make([]float64, len(ps))
	same := true
	for _, p := range ps {
		same = same && p.unit == ps[0].unit
	}
	if same {
		for i, p := range ps {
			out[i] = p.x
		}
		return out, ps[0].unit, true
	}
	base := ""
	for i, p := range ps {
		sc, ok := unitScale[p.unit]
		if !ok || (base != "" && sc.base != base) {
			return nil, "", false
		}
		base = sc.base
		out[i] = p.x * sc.factor
	}
	return out, base, true
}

// unitScale brings PostgreSQL's units to kB (memory) or ms (time).
var unitScale = map[string]struct {
	base   string
	factor float64
}{
	"B": {"kB", 1.0 / 1024}, "kB": {"kB", 1}, "MB": {"kB", 1024}, "GB": {"kB", 1 << 20}, "TB": {"kB", 1 << 30},
	"us": {"ms", 0.001}, "ms": {"ms", 1}, "s": {"ms", 1000}, "min": {"ms", 60000}, "h": {"ms", 3600000}, "d": {"ms", 86400000},
}

// roundsText says how many rounds the points of a figure are medians of:
// "n = 6 rounds each", or "n = 5 to 6 rounds" where they differ.
func roundsText(ns map[int]bool) string {
	nlist := slices.Sorted(maps.Keys(ns))
	if len(nlist) > 1 {
		return fmt.Sprintf("n = %d to %d rounds", nlist[0], nlist[len(nlist)-1])
	}
	return fmt.Sprintf("n = %d rounds each", nlist[0])
}

// safeName makes s usable in a file name: letters, digits, '.', '_' and
// '-' are kept, anything else becomes '-', and a name longer than
// maxNamePart keeps its start and a hash of the whole, so that names from
// a capture stay short enough for any file system and still distinct.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !nameByte(c) {
			b[i] = '-'
		}
	}
	name := strings.TrimLeft(string(b), ".")
	if len(name) > maxNamePart {
		sum := sha256.Sum256([]byte(s))
		name = name[:maxNamePart-9] + "-" + hex.EncodeToString(sum[:4])
	}
	return name
}

const maxNamePart = 60

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// fileNameOK reports whether a figure's name, made of safeName parts, is
// a plain file name.
func fileNameOK(name string) bool {
	if name == "" || name[0] == '.' || len(name) > 200 {
		return false
	}
	for i := range len(name) {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}
