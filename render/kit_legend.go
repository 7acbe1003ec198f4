// Legends: entries in centred rows under a figure's title, each a thumbnail of a mark and what it means.

package render

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendItem is one entry of a figure's legend: a mark and what it means.
type legendItem struct {
	label string
	thumb func(c *draw.Canvas)
}

// legendGeometry are the sizes a legend is laid out with.
var legendGeometry = struct{ thumb, gap, sep vg.Length }{vg.Points(16), vg.Points(4), vg.Points(14)}

// legendLayout places items in rows at most width wide: all in one
// centred row when they fit, else in a grid of equal columns, so that
// many entries line up and read as a table. It returns the rows (indexes
// into items), each row's width, the column width (0 for one row) and
// the labels to draw: a label wider than a row shortened in its middle.
func legendLayout(items []legendItem, width vg.Length) (rows [][]int, widths []vg.Length, col vg.Length, labels []string) {
	ts := textStyle(legendSize, false)
	g := legendGeometry
	var total, widest vg.Length
	for i, it := range items {
		labels = append(labels, fitText(ts, it.label, width-g.thumb-g.gap))
		w := g.thumb + g.gap + ts.Width(labels[i])
		widest = max(widest, w)
		total += w
		if i > 0 {
			total += g.sep
		}
	}
	if total <= width {
		all := make([]int, len(items))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}, []vg.Length{total}, 0, labels
	}
	cols := max(1, int((width+g.sep)/(widest+g.sep)))
	for i := range items {
		if i%cols == 0 {
			rows = append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], i)
	}
	for range rows {
		widths = append(widths, vg.Length(cols)*(widest+g.sep)-g.sep)
	}
	return rows, widths, widest + g.sep, labels
}

// legendLineHeight is the height of a row of a legend.
func legendLineHeight() vg.Length { return textStyle(legendSize, false).Height("Xg") * 1.35 }

// drawLegend lays the items out under the top of c (legendLayout) and
// returns the height they took.
func drawLegend(c draw.Canvas, items []legendItem) vg.Length {
	ts := textStyle(legendSize, false)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
	g := legendGeometry
	lineH := legendLineHeight()
	rows, widths, col, labels := legendLayout(items, c.Max.X-c.Min.X)
	for r, row := range rows {
		top := c.Max.Y - vg.Length(r)*lineH
		x := c.Center().X - widths[r]/2
		for _, i := range row {
			it := items[i]
			pad := lineH * 0.15
			tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: top - lineH + pad},
				Max: vg.Point{X: x + g.thumb, Y: top - pad},
			}}
			it.thumb(&tc)
			c.FillText(ts, vg.Point{X: x + g.thumb + g.gap, Y: top - lineH/2}, labels[i])
			if col > 0 {
				x += col
			} else {
				x += g.thumb + g.gap + ts.Width(labels[i]) + g.sep
			}
		}
	}
	return vg.Length(len(rows)) * lineH
}

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

// stripeThumb is a horizontal bar of width w made of one segment in each
// of cols: a mark drawn in each configuration's colour.
func stripeThumb(cols []color.Color, w vg.Length) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		y := c.Center().Y
		step := (c.Max.X - c.Min.X) / vg.Length(max(1, len(cols)))
		for i, col := range cols {
			x := c.Min.X + vg.Length(i)*step
			c.StrokeLine2(draw.LineStyle{Color: col, Width: w}, x, y, x+step, y)
		}
	}
}

// boxThumb is a filled box the height of the row: an interval's.
func boxThumb(col color.Color) func(*draw.Canvas) {
	return func(c *draw.Canvas) {
		m := c.Center()
		w := (c.Max.X - c.Min.X) / 3
		c.FillPolygon(col, []vg.Point{{X: m.X - w, Y: c.Min.Y}, {X: m.X + w, Y: c.Min.Y}, {X: m.X + w, Y: c.Max.Y}, {X: m.X - w, Y: c.Max.Y}})
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
		items = append(items, legendItem{v.labels.label(c), thumb(v.color(c))})
	}
	return items
}
