package render

import (
	"fmt"
	"github.com/pgstudy/pgstudy/analyze"
	"math"
	"strings"

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
	// shows that fewer requests means larger ones. The curve is the
	// device's bytes; PostgreSQL's own (pg_stat_io) get a curve of their
	// own when they differ, so that the figure names no byte count a
	// source did not measure.
	vol := s.MedianBytes / 1024 // KiB
	var devCurve, pgCurve *strokes
	if s.SameBytes {
		devCurve = volumeCurve(vol, xmax, ymax, draw.LineStyle{Color: neutral, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}})
	}
	pgSame := s.PGBytes != nil && math.Abs(*s.PGBytes-s.MedianBytes) <= 0.15*s.MedianBytes
	if s.PGBytes != nil && !pgSame {
		pgCurve = volumeCurve(*s.PGBytes/1024, xmax, ymax, draw.LineStyle{Color: neutral, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(1.5)}})
	}
	for _, c := range []*strokes{devCurve, pgCurve} {
		if c != nil {
			p.Add(c)
		}
	}
	n, stacked := v.readDots(p, s, xmax, ymax)
	p.X.Min, p.X.Max = 0, xmax
	p.Y.Min, p.Y.Max = 0, ymax
	legend := v.configLegend(s.Configs, dotThumb)
	caption := fmt.Sprintf("Each dot is one run of %s (%s): the read requests the disk completed during the statement and their average size "+
		"(iostat's rareq-sz; the whole device).", test, countText(s.Configs, func(c string) int { return n[c] }, "runs"))
	if devCurve != nil {
		what := "device read"
		if pgSame {
			what = "device and PostgreSQL read"
		}
		legend = append(legend, legendItem{what + " " + mibText(vol*1024) + " (median run)", lineThumb(devCurve.style)})
		caption += fmt.Sprintf(" The dashed curve joins the points where the device read %s, the median run's: "+
			"along it, fewer requests means larger ones.", mibText(vol*1024))
		if pgSame {
			caption += " PostgreSQL read about as much (pg_stat_io, within 15%)."
		}
	}
	if s.PGBytes == nil && len(s.PGByConfig) > 0 {
		var each []string
		for _, c := range s.Configs {
			each = append(each, fmt.Sprintf("%s %s", c, mibText(s.PGByConfig[c])))
		}
		caption += " PostgreSQL's own reads differ between the configurations (" + strings.Join(each, ", ") +
			"; pg_stat_io, medians), so no curve stands for them: the read-amplification table sets each against the device's."
	}
	if pgCurve != nil {
		legend = append(legend, legendItem{"PostgreSQL read " + mibText(*s.PGBytes) + " (pg_stat_io, median)", lineThumb(pgCurve.style)})
		caption += fmt.Sprintf(" The dotted curve is what PostgreSQL read from the kernel, %s (pg_stat_io, median run): "+
			"dots above it read more from the device than the server asked for (read-ahead, or other processes).", mibText(*s.PGBytes))
	}
	if stacked {
		caption += " Runs that fell on the same spot are drawn as a clump of dots around it, one dot per run."
	}
	return Figure{
		Name:    "reads-" + safeName(test),
		Title:   test + ": read requests and their size, per run",
		Caption: caption,
		panels:  [][]*plot.Plot{{p}},
		legend:  legend,
	}, true
}

// volumeCurve is the curve of requests × size = vol KiB across the plot,
// or nil when it does not cross it.
func volumeCurve(vol, xmax, ymax float64, style draw.LineStyle) *strokes {
	if ymax <= 0 || vol <= 0 {
		return nil
	}
	x0 := vol / ymax
	if x0 >= xmax {
		return nil
	}
	var path []plotter.XY
	for i := range 201 {
		x := x0 * math.Pow(xmax/x0, float64(i)/200)
		path = append(path, plotter.XY{X: x, Y: vol / x})
	}
	return &strokes{style: style, paths: [][]plotter.XY{path}}
}

// readDots adds each configuration's runs as dots (a clump where runs
// fell on one spot), and says how many runs each has and whether any
// clumped.
func (v figView) readDots(p *plot.Plot, s analyze.ReadSeries, xmax, ymax float64) (map[string]int, bool) {
	n := map[string]int{}
	stacked := false
	for _, c := range s.Configs {
		var xys plotter.XYs
		for _, r := range s.Runs {
			if r.Config == c {
				xys = append(xys, plotter.XY{X: r.Disk.Reads, Y: r.Disk.RAreqSzKiB})
				n[c]++
			}
		}
		cl := newClumps(xys, xmax/200, ymax/200, v.color(c))
		stacked = stacked || cl.stacked()
		p.Add(cl)
	}
	return n, stacked
}
