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
		var rev []string // the first name on top, none over 40% of the figure
		for _, n := range names {
			rev = append(rev, fitText(cp.p.Y.Tick.Label, n, 0.4*figureWidth))
		}
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

// sized makes f taller when its n categories run down the y axis and
// are more than 8, as the ratios figure does for its rows.
func (cp catPlot) sized(f Figure, n int) Figure {
	if cp.flipped && n > 8 {
		f.width, f.height = figureWidth, figureHeight+vg.Length(n-8)*0.6*vg.Centimeter
	}
	return f
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
	var medians []float64
	for _, t := range tims {
		medians = append(medians, t.Summary.Median)
	}
	u := timeUnit(medians)
	var rows []roundsRow
	for _, t := range tims {
		var ys []float64
		for _, r := range t.InRoundOrder() {
			ys = append(ys, r.TimeMs)
		}
		rows = append(rows, roundsRow{config: t.Config, sum: t.Summary, ys: ys})
	}
	cp, legend, marks := v.roundsPanel(rows, u.div, "time of the statement ("+u.name+")")
	return cp.sized(Figure{
		Name:  "times-" + safeName(test),
		Title: test + ": time of each round",
		Caption: fmt.Sprintf("Time of the %s statement on each configuration (%s): %s", test,
			countText(rowConfigs(rows), func(c string) int { return rowRounds(rows, c) }, "rounds"), marks),
		panels: [][]*plot.Plot{{cp.p}},
		legend: legend,
	}, len(rows)), true
}

// roundsRow is one configuration's rounds of a test and their summary.
type roundsRow struct {
	config string
	sum    stats.Summary
	ys     []float64 // in round order
}

func rowConfigs(rows []roundsRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.config)
	}
	return out
}

func rowRounds(rows []roundsRow, config string) int {
	for _, r := range rows {
		if r.config == config {
			return len(r.ys)
		}
	}
	return 0
}

// roundsPanel draws each row's rounds (divided by div) as dots beside
// its summary's marks (summaryMarks), one category per configuration; it
// returns the panel, the legend of the marks and the sentence that says
// what they are.
func (v figView) roundsPanel(rows []roundsRow, div float64, valueLabel string) (cp catPlot, legend []legendItem, marks string) {
	var labels []string
	for _, r := range rows {
		labels = append(labels, v.labels.label(r.config))
	}
	cp = newCatPlot(labels, "configuration", valueLabel)
	lo, hi := math.Inf(1), math.Inf(-1)
	intervals, missing := false, false
	for i, r := range rows {
		v.summaryMarks(cp, i, len(rows), r.sum, div, v.color(r.config))
		intervals, missing = intervals || r.sum.CIValid, missing || !r.sum.CIValid
		ys := make([]float64, len(r.ys))
		for j, y := range r.ys {
			ys[j] = y / div
		}
		off := offsets(ys, 0.3)
		var xys plotter.XYs
		for j, y := range ys {
			xys = append(xys, cp.at(i, len(rows), 0.05+off[j], y))
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
		cp.p.Add(scatter(xys, v.color(r.config), dotGlyph{}))
	}
	valueRange(cp.valueAxis(), lo, hi)
	marks = "dots are rounds, the bar is the median"
	legend = []legendItem{{"one round", dotThumb(neutral)}, {"median", lineThumb(medianStyle)}}
	if intervals {
		marks += fmt.Sprintf(", the shaded box the %.0f%% interval of the median (order statistics, as benchstat's)", 100*v.a.Confidence)
		legend = append(legend, legendItem{fmt.Sprintf("%.0f%% interval of the median", 100*v.a.Confidence), boxThumb(translucent(neutral, boxAlpha))})
	}
	marks += ", whiskers span min to max."
	if missing {
		marks += fmt.Sprintf(" A median without a box has fewer than %d rounds, too few for an interval.", stats.MinCIRounds(v.a.Confidence))
	}
	return cp, append(legend, legendItem{"min to max", whiskerThumb(whiskerStyle)}), marks
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
