package render

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// TestSVGTextOutlines: a text in an SVG figure is its glyphs' outlines,
// each written once and used where drawn, placed as the layout measured
// them, and no <text> naming a font.
func TestSVGTextOutlines(t *testing.T) {
	ts := textStyle(titleSize, true)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YBottom
	s := "bitmap: effective_io_concurrency (MiB/s)"
	c := &svgCanvas{Canvas: vgsvg.New(10*vg.Centimeter, 2*vg.Centimeter)}
	dc := draw.New(c)
	dc.FillText(ts, vg.Point{X: 10, Y: 20}, s)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	out, err := c.finish(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	svg := string(out)
	for _, bad := range []string{"<text", "font-family", "bitmap", "M10,"} {
		if strings.Contains(svg, bad) {
			t.Errorf("the SVG has %q:\n%s", bad, svg)
		}
	}
	// 40 characters, 2 of them spaces (no outline); "c", "e", "i", "n",
	// "o", "t", "u", "_" drawn more than once, defined once.
	uses := regexp.MustCompile(`<use xlink:href="#g\d+" transform="translate\(([-0-9.e]+),`).FindAllStringSubmatch(svg, -1)
	defs := strings.Count(svg, `<path id="g`)
	if len(uses) != 38 || defs >= len(uses) || defs < 15 {
		t.Errorf("%d glyphs drawn from %d defined, want 38 drawn from fewer", len(uses), defs)
	}
	// The last glyph, ")", starts where the width of the rest ends.
	last, _ := strconv.ParseFloat(uses[len(uses)-1][1], 64)
	want := 10 + ts.Width(s[:len(s)-1]).Points()
	if d := last - want; d < -0.01 || d > 0.5 {
		t.Errorf("the last glyph at x %.3f, want about %.3f (the width laid out, with kerning)", last, want)
	}
	if _, err := c.finish([]byte("<svg><g>no markers</g></svg>")); err == nil {
		t.Error("an SVG without its glyphs' markers was finished")
	}
}
