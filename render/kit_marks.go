// Marks, drawn in data coordinates: glyphs, scatters, polylines, bars, notes and reference lines.

package render

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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

// dataNotes are texts at points of the data: centred above the point
// and moved up by dy, or, moved right by dx, starting there.
type dataNotes []dataNote

type dataNote struct {
	x, y   float64
	text   string
	dx, dy vg.Length
}

func (n dataNotes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, t := range n {
		ts := textStyle(noteSize, false)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YBottom
		if t.dx != 0 {
			ts.XAlign = draw.XLeft
		}
		c.FillText(ts, vg.Point{X: trX(t.x) + t.dx, Y: trY(t.y) + t.dy}, t.text)
	}
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

// clumps are dots of one colour where points that coincide (within dx
// and dy of a first one) are drawn as a clump around it, one dot per
// point, so that identical runs do not hide each other on one dot.
type clumps struct {
	spots  plotter.XYs
	counts []int
	color  color.Color
}

func newClumps(xys plotter.XYs, dx, dy float64, col color.Color) *clumps {
	c := &clumps{color: col}
	for _, q := range xys {
		if math.IsNaN(q.X) || math.IsInf(q.X, 0) || math.IsNaN(q.Y) || math.IsInf(q.Y, 0) {
			continue
		}
		i := slices.IndexFunc(c.spots, func(s plotter.XY) bool { return math.Abs(s.X-q.X) <= dx && math.Abs(s.Y-q.Y) <= dy })
		if i < 0 {
			c.spots, c.counts = append(c.spots, q), append(c.counts, 1)
			continue
		}
		c.counts[i]++
	}
	return c
}

// stacked reports whether a spot stands for more than one point.
func (c *clumps) stacked() bool {
	return slices.ContainsFunc(c.counts, func(k int) bool { return k > 1 })
}

// Plot draws the k dots of a spot on a sunflower spiral around it: the
// j-th at sqrt(j) radii, turned by the golden angle, so that a clump is
// round and each dot shows.
func (c *clumps) Plot(dc draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&dc)
	sty := draw.GlyphStyle{Color: c.color, Radius: vg.Points(dotRadius), Shape: dotGlyph{}}
	for i, q := range c.spots {
		at := vg.Point{X: trX(q.X), Y: trY(q.Y)}
		for j := range c.counts[i] {
			r := vg.Points(dotRadius) * 1.1 * vg.Length(math.Sqrt(float64(j)))
			a := float64(j) * 2.39996
			pt := vg.Point{X: at.X + r*vg.Length(math.Cos(a)), Y: at.Y + r*vg.Length(math.Sin(a))}
			if dc.Contains(pt) {
				dc.DrawGlyph(sty, pt)
			}
		}
	}
}

func (c *clumps) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(c.spots) }
