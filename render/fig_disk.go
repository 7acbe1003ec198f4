package render

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgstudy/pgstudy/analyze"
)

// The disk figure's lines: reads solid, writes dashed, the limit dashed
// grey.
var (
	writeDashes = []vg.Length{vg.Points(3), vg.Points(2)}
	limitStyle  = draw.LineStyle{Color: neutral, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
)

// disk-TEST: the device's throughput over each run, one panel per
// configuration (three to a row) with one line per run, so that runs of
// one configuration are told apart from another's by place, not colour;
// writes dashed in the same panels when the statements wrote.
func (v figView) disk(test string) (Figure, bool) {
	s, ok := v.a.DiskThroughput(v.host, test)
	if !ok {
		return Figure{}, false
	}
	readLimit, writeLimit := cmp.Or(s.Limit.ReadMiBs, s.Limit.MiBs), cmp.Or(s.Limit.WriteMiBs, s.Limit.MiBs)
	if !s.Writes {
		writeLimit = 0
	}
	xmax, ymax := 0.0, math.Max(readLimit, writeLimit)
	for _, r := range s.Runs {
		for _, st := range r.Steps {
			xmax, ymax = math.Max(xmax, st.EndS), math.Max(ymax, st.ReadMiBs)
			if s.Writes {
				ymax = math.Max(ymax, st.WriteMiBs)
			}
		}
	}
	var panels []*plot.Plot
	n := map[string]int{}
	for _, c := range s.Configs {
		ylabel := "read (MiB/s)"
		if s.Writes {
			ylabel = "MiB/s"
		}
		p := newPlot(panelTitle(v.labels.label(c), len(s.Configs)), "", ylabel)
		addGrid(p, false)
		for _, r := range s.Runs {
			if r.Run.Config == c {
				n[c]++
				v.diskLines(p, r, s.Writes)
			}
		}
		for _, l := range []struct {
			at   float64
			what string
		}{{readLimit, "read limit"}, {writeLimit, "write limit"}} {
			if l.at > 0 {
				p.Add(refLine{at: l.at, style: limitStyle, label: fmt.Sprintf("%s %g MiB/s", l.what, l.at)})
			}
		}
		p.X.Min, p.X.Max = 0, xmax
		p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.08, 1)
		panels = append(panels, p)
	}
	rows := panelRows(panels, 3, "seconds from the start of the statement")
	f := Figure{
		Name:    "disk-" + safeName(test),
		Title:   test + ": disk throughput during each run",
		Caption: v.diskCaption(test, s, n, readLimit > 0 || writeLimit > 0),
		panels:  rows,
		legend:  []legendItem{{"read", lineThumb(draw.LineStyle{Color: neutral, Width: vg.Points(1.2)})}},
	}
	if s.Writes {
		f.legend = append(f.legend, legendItem{"written", lineThumb(draw.LineStyle{Color: neutral, Width: vg.Points(1.2), Dashes: writeDashes})})
	}
	if readLimit > 0 || writeLimit > 0 {
		f.legend = append(f.legend, legendItem{"device's limit", lineThumb(limitStyle)})
	}
	if len(f.legend) == 1 {
		f.legend = nil // reads alone: the axis says it
	}
	if len(rows) > 1 {
		f.width, f.height = figureWidth, figureHeight+vg.Length(len(rows)-1)*5*vg.Centimeter
	}
	return f, true
}

// diskLines draws one run's read rate (and write rate, dashed, when
// writes) as steps, broken where an interval could not be measured.
func (v figView) diskLines(p *plot.Plot, r analyze.DiskRun, writes bool) {
	col := v.color(r.Run.Config)
	get := []func(analyze.DiskStep) float64{func(st analyze.DiskStep) float64 { return st.ReadMiBs }}
	styles := []draw.LineStyle{{Color: translucent(col, 0.75), Width: vg.Points(1)}}
	if writes {
		get = append(get, func(st analyze.DiskStep) float64 { return st.WriteMiBs })
		styles = append(styles, draw.LineStyle{Color: translucent(darker(col, 0.7), 0.75), Width: vg.Points(1), Dashes: writeDashes})
	}
	for i, f := range get {
		l := &strokes{style: styles[i]}
		var path []plotter.XY
		for _, st := range r.Steps {
			if st.Break && len(path) > 0 {
				l.add(path...)
				path = nil
			}
			path = append(path, plotter.XY{X: st.StartS, Y: f(st)}, plotter.XY{X: st.EndS, Y: f(st)})
		}
		if len(path) > 0 {
			l.add(path...)
		}
		p.Add(l)
	}
}

// diskCaption says what the disk figure shows, what it leaves out and why.
func (v figView) diskCaption(test string, s analyze.DiskSeries, n map[string]int, limited bool) string {
	what := "Read throughput"
	if s.Writes {
		what = "Read and write throughput"
	}
	caption := fmt.Sprintf("%s of the disk (%s) during each run of %s (%s), one panel per configuration and one line per run; "+
		"each step is one interval between /proc/diskstats samples%s, a last interval shorter than half the one before it merged into it.",
		what, s.Device, test, countText(s.Configs, func(c string) int { return n[c] }, "runs"), v.sampleText())
	if len(s.Short) > 0 {
		var parts []string
		total := 0
		for _, c := range v.a.Configs {
			if k := s.Short[c]; k > 0 {
				parts = append(parts, fmt.Sprintf("%d of %s", k, c))
				total += k
			}
		}
		runs := "runs"
		if total == 1 {
			runs = "run"
		}
		caption += fmt.Sprintf(" Left out: %d %s with no measured interval, shorter than one sampling interval (%s).", total, runs, strings.Join(parts, ", "))
	}
	if s.OthersWrote > 0 {
		caption += fmt.Sprintf(" Writes are not drawn: no run generated 1 MiB of WAL or had its server write 1 MiB, "+
			"yet the device wrote up to %s during a run: other processes' writes, or the kernel's.", mibText(s.OthersWrote))
	}
	if limited {
		caption += " The dashed grey line is the device's limit the study gives."
	}
	return caption
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
