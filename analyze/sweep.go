package analyze

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// Sweep is the median of each test against a declared numeric setting,
// one point per configuration.
type Sweep struct {
	Setting string
	// Unit is the unit of the values: the one every configuration's value
	// gave, or kB or ms when they gave different ones; "" for plain
	// numbers.
	Unit    string
	Configs []string  // the configurations with a value, in order
	X       []float64 // the setting's value in each of Configs
	Values  []float64 // the distinct values, ascending (at least three)
	// Groups are the configurations that agree on every other declared
	// setting that differs, each named "name=value, ...": a line joins a
	// group's points. Group is each configuration's, by index of Configs.
	Groups []string
	Group  []string
	Panels []SweepPanel // one per test with at least two points
	Rounds []int        // the distinct numbers of rounds of the medians, ascending
}

// SweepPanel is one test's points.
type SweepPanel struct {
	Test string
	// QPS is set for a throughput test: the points summarise queries per
	// second, not times in ms.
	QPS    bool
	Points []SweepPoint // in the order of Configs
	// Lines are each group's points (by index of Groups) in the order of
	// the setting's value.
	Lines [][]SweepPoint
}

// SweepPoint is one configuration's summary at its value of the setting.
type SweepPoint struct {
	Config  string
	X       float64
	Summary stats.Summary
}

// Sweeps are the host's sweeps, one per declared setting whose values are
// numbers and take at least three distinct values, in the order of
// a.Settings.
func (a *Analysis) Sweeps(host string) []Sweep {
	var out []Sweep
	for _, s := range a.Settings {
		if s.Host != host || !s.Declared {
			continue
		}
		if sw, ok := a.sweep(host, s); ok {
			out = append(out, sw)
		}
	}
	return out
}

func (a *Analysis) sweep(host string, s SettingRow) (Sweep, bool) {
	sw := Sweep{Setting: s.Name}
	for _, c := range a.Configs {
		if _, ok := s.Values[c]; ok {
			sw.Configs = append(sw.Configs, c)
		}
	}
	var ok bool
	if sw.X, sw.Unit, ok = settingNumbers(s.Values, sw.Configs); !ok {
		return Sweep{}, false
	}
	distinct := map[float64]bool{}
	for _, x := range sw.X {
		distinct[x] = true
	}
	if len(distinct) < 3 {
		return Sweep{}, false
	}
	sw.Values = slices.Sorted(maps.Keys(distinct))
	for _, c := range sw.Configs {
		var parts []string
		for _, o := range a.Settings {
			if o.Host == host && o.Declared && o.Name != s.Name {
				parts = append(parts, o.Name+"="+o.Values[c])
			}
		}
		k := strings.Join(parts, ", ")
		sw.Group = append(sw.Group, k)
		if !slices.Contains(sw.Groups, k) {
			sw.Groups = append(sw.Groups, k)
		}
	}
	ns := map[int]bool{}
	for _, test := range a.Tests {
		if p, ok := a.sweepPanel(host, test, sw); ok {
			sw.Panels = append(sw.Panels, p)
			for _, pt := range p.Points {
				ns[pt.Summary.N] = true
			}
		}
	}
	if len(sw.Panels) == 0 {
		return Sweep{}, false
	}
	sw.Rounds = slices.Sorted(maps.Keys(ns))
	return sw, true
}

// sweepPanel is a timed test's median times, or a throughput test's
// median QPS, at each configuration of sw; false with fewer than two.
func (a *Analysis) sweepPanel(host, test string, sw Sweep) (SweepPanel, bool) {
	p := SweepPanel{Test: test}
	byConfig := map[string]stats.Summary{}
	for _, t := range a.HostTimings(host, test) {
		byConfig[t.Config] = t.Summary
	}
	if len(byConfig) == 0 {
		for _, g := range a.Throughputs {
			if g.Host == host && g.Test == test {
				byConfig[g.Config] = g.QPS
				p.QPS = true
			}
		}
	}
	for i, c := range sw.Configs {
		if sm, ok := byConfig[c]; ok {
			p.Points = append(p.Points, SweepPoint{Config: c, X: sw.X[i], Summary: sm})
		}
	}
	if len(p.Points) < 2 {
		return SweepPanel{}, false
	}
	for _, g := range sw.Groups {
		var line []SweepPoint
		for _, pt := range p.Points {
			if sw.Group[slices.Index(sw.Configs, pt.Config)] == g {
				line = append(line, pt)
			}
		}
		slices.SortStableFunc(line, func(x, y SweepPoint) int { return cmp.Compare(x.X, y.X) })
		p.Lines = append(p.Lines, line)
	}
	return p, true
}
