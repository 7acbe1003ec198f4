package render

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/pgstudy/pgstudy/analyze"
)

// vacuumMeasure is one panel of the vacuum figure: a figure VACUUM
// VERBOSE reports, in the unit of its title; false where not printed.
type vacuumMeasure struct {
	title string
	get   func(analyze.VacuumRow) (float64, bool)
}

var vacuumMeasures = []vacuumMeasure{
	{"WAL written (MiB)", func(r analyze.VacuumRow) (float64, bool) { return scaled(r.WALBytes, 1<<20) }},
	{"full page images", func(r analyze.VacuumRow) (float64, bool) { return scaled(r.WALFPI, 1) }},
	{"tuples frozen", func(r analyze.VacuumRow) (float64, bool) { return scaled(r.TuplesFrozen, 1) }},
}

func scaled(p *int64, div float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p) / div, true
}

// vacuum-TEST: VACUUM VERBOSE's figures per round, one panel per figure.
func (v figView) vacuum(test string) (Figure, bool) {
	s, ok := v.a.VacuumRounds(v.host, test)
	if !ok {
		return Figure{}, false
	}
	names := make([]string, len(s.Rounds))
	for i, r := range s.Rounds {
		names[i] = strconv.Itoa(r)
	}
	var panels []*plot.Plot
	var shown []string
	missing := false
	for _, m := range vacuumMeasures {
		p, gaps, ok := v.vacuumPanel(s, m, names)
		if !ok {
			continue
		}
		missing = missing || gaps
		panels = append(panels, p)
		shown = append(shown, strings.TrimSuffix(m.title, " (MiB)"))
	}
	if len(panels) == 0 {
		return Figure{}, false
	}
	n := map[string]int{}
	for _, r := range s.Rows {
		n[r.Config]++
	}
	caption := fmt.Sprintf("What VACUUM VERBOSE reported in each round of %s (%s), summed over the tables vacuumed: %s.",
		test, countText(s.Configs, func(c string) int { return n[c] }, "runs"), strings.Join(shown, ", "))
	if missing {
		caption += " A missing bar is a figure the server did not print."
	}
	return Figure{
		Name:    "vacuum-" + safeName(test),
		Title:   test + ": what VACUUM VERBOSE reported, per round",
		Caption: caption,
		panels:  [][]*plot.Plot{panels},
		legend:  v.configLegend(s.Configs, barThumb),
	}, true
}

// vacuumPanel is m's bars, one per round and configuration; gaps is set
// when a run lacks the figure, and ok is false when every run does.
func (v figView) vacuumPanel(s analyze.VacuumSeries, m vacuumMeasure, names []string) (p *plot.Plot, gaps, ok bool) {
	p = newPlot(m.title, "round", "")
	addGrid(p, false)
	categories(&p.X, names, thirdWidth)
	b := &barSet{}
	hi := 0.0
	w := 0.8 / float64(len(s.Configs))
	for _, r := range s.Rows {
		val, has := m.get(r)
		if !has {
			gaps = true
			continue
		}
		ok = true
		x := float64(slices.Index(s.Rounds, r.Round)) - 0.4 + w*float64(slices.Index(s.Configs, r.Config))
		b.rects = append(b.rects, bar{x0: x + w*0.06, x1: x + w*0.94, y1: val, color: v.color(r.Config)})
		hi = math.Max(hi, val)
	}
	if !ok {
		return nil, false, false
	}
	// A bar too short to see says its value.
	for i, r := range b.rects {
		if r.y1 < 0.04*hi {
			b.rects[i].label = formatCount(r.y1)
		}
	}
	p.Add(b)
	p.Y.Min, p.Y.Max = 0, hi*1.08
	if hi == 0 {
		p.Y.Max = 1
	}
	return p, gaps, true
}
