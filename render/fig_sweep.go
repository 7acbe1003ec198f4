package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgstudy/pgstudy/analyze"
)

// sweepDashes tell the lines of a sweep's groups apart.
var sweepDashes = [][]vg.Length{nil, {vg.Points(5), vg.Points(3)}, {vg.Points(1.5), vg.Points(2)}, {vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}}

// sweep-SETTING: each test's median against a declared numeric setting,
// one panel per test, three panels to a row.
func (v figView) sweeps() []Figure {
	var out []Figure
	for _, s := range v.a.Sweeps(v.host) {
		out = append(out, v.sweep(s))
	}
	return out
}

func (v figView) sweep(s analyze.Sweep) Figure {
	xlabel := s.Setting
	if s.Unit != "" {
		xlabel += " (" + s.Unit + ")"
	}
	var panels []*plot.Plot
	anyCI, anyQPS, anyTime := false, false, false
	for _, sp := range s.Panels {
		p, ci := v.sweepPanel(s, sp)
		anyCI = anyCI || ci
		anyQPS, anyTime = anyQPS || sp.QPS, anyTime || !sp.QPS
		panels = append(panels, p)
	}
	rows := panelRows(panels, 3, xlabel)
	legend := v.configLegend(s.Configs, dotThumb)
	if len(s.Groups) > 1 {
		for gi, g := range s.Groups {
			legend = append(legend, legendItem{g, lineThumb(draw.LineStyle{Color: neutral, Width: vg.Points(1.2), Dashes: sweepDashes[gi%len(sweepDashes)]})})
		}
	}
	what := "Median time"
	switch {
	case anyQPS && anyTime:
		what = "Median time (QPS for a throughput test)"
	case anyQPS:
		what = "Median QPS"
	}
	caption := fmt.Sprintf("%s of each test (%s) against %s, one point per configuration", what, medianRoundsText(s.Rounds), s.Setting)
	if len(s.Groups) > 1 {
		caption += "; a line joins the configurations that share the other settings"
	}
	if anyCI {
		caption += fmt.Sprintf("; bars are the %.0f%% interval of the median (order statistics, n ≥ 6)", 100*v.a.Confidence)
	}
	f := Figure{
		Name:    "sweep-" + safeName(s.Setting),
		Title:   strings.SplitN(what, " (", 2)[0] + " against " + s.Setting,
		Caption: caption + ".",
		panels:  rows,
		legend:  legend,
	}
	if len(rows) > 1 {
		f.width, f.height = figureWidth, figureHeight+vg.Length(len(rows)-1)*6*vg.Centimeter
	}
	return f
}

// sweepPanel draws one test's points, their intervals and the lines of
// the groups; ci says whether an interval was drawn.
func (v figView) sweepPanel(s analyze.Sweep, sp analyze.SweepPanel) (p *plot.Plot, ci bool) {
	var ms []float64
	for _, pt := range sp.Points {
		ms = append(ms, pt.Summary.Median)
	}
	u := timeUnit(ms)
	ylabel := "median time (" + u.name + ")"
	if sp.QPS {
		u.name, u.div, ylabel = "QPS", 1, "median QPS"
	}
	p = newPlot(sp.Test, "", ylabel)
	addGrid(p, false)
	for gi, line := range sp.Lines {
		if len(line) < 2 {
			continue
		}
		l := &strokes{style: draw.LineStyle{Color: neutral, Width: vg.Points(1.2), Dashes: sweepDashes[gi%len(sweepDashes)]}}
		var path []plotter.XY
		for _, pt := range line {
			path = append(path, plotter.XY{X: pt.X, Y: pt.Summary.Median / u.div})
		}
		l.add(path...)
		p.Add(l)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range sp.Points {
		sm := pt.Summary
		y := sm.Median / u.div
		lo, hi = math.Min(lo, y), math.Max(hi, y)
		if sm.CIValid {
			ci = true
			e := &strokes{style: draw.LineStyle{Color: v.color(pt.Config), Width: vg.Points(1.2)}}
			e.add(plotter.XY{X: pt.X, Y: sm.Lo / u.div}, plotter.XY{X: pt.X, Y: sm.Hi / u.div})
			p.Add(e)
			lo, hi = math.Min(lo, sm.Lo/u.div), math.Max(hi, sm.Hi/u.div)
		}
		p.Add(scatter(plotter.XYs{{X: pt.X, Y: y}}, v.color(pt.Config), dotGlyph{}))
	}
	valueRange(&p.Y, lo, hi)
	sweepAxis(p, s.Values)
	return p, ci
}

// sweepAxis labels the setting's values on p's x axis, logarithmic when
// they span a factor of eight or more.
func sweepAxis(p *plot.Plot, xs []float64) {
	var ticks plot.ConstantTicks
	for _, x := range xs {
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)})
	}
	p.X.Tick.Marker = ticks
	lo, hi := xs[0], xs[len(xs)-1]
	if lo > 0 && hi/lo >= 8 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = lo/1.3, hi*1.3
		return
	}
	pad := (hi - lo) * 0.08
	p.X.Min, p.X.Max = lo-pad, hi+pad
}

// panelRows lays panels out cols to a row and gives the x axis's label to
// the lowest panel of each column.
func panelRows(panels []*plot.Plot, cols int, xlabel string) [][]*plot.Plot {
	cols = min(len(panels), cols)
	var rows [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, panels[i:min(i+cols, len(panels))])
		rows = append(rows, row)
	}
	for _, p := range rows[len(rows)-1] {
		if p != nil {
			p.X.Label.Text = xlabel
		}
	}
	for i := 0; i+1 < len(rows); i++ {
		for j, p := range rows[i] {
			if rows[i+1][j] == nil && p != nil {
				p.X.Label.Text = xlabel
			}
		}
	}
	return rows
}
