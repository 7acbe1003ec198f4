package render

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// reads-TEST: each run's read requests and their average size.
func (v figView) reads(test string) (Figure, bool) {
	s, ok := v.a.Reads(v.host, test)
	if !ok {
		return Figure{}, false
	}
	p := newPlot("", "read requests per run", "average size of a read request (KiB)")
	addGrid(p, false)
	xmax, ymax := 0.0, 0.0
	for _, r := range s.Runs {
		xmax, ymax = math.Max(xmax, r.Disk.Reads), math.Max(ymax, r.Disk.RAreqSzKiB)
	}
	xmax, ymax = xmax*1.1, ymax*1.15
	// When the runs read about the same bytes, a curve of equal volume
	// shows that fewer requests means larger ones.
	vol := s.MedianBytes / 1024 // KiB
	curve := &strokes{style: draw.LineStyle{Color: neutral, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}}
	var path []plotter.XY
	x0 := vol / ymax
	for i := range 201 {
		x := x0 * math.Pow(xmax/x0, float64(i)/200)
		path = append(path, plotter.XY{X: x, Y: vol / x})
	}
	if ymax > 0 && x0 < xmax && s.SameBytes {
		curve.paths = [][]plotter.XY{path}
		p.Add(curve)
	}
	n := map[string]int{}
	for _, c := range s.Configs {
		var xys plotter.XYs
		for _, r := range s.Runs {
			if r.Config == c {
				xys = append(xys, plotter.XY{X: r.Disk.Reads, Y: r.Disk.RAreqSzKiB})
				n[c]++
			}
		}
		p.Add(scatter(xys, v.color(c), dotGlyph{}))
	}
	p.X.Min, p.X.Max = 0, xmax
	p.Y.Min, p.Y.Max = 0, ymax
	legend := v.configLegend(s.Configs, dotThumb)
	if len(curve.paths) > 0 {
		legend = append(legend, legendItem{"same bytes read (" + mibText(vol*1024) + ")", lineThumb(curve.style)})
	}
	caption := fmt.Sprintf("Each dot is one run of %s (%s): the read requests the disk completed during the statement and their average size "+
		"(iostat's rareq-sz).", test, countText(s.Configs, func(c string) int { return n[c] }, "runs"))
	if len(curve.paths) > 0 {
		caption += fmt.Sprintf(" The dashed curve joins the points that read the same %s, the median of the runs: "+
			"along it, fewer requests means larger ones.", mibText(vol*1024))
	}
	return Figure{
		Name:    "reads-" + safeName(test),
		Title:   test + ": read requests and their size, per run",
		Caption: caption,
		panels:  [][]*plot.Plot{{p}},
		legend:  legend,
	}, true
}
