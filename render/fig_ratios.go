package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/pgstudy/pgstudy/analyze"
)

// ratios: each configuration's median time relative to the baseline's,
// with its interval, one row per test.
func (v figView) ratios() (Figure, bool) {
	s, ok := v.a.Ratios(v.host)
	if !ok {
		return Figure{}, false
	}
	return v.ratiosFigure("ratios", s), true
}

// qps-ratios: the same for throughput tests' queries per second, seed
// 003's relative QPS.
func (v figView) qpsRatios() (Figure, bool) {
	s, ok := v.a.QPSRatios(v.host)
	if !ok {
		return Figure{}, false
	}
	return v.ratiosFigure("qps-ratios", s), true
}

// ratioWords are what a ratios figure's ratios are of.
func ratioWords(s analyze.RatioSeries) (what, better string) {
	if s.QPS {
		return "QPS", "above 1 is faster"
	}
	return "time", "below 1 is faster"
}

func (v figView) ratiosFigure(name string, s analyze.RatioSeries) Figure {
	base := v.a.Baseline
	what, better := ratioWords(s)
	p := newPlot("", "median "+what+" relative to "+v.labels.label(base)+" ("+better+")", "")
	addGrid(p, true)
	p.Add(refLine{vertical: true, at: 1, style: draw.LineStyle{Color: neutral, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, label: v.labels.label(base)})
	var names []string
	for i := len(s.Rows) - 1; i >= 0; i-- {
		names = append(names, s.Rows[i].Test)
	}
	categories(&p.Y, names, 0)
	m := len(s.Configs)
	for i, r := range s.Rows {
		y0 := float64(len(s.Rows) - 1 - i)
		for _, t := range r.Cells {
			y := y0
			if m > 1 {
				y += (float64(m-1)/2 - float64(slices.Index(s.Configs, t.Config))) * 0.7 / float64(m)
			}
			v.ratioMark(p, t, y, m <= 2)
		}
	}
	if s.Hi/s.Lo > 4 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
		p.X.Min, p.X.Max = s.Lo/1.15, s.Hi*1.15
	} else {
		pad := (s.Hi - s.Lo) * 0.08
		p.X.Min, p.X.Max = math.Max(0, s.Lo-pad), s.Hi+pad
	}
	title := ratiosTitle(what, v.labels.label(s.Configs[0]), len(s.Configs), v.labels.label(base))
	intervals := anyInterval(s)
	if intervals {
		title += fmt.Sprintf(", with %.0f%% intervals", 100*v.a.Confidence)
	}
	f := Figure{
		Name:    name,
		Title:   title,
		Caption: v.ratiosCaption(s, intervals),
		panels:  [][]*plot.Plot{{p}},
		legend:  v.ratiosLegend(s.Configs, intervals),
	}
	if k := len(s.Rows) * m; k > 8 {
		f.width, f.height = figureWidth, figureHeight+vg.Length(k-8)*0.6*vg.Centimeter
	}
	return f
}

// ratioMark draws one ratio at height y: its interval, a dot (a ring when
// not significant) and, when asked, its value.
func (v figView) ratioMark(p *plot.Plot, t analyze.RatioCell, y float64, label bool) {
	c := t.Compare
	col := v.color(t.Config)
	if c.CIValid {
		e := &strokes{style: draw.LineStyle{Color: col, Width: vg.Points(1.4)}}
		h := 0.07
		e.add(plotter.XY{X: c.Lo, Y: y}, plotter.XY{X: c.Hi, Y: y})
		e.add(plotter.XY{X: c.Lo, Y: y - h}, plotter.XY{X: c.Lo, Y: y + h})
		e.add(plotter.XY{X: c.Hi, Y: y - h}, plotter.XY{X: c.Hi, Y: y + h})
		p.Add(e)
	}
	var shape draw.GlyphDrawer = dotGlyph{}
	if !c.Significant {
		shape = ringGlyph{}
	}
	s := scatter(plotter.XYs{{X: c.Ratio, Y: y}}, col, shape)
	s.GlyphStyle.Radius = vg.Points(4)
	p.Add(s)
	if label {
		p.Add(dataNotes{{x: c.Ratio, y: y, text: strconv.FormatFloat(c.Ratio, 'f', 2, 64), dy: vg.Points(6)}})
	}
}

// anyInterval reports whether a ratio of s has an interval to draw.
func anyInterval(s analyze.RatioSeries) bool {
	for _, r := range s.Rows {
		for _, t := range r.Cells {
			if t.Compare.CIValid {
				return true
			}
		}
	}
	return false
}

// ratiosLegend explains the marks: the interval's only when one is drawn.
func (v figView) ratiosLegend(configs []string, intervals bool) []legendItem {
	var legend []legendItem
	if len(configs) > 1 {
		legend = v.configLegend(configs, dotThumb)
	}
	legend = append(legend,
		legendItem{"significant", dotThumb(neutral)},
		legendItem{"not significant", ringThumb(neutral)},
	)
	if intervals {
		legend = append(legend, legendItem{fmt.Sprintf("%.0f%% interval", 100*v.a.Confidence), intervalThumb(draw.LineStyle{Color: neutral, Width: vg.Points(1.4)})})
	}
	return legend
}

func (v figView) ratiosCaption(s analyze.RatioSeries, intervals bool) string {
	what := "time of each test"
	if s.QPS {
		what = "queries per second of each throughput test"
	}
	caption := fmt.Sprintf("Median %s on %s divided by the median on %s (%s). ",
		what, strings.Join(s.Configs, ", "), v.a.Baseline, medianRoundsText(s.Rounds))
	if intervals {
		caption += fmt.Sprintf("Bars are the %.0f%% interval of the ratio: the Moses interval that goes with the Mann-Whitney test, computed on logarithms, "+
			"so it can miss the ratio of medians when a sample is bimodal. ", 100*v.a.Confidence)
	}
	caption += fmt.Sprintf("Hollow markers are not significant at %g after Holm's correction over tests.", v.a.Alpha)
	switch {
	case !intervals:
		caption += " No ratio has enough rounds for an interval, so none is drawn."
	case s.NoInterval:
		caption += " A marker without a bar has too few rounds for an interval."
	}
	return caption
}

// ratiosTitle says what is relative to base: on the one configuration
// first when n is 1.
func ratiosTitle(what, first string, n int, base string) string {
	if what == "time" {
		what = "Time"
	}
	if n == 1 {
		return what + " on " + first + " relative to " + base
	}
	return what + " relative to " + base
}
