package render

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The bounds within which a figure drawn off amd64 matches its golden:
// a coordinate moved by a rounding step changes the fifth significant
// digit vgsvg writes by one at most, and the coverage of an antialiased
// pixel by far less than one level in 255.
const (
	svgTolerance = 1e-4 // relative, on every number of an SVG (and 1e-3 absolute near zero)
	pngTolerance = 4    // of 255, on every channel of every pixel of a PNG
)

// sameFigure compares a figure file with its golden: byte for byte when
// exact, else within the bounds above.
func sameFigure(ext string, got, want []byte, exact bool) error {
	switch {
	case bytes.Equal(got, want):
		return nil
	case exact && ext == ".svg":
		return fmt.Errorf("\n%s", lineDiff(string(want), string(got)))
	case exact:
		return fmt.Errorf("the PNG's bytes differ")
	case ext == ".svg":
		return closeSVG(got, want)
	}
	return closePNG(got, want)
}

var svgNumber = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?`)

// closeSVG reports where got and want differ in more than their numbers,
// or in a number by more than svgTolerance.
func closeSVG(got, want []byte) error {
	g, w := string(got), string(want)
	gs, ws := svgNumber.Split(g, -1), svgNumber.Split(w, -1)
	if strings.Join(gs, "#") != strings.Join(ws, "#") {
		return fmt.Errorf("not only in numbers:\n%s", lineDiff(strings.Join(ws, "#"), strings.Join(gs, "#")))
	}
	gn, wn := svgNumber.FindAllString(g, -1), svgNumber.FindAllString(w, -1)
	for i := range gn {
		a, _ := strconv.ParseFloat(gn[i], 64)
		b, _ := strconv.ParseFloat(wn[i], 64)
		if math.Abs(a-b) > svgTolerance*math.Max(math.Abs(a), math.Abs(b))+1e-3 {
			return fmt.Errorf("number %d is %s, want %s (more than a relative %g apart)", i+1, gn[i], wn[i], svgTolerance)
		}
	}
	return nil
}

// closePNG decodes both images and reports a size that differs or a
// channel of a pixel more than pngTolerance apart.
func closePNG(got, want []byte) error {
	gi, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		return fmt.Errorf("the figure: %w", err)
	}
	wi, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		return fmt.Errorf("the golden: %w", err)
	}
	if gi.Bounds() != wi.Bounds() {
		return fmt.Errorf("size %v, want %v", gi.Bounds(), wi.Bounds())
	}
	bad, worst, at := 0, 0, image.Point{}
	b := gi.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if d := channelDiff(gi.At(x, y), wi.At(x, y)); d > pngTolerance {
				bad++
				if d > worst {
					worst, at = d, image.Pt(x, y)
				}
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d pixels differ by more than %d of 255 in a channel (the most, %d, at %v)", bad, pngTolerance, worst, at)
	}
	return nil
}

// channelDiff is the largest difference of one channel of a and b, each
// as 8-bit non-premultiplied RGBA.
func channelDiff(a, b color.Color) int {
	x := color.NRGBAModel.Convert(a).(color.NRGBA)
	y := color.NRGBAModel.Convert(b).(color.NRGBA)
	d := 0
	for _, p := range [][2]uint8{{x.R, y.R}, {x.G, y.G}, {x.B, y.B}, {x.A, y.A}} {
		d = max(d, int(math.Abs(float64(p[0])-float64(p[1]))))
	}
	return d
}

var pngSum = regexp.MustCompile(`(?m)^\tpng sha256: [0-9a-f]+\n`)

// withoutPNGSums is a figures list without the SHA-256 of each PNG, for
// where the PNGs are compared pixel by pixel instead.
func withoutPNGSums(list string) string { return pngSum.ReplaceAllString(list, "") }

// TestCloseFigures checks the comparisons used off amd64 on a golden
// figure moved within and beyond their bounds.
func TestCloseFigures(t *testing.T) {
	svg, err := os.ReadFile(filepath.Join("testdata", "figures", "ratios.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// The background's corner, at the figure's width.
	moved := bytes.Replace(svg, []byte(`L453.54,0`), []byte(`L453.55,0`), 1)
	if err := sameFigure(".svg", moved, svg, false); err != nil {
		t.Errorf("an SVG number moved in its last digit: %v", err)
	}
	if err := sameFigure(".svg", moved, svg, true); err == nil {
		t.Error("an SVG number moved in its last digit is the same byte for byte")
	}
	for _, far := range [][]byte{
		bytes.Replace(svg, []byte(`L453.54,0`), []byte(`L455,0`), 1),
		bytes.Replace(svg, []byte(`fill:#FFFFFF`), []byte(`fill:#FFFFFE`), 1),
		bytes.Replace(svg, []byte(`<path `), []byte(`<rect `), 1),
	} {
		if err := sameFigure(".svg", far, svg, false); err == nil {
			t.Error("an SVG changed beyond its numbers' bound matches")
		}
	}

	b, err := os.ReadFile(filepath.Join("testdata", "figures", "ratios.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	shifted := func(d int) []byte {
		m := image.NewNRGBA(img.Bounds())
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				if x == 10 && y == 10 {
					c.G = uint8(int(c.G) - d)
				}
				m.Set(x, y, c)
			}
		}
		var out bytes.Buffer
		if err := png.Encode(&out, m); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	if err := sameFigure(".png", shifted(pngTolerance), b, false); err != nil {
		t.Errorf("a pixel %d levels off: %v", pngTolerance, err)
	}
	if err := sameFigure(".png", shifted(pngTolerance+1), b, false); err == nil {
		t.Errorf("a pixel %d levels off matches", pngTolerance+1)
	}
	if err := sameFigure(".png", shifted(0), b, true); err == nil {
		t.Error("a PNG encoded otherwise is the same byte for byte")
	}
}
