package analyze

import (
	"fmt"
	"math"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// Timing is the timed statement of one test and configuration over its
// rounds, compared with the baseline's.
type Timing struct {
	Host    string
	Test    string
	Config  string
	Rounds  []RoundValue
	Summary stats.Summary // of TimeMs
	Compare *TimingCompare
	Notes   []string
	runs    []*Run
}

// RoundValue is one run's time.
type RoundValue struct {
	Round    int
	Position int
	RunID    int64
	TimeMs   float64
}

// TimingCompare is a configuration against the baseline for one test
// (times, or a throughput test's queries per second).
type TimingCompare struct {
	stats.Comparison
	// Testable says whether the runs of the two could give a p below the
	// level at all (stats.Testable; with 3 a side they cannot). Only
	// testable comparisons enter Holm's correction; PAdjusted is P
	// corrected (Holm) over the testable tests of this configuration,
	// and Significant is decided on it. Family is their number.
	Testable    bool
	PAdjusted   float64
	Significant bool
	Family      int
	Verdict     Verdict
}

// Geomean is the geometric mean of a configuration's ratios to the
// baseline across the tests both ran.
type Geomean struct {
	Host   string
	Config string
	Ratio  float64
	Tests  int
}

const (
	minCI   = 6 // runs for an interval of the median at 95%
	minTest = 4 // runs a side for a test
)

func (a *Analysis) timings(opt Options) {
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && r.HasTime })
	index := map[key]int{}
	for _, k := range keys {
		t := Timing{Host: k.Host, Test: k.Test, Config: k.Config, runs: groups[k]}
		xs := make([]float64, 0, len(groups[k]))
		for _, r := range groups[k] {
			t.Rounds = append(t.Rounds, RoundValue{Round: r.Round, Position: r.Position, RunID: r.RunID, TimeMs: r.TimeMs})
			xs = append(xs, r.TimeMs)
		}
		t.Summary = stats.Summarize(xs, opt.Confidence)
		if !t.Summary.CIValid {
			t.Notes = append(t.Notes, fmt.Sprintf("%d runs are too few for a %.0f%% interval of the median", t.Summary.N, 100*opt.Confidence))
		}
		index[k] = len(a.Timings)
		a.Timings = append(a.Timings, t)
	}
	// Each configuration against the baseline, test by test; Holm over the
	// tests of a configuration.
	for _, h := range a.Hosts {
		for _, c := range a.Configs {
			if c == a.Baseline {
				continue
			}
			var family []*TimingCompare
			var ratios []float64
			for _, test := range a.Tests {
				bi, ok1 := index[key{h, test, a.Baseline}]
				xi, ok2 := index[key{h, test, c}]
				if !ok1 || !ok2 {
					continue
				}
				base, x := &a.Timings[bi], &a.Timings[xi]
				x.Compare = compare(times(base.runs), times(x.runs), opt)
				if !x.Compare.PValid {
					x.Notes = append(x.Notes, fmt.Sprintf("too few runs for a test against %s (%d and %d; %d a side needed)", a.Baseline, base.Summary.N, x.Summary.N, minTest))
				}
				if x.Compare.Testable {
					family = append(family, x.Compare)
				}
				if r := x.Compare.Ratio; r > 0 && !math.IsInf(r, 0) {
					ratios = append(ratios, r)
				}
			}
			holm(family, opt.Alpha)
			if len(ratios) > 0 {
				a.Geomeans = append(a.Geomeans, Geomean{Host: h, Config: c, Ratio: stats.Geomean(ratios), Tests: len(ratios)})
			}
		}
	}
}

// compare is x against the baseline, before Holm's correction.
func compare(base, x []float64, opt Options) *TimingCompare {
	c := stats.Compare(base, x, opt.Confidence, opt.Alpha)
	return &TimingCompare{Comparison: c, Testable: stats.Testable(len(base), len(x), 1, opt.Alpha)}
}

// holm corrects the p-values of a family of testable comparisons, and
// decides their significance on the corrected values.
func holm(family []*TimingCompare, alpha float64) {
	ps := make([]float64, len(family))
	for i, c := range family {
		ps[i] = c.P
	}
	for i, p := range stats.Holm(ps) {
		family[i].PAdjusted, family[i].Significant, family[i].Family = p, p < alpha, len(family)
	}
}

func times(runs []*Run) []float64 {
	xs := make([]float64, len(runs))
	for i, r := range runs {
		xs[i] = r.TimeMs
	}
	return xs
}

// timing returns the timing of a group, or nil.
func (a *Analysis) timing(host, test, config string) *Timing {
	for i := range a.Timings {
		t := &a.Timings[i]
		if t.Host == host && t.Test == test && t.Config == config {
			return t
		}
	}
	return nil
}
