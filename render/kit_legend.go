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
