// The SVG canvas: every text drawn as the outlines of its glyphs, so that a figure looks the same on any machine.

package render

import (
	"errors"
	"fmt"

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
type svgCanvas struct {
	*vgsvg.Canvas
	buf   sfnt.Buffer
	texts []string // every text drawn, in order: what the figure says
}

// FillString draws s at pt (the start of its baseline) in f's glyph
// outlines, in the canvas's colour and under its current transform (a
// rotated label stays rotated). A string the font cannot lay out is left
// out rather than failing the figure.
func (c *svgCanvas) FillString(f font.Face, pt vg.Point, s string) {
	s = PlainText(s)
	c.texts = append(c.texts, s)
	path, err := c.outline(f, pt, s)
	if err != nil || len(path) == 0 {
		return
	}
	c.Canvas.Fill(path)
}

// outline is the path of s's glyphs, the first starting at pt.
func (c *svgCanvas) outline(f font.Face, pt vg.Point, s string) (vg.Path, error) {
	ppem := fixed.Int26_6(f.Face.UnitsPerEm())
	scale := f.Font.Size / vg.Length(ppem)
	var path vg.Path
	x := vg.Length(0) // the pen, in font units
	var prev sfnt.GlyphIndex
	for i, r := range []rune(s) {
		idx, err := f.Face.GlyphIndex(&c.buf, r)
		if err != nil {
			return nil, fmt.Errorf("glyph of %q: %w", r, err)
		}
		if i > 0 {
			k, err := f.Face.Kern(&c.buf, prev, idx, ppem, 0)
			if err != nil && !errors.Is(err, sfnt.ErrNotFound) {
				return nil, fmt.Errorf("kerning: %w", err)
			}
			x += vg.Length(k)
		}
		segs, err := f.Face.LoadGlyph(&c.buf, idx, ppem, nil)
		if err != nil {
			return nil, fmt.Errorf("outline of %q: %w", r, err)
		}
		// Font units have y downwards; the canvas has it upwards.
		at := func(p fixed.Point26_6) vg.Point {
			return vg.Point{X: pt.X + (x+vg.Length(p.X))*scale, Y: pt.Y - vg.Length(p.Y)*scale}
		}
		for _, sg := range segs {
			switch sg.Op {
			case sfnt.SegmentOpMoveTo:
				if len(path) > 0 {
					path.Close()
				}
				path.Move(at(sg.Args[0]))
			case sfnt.SegmentOpLineTo:
				path.Line(at(sg.Args[0]))
			case sfnt.SegmentOpQuadTo:
				path.QuadTo(at(sg.Args[0]), at(sg.Args[1]))
			case sfnt.SegmentOpCubeTo:
				path.CubeTo(at(sg.Args[0]), at(sg.Args[1]), at(sg.Args[2]))
			}
		}
		adv, err := f.Face.GlyphAdvance(&c.buf, idx, ppem, 0)
		if err != nil {
			return nil, fmt.Errorf("advance of %q: %w", r, err)
		}
		x += vg.Length(adv)
		prev = idx
	}
	if len(path) > 0 {
		path.Close()
	}
	return path, nil
}
