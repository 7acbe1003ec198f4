package render

import (
	"cmp"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgstudy/pgstudy/analyze"
)

// diskPanel is one panel of the disk figure: a direction of transfer,
// its rate in MiB/s, and the device's limit for it (0 for none).
type diskPanel struct {
	title string
	get   func(s analyze.DiskInterval) float64
	limit float64
}

// disk-TEST: the device's throughput over each run, one line per run;
// writes in a second panel when the runs wrote.
func (v figView) disk(test string) (Figure, bool) {
	s, ok := v.a.DiskThroughput(v.host, test)
	if !ok {
		return Figure{}, false
	}
	limit := s.Limit
	panels := []diskPanel{{"read", func(s analyze.DiskInterval) float64 { return s.Stats.RKiBPerS / 1024 }, cmp.Or(limit.ReadMiBs, limit.MiBs)}}
	if s.Writes {
		panels = append(panels, diskPanel{"written", func(s analyze.DiskInterval) float64 { return s.Stats.WKiBPerS / 1024 }, cmp.Or(limit.WriteMiBs, limit.MiBs)})
	}
	var plots [][]*plot.Plot
	xmax, limited := 0.0, false
	for i, pn := range panels {
		xlabel := ""
		if i == len(panels)-1 {
			xlabel = "seconds from the start of the statement"
		}
		p, end := v.diskPlot(s.Runs, pn, xlabel)
		xmax = math.Max(xmax, end)
		limited = limited || pn.limit > 0
		plots = append(plots, []*plot.Plot{p})
	}
	if !(xmax > 0) {
		return Figure{}, false // no interval could be measured
	}
	for _, row := range plots {
		row[0].X.Min = math.Min(0, row[0].X.Min)
		row[0].X.Max = xmax
	}
	n := map[string]int{}
	for _, r := range s.Runs {
		n[r.Config]++
	}
	what := "Read throughput"
	if s.Writes {
		what = "Read and write throughput"
	}
	caption := fmt.Sprintf("%s of the disk (%s) during each run of %s (%s), one line per run; each step is one interval between /proc/diskstats samples%s.",
		what, s.Device, test, countText(s.Configs, func(c string) int { return n[c] }, "runs"), v.sampleText())
	if limited {
		caption += " The dashed line is the device's limit the study gives."
	}
	f := Figure{
		Name:    "disk-" + safeName(test),
		Title:   test + ": disk throughput during each run",
		Caption: caption,
		panels:  plots,
		legend: v.configLegend(s.Configs, func(c color.Color) func(*draw.Canvas) {
			return lineThumb(draw.LineStyle{Color: c, Width: vg.Points(1.5)})
		}),
	}
	if len(plots) > 1 {
		f.width, f.height = figureWidth, 12*vg.Centimeter
	}
	return f, true
}

// diskPlot draws pn's rate over each run as steps, one per interval
// between snapshots, broken where an interval could not be measured; it
// returns the panel and the end of the last interval.
func (v figView) diskPlot(runs []*analyze.Run, pn diskPanel, xlabel string) (*plot.Plot, float64) {
	p := newPlot("", xlabel, pn.title+" (MiB/s)")
	addGrid(p, false)
	hi, xmax := 0.0, 0.0
	for _, r := range runs {
		l := &strokes{style: draw.LineStyle{Color: translucent(v.color(r.Config), 0.85), Width: vg.Points(1)}}
		var path []plotter.XY
		for _, s := range r.Series {
			if s.Stats.Reset || !(s.Stats.Seconds > 0) {
				if len(path) > 0 {
					l.add(path...)
				}
				path = nil
				continue
			}
			val := pn.get(s)
			start := s.OffsetS - s.Stats.Seconds
			path = append(path, plotter.XY{X: start, Y: val}, plotter.XY{X: s.OffsetS, Y: val})
			hi = math.Max(hi, val)
			xmax = math.Max(xmax, s.OffsetS)
		}
		if len(path) > 0 {
			l.add(path...)
		}
		p.Add(l)
	}
	if pn.limit > 0 {
		p.Add(refLine{at: pn.limit, style: draw.LineStyle{Color: neutral, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}},
			label: fmt.Sprintf("limit %g MiB/s", pn.limit)})
		hi = math.Max(hi, pn.limit)
	}
	p.Y.Min, p.Y.Max = 0, math.Max(hi*1.08, 1)
	return p, xmax
}

// sampleText is " (every 250ms)" when the host's study says how often
// the disk was sampled.
func (v figView) sampleText() string {
	for _, s := range v.a.Setups {
		if s.Host == v.host && s.Sample > 0 {
			return " (every " + s.Sample.String() + ")"
		}
	}
	return ""
}
