package render

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// catPlot is a panel of values by category, either way round: categories
// along x and values up (the default), or categories down the y axis and
// values along x (flipped), for many or long names.
type catPlot struct {
	p       *plot.Plot
	flipped bool
}

// newCatPlot is a panel of names along one axis and values (valueLabel)
// along the other: flipped when the names would not fit side by side
// without slanting (slanted long names are clipped at the figure's edge).
func newCatPlot(names []string, catLabel, valueLabel string) catPlot {
	need, slot, numbers := crowding(textStyle(tickSize, false), names, fullWidth)
	cp := catPlot{flipped: need > slot && !numbers}
	if cp.flipped {
		cp.p = newPlot("", valueLabel, "")
		addGrid(cp.p, true)
		rev := slices.Clone(names) // the first name on top
		slices.Reverse(rev)
		categories(&cp.p.Y, rev, 0)
		return cp
	}
	cp.p = newPlot("", catLabel, valueLabel)
	addGrid(cp.p, false)
	categories(&cp.p.X, names, fullWidth)
	return cp
}

// at is the point of category i (of n) moved by off across it, at value y.
func (cp catPlot) at(i, n int, off, y float64) plotter.XY {
	if cp.flipped {
		return plotter.XY{X: y, Y: float64(n-1-i) - off}
	}
	return plotter.XY{X: float64(i) + off, Y: y}
}

// valueAxis is the axis of the values.
func (cp catPlot) valueAxis() *plot.Axis {
	if cp.flipped {
		return &cp.p.X
	}
	return &cp.p.Y
}

// times-TEST: every round of each configuration, its median with the
// median's interval, and its range.
func (v figView) times(test string) (Figure, bool) {
	tims := v.a.HostTimings(v.host, test)
	if len(tims) == 0 {
		return Figure{}, false
	}
	var configs, labels []string
	var medians []float64
	n := map[string]int{}
	for _, t := range tims {
		configs = append(configs, t.Config)
		labels = append(labels, v.labels.label(t.Config))
		medians = append(medians, t.Summary.Median)
		n[t.Config] = len(t.Rounds)
	}
	u := timeUnit(medians)
	cp := newCatPlot(labels, "configuration", "time of the statement ("+u.name+")")
	lo, hi := math.Inf(1), math.Inf(-1)
	intervals, missing := false, false
	for i, t := range tims {
		var ys []float64
		for _, r := range t.InRoundOrder() {
			ys = append(ys, r.TimeMs/u.div)
		}
		v.summaryMarks(cp, i, len(tims), t.Summary, u.div, v.color(t.Config))
		intervals, missing = intervals || t.Summary.CIValid, missing || !t.Summary.CIValid
		off := offsets(ys, 0.3)
		var xys plotter.XYs
		for j, y := range ys {
			xys = append(xys, cp.at(i, len(tims), 0.05+off[j], y))
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
		cp.p.Add(scatter(xys, v.color(t.Config), dotGlyph{}))
	}
	valueRange(cp.valueAxis(), lo, hi)
	caption := fmt.Sprintf("Time of the %s statement on each configuration (%s): dots are rounds, the bar is the median", test,
		countText(configs, func(c string) int { return n[c] }, "rounds"))
	legend := []legendItem{{"one round", dotThumb(neutral)}, {"median", lineThumb(medianStyle)}}
	if intervals {
		caption += fmt.Sprintf(", the shaded box the %.0f%% interval of the median (order statistics, as benchstat's)", 100*v.a.Confidence)
		legend = append(legend, legendItem{fmt.Sprintf("%.0f%% interval of the median", 100*v.a.Confidence), boxThumb(translucent(neutral, boxAlpha))})
	}
	caption += ", whiskers span min to max."
	if missing {
		caption += fmt.Sprintf(" A median without a box has fewer than %d rounds, too few for an interval.", stats.MinCIRounds(v.a.Confidence))
	}
	return Figure{
		Name:    "times-" + safeName(test),
		Title:   test + ": time of each round",
		Caption: caption,
		panels:  [][]*plot.Plot{{cp.p}},
		legend:  append(legend, legendItem{"min to max", whiskerThumb(whiskerStyle)}),
	}, true
}

// The marks of a summary: the median's bar, its interval's box and the
// min-to-max whisker.
var (
	whiskerStyle = draw.LineStyle{Color: neutral, Width: vg.Points(1)}
	medianStyle  = draw.LineStyle{Color: color.Black, Width: vg.Points(2.2)}
)

// boxAlpha is the opacity of an interval's box.
const boxAlpha = 0.3

// summaryMarks draws s (divided by div) on category i of n: the whisker
// from min to max beside the dots, the interval of the median as a box in
// col, and the median as a bar across both.
func (v figView) summaryMarks(cp catPlot, i, n int, s stats.Summary, div float64, col color.NRGBA) {
	w := &strokes{style: whiskerStyle}
	wx, hw := -0.2, 0.04
	w.add(cp.at(i, n, wx, s.Min/div), cp.at(i, n, wx, s.Max/div))
	w.add(cp.at(i, n, wx-hw, s.Min/div), cp.at(i, n, wx+hw, s.Min/div))
	w.add(cp.at(i, n, wx-hw, s.Max/div), cp.at(i, n, wx+hw, s.Max/div))
	cp.p.Add(w)
	if s.CIValid {
		a, b := cp.at(i, n, -0.28, s.Lo/div), cp.at(i, n, 0.28, s.Hi/div)
		cp.p.Add(&barSet{rects: []bar{{x0: min(a.X, b.X), x1: max(a.X, b.X), y0: min(a.Y, b.Y), y1: max(a.Y, b.Y), color: translucent(col, boxAlpha)}}})
	}
	m := &strokes{style: medianStyle}
	m.add(cp.at(i, n, -0.28, s.Median/div), cp.at(i, n, 0.28, s.Median/div))
	cp.p.Add(m)
}
