package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/pgstudy/pgstudy/analyze"
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

// Figures returns every figure the analysis supports, in a stable order:
// for each host, the ratios to the baseline (of times, then of throughput
// tests' queries per second), then for each test its times
// (a throughput test's queries per second), the times by position in the
// round, the read requests, the disk's
// throughput over time and the vacuum figures, then the sweeps of a
// numeric setting. With several hosts each name starts with the host.
func Figures(a *analyze.Analysis) []Figure {
	var out []Figure
	for _, host := range a.Hosts {
		v := figView{a: a, host: host, multi: len(a.Hosts) > 1, labels: newConfigLabels(a.Configs, settingNames(a, host))}
		add := func(f Figure, ok bool) {
			if ok {
				f.Name = v.name(f.Name)
				f.Title = v.title(f.Title)
				f.Caption += v.labels.note()
				out = append(out, fitLegend(liftXLabel(f)))
			}
		}
		add(v.ratios())
		add(v.qpsRatios())
		for _, test := range a.Tests {
			add(v.times(test))
			add(v.qps(test))
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

// writeFigure writes dir/NAME.svg and dir/NAME.png, each whole or not at
// all.
func writeFigure(dir string, f Figure) error {
	if len(f.panels) == 0 {
		return fmt.Errorf("figure %q has nothing to draw", f.Name)
	}
	if !fileNameOK(f.Name) {
		return fmt.Errorf("figure name %q is not a file name", f.Name)
	}
	for _, format := range []string{"svg", "png"} {
		err := writeFile(filepath.Join(dir, f.Name+"."+format), func(w io.Writer) error {
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
	width, height := f.size()
	switch format {
	case "svg":
		c := &svgCanvas{Canvas: vgsvg.New(width, height)}
		f.draw(draw.New(c))
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return err
		}
		svg, err := c.finish(b.Bytes())
		if err != nil {
			return err
		}
		_, err = w.Write(svg)
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
			// axes and data (a title of one line: the alignment is a
			// fraction of each line's own width).
			if p.Title.Text != "" && !strings.Contains(p.Title.Text, "\n") {
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

// fitLegend makes a figure taller by what its legend takes beyond two
// rows, so that a long legend does not squeeze the panels.
func fitLegend(f Figure) Figure {
	width, height := f.size()
	rows, _, _, _ := legendLayout(f.legend, width-2*vg.Points(8))
	if extra := len(rows) - 2; extra > 0 {
		f.width, f.height = width, height+vg.Length(extra)*legendLineHeight()
	}
	return f
}

// figView is what the figures of one host draw from.
type figView struct {
	a      *analyze.Analysis
	host   string
	multi  bool
	labels configLabels
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

func (v figView) color(config string) color.NRGBA { return configColor(v.a, config) }

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

// texts are the texts f draws, in order: what its SVG says in outlines.
func (f Figure) texts() []string {
	c := &svgCanvas{Canvas: vgsvg.New(f.size())}
	f.draw(draw.New(c))
	return c.texts
}

// size is the figure's width and height: a blog column's unless it says.
func (f Figure) size() (width, height vg.Length) {
	if f.width == 0 {
		return figureWidth, figureHeight
	}
	return f.width, f.height
}

// settingNames are the settings the analysis compares on host: the ones
// a configuration's name may spell out.
func settingNames(a *analyze.Analysis, host string) []string {
	var out []string
	for _, s := range a.Settings {
		if s.Host == host && !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}
