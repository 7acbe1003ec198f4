package render

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TestSVGTextOutlines: a text in an SVG figure is the outline of its
// glyphs, as wide as the layout measured it, and no <text> naming a font.
func TestSVGTextOutlines(t *testing.T) {
	ts := textStyle(titleSize, true)
	face := ts.Handler.Cache().Lookup(ts.Font, ts.Font.Size)
	c := &svgCanvas{Canvas: vgsvg.New(10*vg.Centimeter, 2*vg.Centimeter)}
	s := "bitmap: effective_io_concurrency (MiB/s)"
	path, err := c.outline(face, vg.Point{X: 10}, s)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := vg.Length(1e9), vg.Length(-1e9)
	for _, p := range path {
		if p.Type != vg.CloseComp {
			lo, hi = min(lo, p.Pos.X), max(hi, p.Pos.X)
		}
	}
	w := face.Width(s)
	// The ink starts after the first glyph's left bearing and ends before
	// the last one's right bearing: within a point or two of the advance.
	if lo < 10 || lo > 12 || hi > 10+w || hi < 10+w-vg.Points(2) {
		t.Errorf("the outline spans x %.2f to %.2f, want about 10 to %.2f (the width laid out)", lo, hi, 10+w)
	}
	dc := draw.New(c)
	dc.FillText(ts, vg.Point{X: 10, Y: 20}, s)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if strings.Contains(svg, "<text") || strings.Contains(svg, "font-family") || strings.Contains(svg, "bitmap") {
		t.Errorf("the SVG writes the text, not its outline:\n%s", svg)
	}
	if !strings.Contains(svg, "<path d=\"M") {
		t.Error("the SVG has no path")
	}
}
