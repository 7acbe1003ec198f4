package render

import (
	"image/color"
	"slices"

	"github.com/pgstudy/pgstudy/analyze"
)

// palette is Okabe and Ito's colour-blind-safe palette, in an order whose
// first two colours contrast well.
var palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	{0x00, 0x00, 0x00, 0xFF}, // black
}

// Neutral colours for what belongs to no configuration: reference lines,
// grids, the keys of the legend that explain a mark.
var (
	neutral       = color.NRGBA{0x55, 0x55, 0x55, 0xFF}
	gridColor     = color.NRGBA{0xE3, 0xE3, 0xE3, 0xFF}
	unknownConfig = color.NRGBA{0x99, 0x99, 0x99, 0xFF}
)

// configColor is the colour of a configuration in every figure of an
// analysis: its position in a.Configs picks it from the Okabe–Ito palette
// (the ninth configuration takes the first colour again). A configuration
// the analysis does not know is grey.
func configColor(a *analyze.Analysis, config string) color.NRGBA {
	i := slices.Index(a.Configs, config)
	if i < 0 {
		return unknownConfig
	}
	return palette[i%len(palette)]
}

// translucent is c with opacity alpha (0 to 1).
func translucent(c color.NRGBA, alpha float64) color.NRGBA {
	c.A = uint8(alpha*255 + 0.5)
	return c
}

// darker is c with its channels scaled by f (below 1), to outline a mark
// drawn in c so that light colours stay visible on white.
func darker(c color.NRGBA, f float64) color.NRGBA {
	return color.NRGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), 0xFF}
}
