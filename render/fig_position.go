package render

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgstudy/pgstudy/analyze"
)

// position-TEST: each run's time by its position in the round, and each
// configuration's median at each position.
func (v figView) position(test string) (Figure, bool) {
	s, ok := v.a.Positions(v.host, test)
	if !ok {
		return Figure{}, false
	}
	names := make([]string, len(s.Positions))
	for i, pos := range s.Positions {
		names[i] = strconv.Itoa(pos)
	}
	var medians []float64
	for _, l := range s.Lines {
		medians = append(medians, l.Median)
	}
	u := timeUnit(medians)
	p := newPlot("", "position in the round (1 ran first)", "time of the statement ("+u.name+")")
	addGrid(p, false)
	categories(&p.X, names, fullWidth)
	m := len(s.Lines)
	lo, hi := math.Inf(1), math.Inf(-1)
	var configs []string
	n := map[string]int{}
	for j, l := range s.Lines {
		configs = append(configs, l.Config)
		n[l.Config] = l.Rounds
		dodge := 0.0
		if m > 1 {
			dodge = (float64(j) - float64(m-1)/2) * 0.7 / float64(m)
		}
		a, b := v.positionLine(p, l, u, dodge, min(0.3, 0.49/float64(m)))
		lo, hi = math.Min(lo, a), math.Max(hi, b)
	}
	valueRange(&p.Y, lo, hi)
	legend := v.configLegend(configs, dotThumb)
	var cols []color.Color
	for _, c := range configs {
		cols = append(cols, v.color(c))
	}
	legend = append(legend, legendItem{"median at a position, in its configuration's colour", stripeThumb(cols, vg.Points(2.5))})
	return Figure{
		Name:  "position-" + safeName(test),
		Title: test + ": time by position in the round",
		Caption: fmt.Sprintf("Each dot is a run of %s (%s), placed by its position in its round (configurations take turns); "+
			"a bar of a configuration's colour marks its median at each position (no line joins them: a median of two or three runs is no trend). "+
			"Times that rise or fall with the position in every configuration show an order effect.",
			test, countText(configs, func(c string) int { return n[c] }, "runs")),
		panels: [][]*plot.Plot{{p}},
		legend: legend,
	}, true
}

// positionLine draws one configuration's dots, spread over width around
// each position moved by dodge, and its median bars; it returns the
// range of the times drawn.
func (v figView) positionLine(p *plot.Plot, l analyze.PositionLine, u timeScale, dodge, width float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	col := v.color(l.Config)
	bar := &strokes{style: draw.LineStyle{Color: col, Width: vg.Points(2.5)}}
	half := width/2 + 0.01
	var xys plotter.XYs
	for i, ms := range l.At {
		if len(ms) == 0 {
			continue
		}
		at := make([]float64, len(ms))
		for k, t := range ms {
			at[k] = t / u.div
		}
		off := offsets(at, width)
		for k, y := range at {
			xys = append(xys, plotter.XY{X: float64(i) + dodge + off[k], Y: y})
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
		md := l.Medians[i] / u.div
		bar.add(plotter.XY{X: float64(i) + dodge - half, Y: md}, plotter.XY{X: float64(i) + dodge + half, Y: md})
	}
	p.Add(bar, scatter(xys, col, dotGlyph{}))
	return lo, hi
}
