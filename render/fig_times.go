package render

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// times-TEST: every round of each configuration, its median and range.
func (v figView) times(test string) (Figure, bool) {
	tims := v.a.HostTimings(v.host, test)
	if len(tims) == 0 {
		return Figure{}, false
	}
	var configs []string
	var medians []float64
	for _, t := range tims {
		configs = append(configs, t.Config)
		medians = append(medians, t.Summary.Median)
	}
	u := timeUnit(medians)
	p := newPlot("", "configuration", "time of the statement ("+u.name+")")
	addGrid(p, false)
	categories(&p.X, configs, fullWidth)
	lo, hi := math.Inf(1), math.Inf(-1)
	whisker := draw.LineStyle{Color: neutral, Width: vg.Points(1)}
	median := draw.LineStyle{Color: color.Black, Width: vg.Points(2.2)}
	for i, t := range tims {
		// The whisker stands left of the dots, the median bar crosses both.
		x := float64(i)
		s := t.Summary
		w := &strokes{style: whisker}
		wx, hw := x-0.2, 0.04
		w.add(plotter.XY{X: wx, Y: s.Min / u.div}, plotter.XY{X: wx, Y: s.Max / u.div})
		w.add(plotter.XY{X: wx - hw, Y: s.Min / u.div}, plotter.XY{X: wx + hw, Y: s.Min / u.div})
		w.add(plotter.XY{X: wx - hw, Y: s.Max / u.div}, plotter.XY{X: wx + hw, Y: s.Max / u.div})
		m := &strokes{style: median}
		m.add(plotter.XY{X: x - 0.28, Y: s.Median / u.div}, plotter.XY{X: x + 0.28, Y: s.Median / u.div})
		rs := t.InRoundOrder()
		var ys []float64
		for _, r := range rs {
			ys = append(ys, r.TimeMs)
		}
		off := offsets(ys, 0.3)
		var xys plotter.XYs
		for j, r := range rs {
			xys = append(xys, plotter.XY{X: x + 0.05 + off[j], Y: r.TimeMs / u.div})
			lo, hi = math.Min(lo, r.TimeMs/u.div), math.Max(hi, r.TimeMs/u.div)
		}
		p.Add(w, m, scatter(xys, v.color(t.Config), dotGlyph{}))
	}
	valueRange(&p.Y, lo, hi)
	n := map[string]int{}
	for _, t := range tims {
		n[t.Config] = len(t.Rounds)
	}
	return Figure{
		Name:  "times-" + safeName(test),
		Title: test + ": time of each round",
		Caption: fmt.Sprintf("Time of the %s statement on each configuration (%s): dots are rounds, the bar is the median, whiskers span min to max.",
			test, countText(configs, func(c string) int { return n[c] }, "rounds")),
		panels: [][]*plot.Plot{{p}},
		legend: []legendItem{
			{"one round", dotThumb(neutral)},
			{"median", lineThumb(median)},
			{"min to max", whiskerThumb(whisker)},
		},
	}, true
}
