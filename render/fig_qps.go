package render

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// qps-TEST: a throughput test's queries per second in each round, by
// configuration, with the median, its interval and the range, and the
// baseline's median across: seed 003's relative QPS, as a figure.
func (v figView) qps(test string) (Figure, bool) {
	s, ok := v.a.QPSRounds(v.host, test)
	if !ok {
		return Figure{}, false
	}
	var configs, labels []string
	n := map[string]int{}
	for _, l := range s.Lines {
		configs = append(configs, l.Config)
		labels = append(labels, v.labels.label(l.Config))
		n[l.Config] = len(l.QPS)
	}
	cp := newCatPlot(labels, "configuration", "queries per second")
	lo, hi := math.Inf(1), math.Inf(-1)
	intervals, missing := false, false
	for i, l := range s.Lines {
		v.summaryMarks(cp, i, len(s.Lines), l.Summary, 1, v.color(l.Config))
		intervals, missing = intervals || l.Summary.CIValid, missing || !l.Summary.CIValid
		off := offsets(l.QPS, 0.3)
		var xys plotter.XYs
		for j, q := range l.QPS {
			xys = append(xys, cp.at(i, len(s.Lines), 0.05+off[j], q))
			lo, hi = math.Min(lo, q), math.Max(hi, q)
		}
		cp.p.Add(scatter(xys, v.color(l.Config), dotGlyph{}))
	}
	caption := fmt.Sprintf("Queries per second of %s on each configuration (%s): dots are rounds, the bar is the median", test,
		countText(configs, func(c string) int { return n[c] }, "rounds"))
	legend := []legendItem{{"one round", dotThumb(neutral)}, {"median", lineThumb(medianStyle)}}
	if intervals {
		caption += fmt.Sprintf(", the shaded box the %.0f%% interval of the median", 100*v.a.Confidence)
		legend = append(legend, legendItem{fmt.Sprintf("%.0f%% interval of the median", 100*v.a.Confidence), boxThumb(translucent(neutral, boxAlpha))})
	}
	caption += ", whiskers span min to max."
	legend = append(legend, legendItem{"min to max", whiskerThumb(whiskerStyle)})
	if s.Baseline > 0 {
		cp.p.Add(refLine{vertical: cp.flipped, at: s.Baseline, style: draw.LineStyle{Color: neutral, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}},
			label: v.labels.label(v.a.Baseline) + " median"})
		caption += fmt.Sprintf(" The dashed line is %s's median: the relative QPS table divides by it.", v.a.Baseline)
	}
	if missing {
		caption += fmt.Sprintf(" A median without a box has fewer than %d rounds, too few for an interval.", stats.MinCIRounds(v.a.Confidence))
	}
	// QPS is compared around the medians: the axis is not forced to 0
	// when that would flatten differences of a few percent.
	valueRange(cp.valueAxis(), lo, hi)
	return Figure{
		Name:    "qps-" + safeName(test),
		Title:   test + ": queries per second in each round",
		Caption: caption,
		panels:  [][]*plot.Plot{{cp.p}},
		legend:  legend,
	}, true
}
