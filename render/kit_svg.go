// The SVG canvas: every text drawn as the outlines of its glyphs, so that a figure looks the same on any machine.

package render

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// svgCanvas is an SVG canvas that draws each text as filled paths, the
// outlines of Liberation Sans's glyphs (gonum/plot's embedded copy), in
// place of a <text> that names a font: a browser without that font
// would substitute another, of other widths, and titles would move and
// legends collide. The outlines are the font the PNG is rasterised from,
// laid out with the same advances and kerning as font.Face.Width, so the
// SVG and the PNG agree.
//
// Each glyph's outline is written once, in <defs>, and each use of it is
// a <use> scaled to its size. vgsvg writes only paths, so a glyph is
// drawn as a marker path (its origin twice: "Mx,yMx,y", which no mark
// draws) and glyphs replaces the markers, in order, by their <use>.
type svgCanvas struct {
	*vgsvg.Canvas
	buf    sfnt.Buffer
	texts  []string   // every text drawn, in order: what the figure says
	uses   []glyphUse // every glyph drawn, in order
	glyphs []glyphDef // each glyph once, in order of first use
}

// glyphDef is a glyph of a font, its outline in font units (y up).
type glyphDef struct {
	font  *sfnt.Font
	index sfnt.GlyphIndex
	d     string
}

// glyphUse is a glyph drawn: which def, at what scale.
type glyphUse struct {
	def   int
	scale float64
}

// FillString draws s at pt (the start of its baseline) in f's glyph
// outlines, in the canvas's colour and under its current transform (a
// rotated label stays rotated). A string the font cannot lay out is left
// out rather than failing the figure.
func (c *svgCanvas) FillString(f font.Face, pt vg.Point, s string) {
	s = PlainText(s)
	c.texts = append(c.texts, s)
	ppem := fixed.Int26_6(f.Face.UnitsPerEm())
	scale := f.Font.Size / vg.Length(ppem)
	x := vg.Length(0) // the pen, in font units
	var prev sfnt.GlyphIndex
	for i, r := range []rune(s) {
		idx, err := f.Face.GlyphIndex(&c.buf, r)
		if err != nil {
			return
		}
		if i > 0 {
			k, err := f.Face.Kern(&c.buf, prev, idx, ppem, 0)
			if err != nil && !errors.Is(err, sfnt.ErrNotFound) {
				return
			}
			x += vg.Length(k)
		}
		def, err := c.glyph(f, idx, ppem)
		if err != nil {
			return
		}
		if def >= 0 {
			at := vg.Point{X: pt.X + x*scale, Y: pt.Y}
			var marker vg.Path
			marker.Move(at)
			marker.Move(at)
			c.Canvas.Fill(marker)
			c.uses = append(c.uses, glyphUse{def: def, scale: float64(scale.Points())})
		}
		adv, err := f.Face.GlyphAdvance(&c.buf, idx, ppem, 0)
		if err != nil {
			return
		}
		x += vg.Length(adv)
		prev = idx
	}
}

// glyph is the index of idx's def, made on its first use; -1 for a glyph
// with no outline (a space).
func (c *svgCanvas) glyph(f font.Face, idx sfnt.GlyphIndex, ppem fixed.Int26_6) (int, error) {
	for i, g := range c.glyphs {
		if g.font == f.Face && g.index == idx {
			return i, nil
		}
	}
	segs, err := f.Face.LoadGlyph(&c.buf, idx, ppem, nil)
	if err != nil {
		return -1, fmt.Errorf("outline of glyph %d: %w", idx, err)
	}
	if len(segs) == 0 {
		return -1, nil
	}
	var b strings.Builder
	pt := func(p fixed.Point26_6) string { return fmt.Sprintf("%d,%d", p.X, -p.Y) }
	for _, sg := range segs {
		switch sg.Op {
		case sfnt.SegmentOpMoveTo:
			if b.Len() > 0 {
				b.WriteString("Z")
			}
			b.WriteString("M" + pt(sg.Args[0]))
		case sfnt.SegmentOpLineTo:
			b.WriteString("L" + pt(sg.Args[0]))
		case sfnt.SegmentOpQuadTo:
			b.WriteString("Q" + pt(sg.Args[0]) + " " + pt(sg.Args[1]))
		case sfnt.SegmentOpCubeTo:
			b.WriteString("C" + pt(sg.Args[0]) + " " + pt(sg.Args[1]) + " " + pt(sg.Args[2]))
		}
	}
	b.WriteString("Z")
	c.glyphs = append(c.glyphs, glyphDef{font: f.Face, index: idx, d: b.String()})
	return len(c.glyphs) - 1, nil
}

// glyphMarker is a glyph's marker path as vgsvg writes it.
var glyphMarker = regexp.MustCompile(`<path d="M([-0-9.e+]+),([-0-9.e+]+)M([-0-9.e+]+),([-0-9.e+]+)"( style="[^"]*")?\s*/>`)

// finish puts the glyphs' defs in the SVG svg and each marker's <use>
// in its place; an error when the markers are not the glyphs drawn.
func (c *svgCanvas) finish(svg []byte) ([]byte, error) {
	n := 0
	out := glyphMarker.ReplaceAllFunc(svg, func(m []byte) []byte {
		sub := glyphMarker.FindSubmatch(m)
		if n >= len(c.uses) || string(sub[1]) != string(sub[3]) || string(sub[2]) != string(sub[4]) {
			n = -1 << 30
			return m
		}
		u := c.uses[n]
		n++
		return fmt.Appendf(nil, `<use xlink:href="#g%d" transform="translate(%s,%s) scale(%.5g)"%s />`, u.def, sub[1], sub[2], u.scale, sub[5])
	})
	if n != len(c.uses) {
		return nil, fmt.Errorf("svg: %d glyph markers for %d glyphs drawn", n, len(c.uses))
	}
	var defs bytes.Buffer
	defs.WriteString("<defs>\n")
	for i, g := range c.glyphs {
		fmt.Fprintf(&defs, "<path id=\"g%d\" d=\"%s\" />\n", i, g.d)
	}
	defs.WriteString("</defs>\n")
	at := bytes.Index(out, []byte("<g "))
	if at < 0 {
		return nil, fmt.Errorf("svg: no group to put the glyphs before")
	}
	return slices.Concat(out[:at], defs.Bytes(), out[at:]), nil
}
