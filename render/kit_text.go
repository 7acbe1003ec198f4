// Texts of the figures: the typeface and its sizes, wrapping, and how numbers and counts are written.

package render

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Font sizes, in points, for a figure shown at its size.
const (
	titleSize  = 12
	panelSize  = 10
	labelSize  = 10
	tickSize   = 9
	legendSize = 9
	noteSize   = 8
)

// sans is the typeface of every text: gonum/plot's embedded Liberation
// Sans, never a system font.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle is the style of a text of the given size.
func textStyle(size vg.Length, bold bool) text.Style {
	f := font.From(sans, size)
	if bold {
		f.Weight = xfont.WeightBold
	}
	return text.Style{Color: color.Black, Font: f, Handler: plot.DefaultTextHandler}
}

// wrapText breaks txt into lines no wider than width.
func wrapText(ts text.Style, txt string, width vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(txt) {
		try := w
		if line != "" {
			try = line + " " + w
		}
		if line != "" && ts.Width(try) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		line = try
	}
	return append(lines, line)
}

// fitText is s shortened in its middle, with "…", to fit width: the
// start and the end of a long name tell configurations apart better than
// a start alone.
func fitText(ts text.Style, s string, width vg.Length) string {
	if ts.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n > 1; n-- {
		head := (n + 1) / 2
		t := string(r[:head]) + "…" + string(r[len(r)-(n-head):])
		if ts.Width(t) <= width {
			return t
		}
	}
	return "…"
}

// formatCount writes a count or an amount with three significant digits
// at most: 12, 0.19, 3107, 30k.
func formatCount(v float64) string {
	switch {
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// mibText writes bytes in MiB (or GiB) with three significant digits.
func mibText(b float64) string {
	if b >= 10*(1<<30) {
		return strconv.FormatFloat(b/(1<<30), 'f', 0, 64) + " GiB"
	}
	m := b / (1 << 20)
	switch {
	case m >= 100:
		return strconv.FormatFloat(m, 'f', 0, 64) + " MiB"
	case m >= 10:
		return strconv.FormatFloat(m, 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(m, 'f', 2, 64) + " MiB"
}

// countText says how many there are of each configuration: "n = 6 per
// configuration" or "n = 6 (pg17), 5 (pg18)".
func countText(configs []string, n func(string) int, what string) string {
	if len(configs) == 0 {
		return "n = 0"
	}
	same := true
	for _, c := range configs {
		same = same && n(c) == n(configs[0])
	}
	if same {
		if len(configs) == 1 {
			return fmt.Sprintf("n = %d %s", n(configs[0]), what)
		}
		return fmt.Sprintf("n = %d %s per configuration", n(configs[0]), what)
	}
	var parts []string
	for _, c := range configs {
		parts = append(parts, fmt.Sprintf("%d (%s)", n(c), c))
	}
	return fmt.Sprintf("n = %s %s", strings.Join(parts, ", "), what)
}

// timeScale is a unit of time and its size in ms.
type timeScale struct {
	name string
	div  float64
}

// timeUnit is ms, or s when a median is above 10 s.
func timeUnit(ms []float64) timeScale {
	if len(ms) > 0 && slices.Max(ms) > 10000 {
		return timeScale{"s", 1000}
	}
	return timeScale{"ms", 1}
}

// medianRoundsText says how many rounds the points of a figure are
// medians of, from the distinct counts in ascending order: "n = 6 rounds
// each", or "n = 5 to 6 rounds" where they differ.
func medianRoundsText(ns []int) string {
	if len(ns) > 1 {
		return fmt.Sprintf("n = %d to %d rounds", ns[0], ns[len(ns)-1])
	}
	return fmt.Sprintf("n = %d rounds each", ns[0])
}

// panelTitle is title wrapped to the width of a panel of a row of
// min(panels, 3): a long configuration's name over a third of a figure.
// It breaks after a space, '.' or '-', in three lines at most, and cuts
// a line still too wide in its middle.
func panelTitle(title string, panels int) string {
	width := fullWidth
	if panels >= 3 {
		width = thirdWidth + 25
	} else if panels == 2 {
		width = fullWidth/2 - 20
	}
	ts := textStyle(panelSize, true)
	var pieces []string
	start := 0
	for i, r := range title {
		if r == ' ' || r == '.' || r == '-' {
			pieces = append(pieces, title[start:i+1])
			start = i + 1
		}
	}
	pieces = append(pieces, title[start:])
	var lines []string
	line := ""
	for _, p := range pieces {
		if line != "" && ts.Width(strings.TrimSpace(line+p)) > width && len(lines) < 2 {
			lines = append(lines, strings.TrimSpace(line))
			line = ""
		}
		line += p
	}
	lines = append(lines, strings.TrimSpace(line))
	for i, l := range lines {
		lines[i] = fitText(ts, l, width)
	}
	return strings.Join(lines, "\n")
}
