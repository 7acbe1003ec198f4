package render

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// qps-TEST: a throughput test's queries per second in each round, by
// configuration, with the median, its interval and the range, and the
// baseline's median across: seed 003's relative QPS, as a figure.
func (v figView) qps(test string) (Figure, bool) {
	s, ok := v.a.QPSRounds(v.host, test)
	if !ok {
		return Figure{}, false
	}
	var rows []roundsRow
	for _, l := range s.Lines {
		rows = append(rows, roundsRow{config: l.Config, sum: l.Summary, ys: l.QPS})
	}
	cp, legend, marks := v.roundsPanel(rows, 1, "queries per second")
	caption := fmt.Sprintf("Queries per second of %s on each configuration (%s): %s", test,
		countText(rowConfigs(rows), func(c string) int { return rowRounds(rows, c) }, "rounds"), marks)
	if s.Baseline > 0 {
		cp.p.Add(refLine{vertical: cp.flipped, at: s.Baseline, style: draw.LineStyle{Color: neutral, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}},
			label: v.labels.label(v.a.Baseline) + " median"})
		caption += fmt.Sprintf(" The dashed line is %s's median: the relative QPS table divides by it.", v.a.Baseline)
	}
	return cp.sized(Figure{
		Name:    "qps-" + safeName(test),
		Title:   test + ": queries per second in each round",
		Caption: caption,
		panels:  [][]*plot.Plot{{cp.p}},
		legend:  legend,
	}, len(rows)), true
}
