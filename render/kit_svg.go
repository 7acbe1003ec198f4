// The SVG canvas: texts laid out in Liberation Sans keep their width in any browser.

package render

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

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
