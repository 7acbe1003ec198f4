package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// changeMinSeg is the fewest runs a level must hold for the change-point
// guard to call it one: two runs apart from the rest are outliers, not a
// level.
const changeMinSeg = 3

// guardChangePoints: a level that changes partway through a study (a
// cloud volume's burst allowance used up in round 4, a noisy neighbour
// arriving) is a step, which a trend test can miss. The guard looks for
// steps in each test's values in the order the runs ran (each against
// its configuration's median, so that configurations pool), in each
// configuration's own runs, and in the device's read throughput, by
// binary segmentation with a seeded permutation test (stats.ChangePoints):
// the same capture gives the same answer. A step of at least 10% at the
// screening level is a warning that names the run and time it began, how
// large it was, and the --exclude that leaves the runs off the main level
// out.
func (a *Analysis) guardChangePoints(opt Options) {
	alpha := a.screenAlpha(opt)
	for _, h := range a.Hosts {
		for _, test := range a.Tests {
			runs := a.testRuns(h, test)
			m := a.metricOf(h, test)
			what := fmt.Sprintf("the %s of %s", m.what, test)
			a.steps(h, test, "", what+" (each against its configuration's median)", runs, a.normalised(h, test, runs), alpha)
			for _, c := range a.Configs {
				var own []*Run
				var ys []float64
				for _, r := range runs {
					if r.Config == c {
						own = append(own, r)
						ys = append(ys, m.value(r))
					}
				}
				a.steps(h, test, c, what+" on "+c, own, ys, alpha)
			}
		}
		runs, norm := a.deviceThroughput(h)
		a.steps(h, "", "", "the device's read throughput (each run against its test and configuration's median)", runs, norm, alpha)
	}
	a.guardWithinRuns(opt)
}

// guardWithinRuns: a throughput run's total is one number for what may
// have been two levels, such as a checkpoint or autovacuum starting
// partway, or a burst allowance running out: the client's per-second
// lines show it. The first interval (connections still opening) is left
// out; the level is the screening level divided among the runs.
func (a *Analysis) guardWithinRuns(opt Options) {
	groups, keys := a.groupRuns(func(r *Run) bool {
		return okRun(r) && r.Throughput != nil && len(r.Throughput.Intervals) > 2*changeMinSeg
	})
	n := 0
	for _, k := range keys {
		n += len(groups[k])
	}
	alpha := a.screenAlpha(opt) / float64(max(n, 1))
	for _, k := range keys {
		var said []string
		var ids []int64
		for _, r := range groups[k] {
			ivs := r.Throughput.Intervals[1:]
			ys := make([]float64, len(ivs))
			for i, iv := range ivs {
				ys[i] = iv.QPS
			}
			for _, cp := range stats.ChangePoints(ys, alpha, changeMinSeg) {
				if rt := cp.Ratio(); rt > 0 && math.Abs(rt-1) >= driftMin {
					said = append(said, fmt.Sprintf("run %d from %.0f s by %s (%.4g to %.4g q/s)", r.RunID, ivs[cp.Index-1].EndS, pct(rt-1), cp.Before, cp.After))
					ids = append(ids, r.RunID)
				}
			}
		}
		if len(said) == 0 {
			continue
		}
		a.add(Finding{Guard: "change-point", Severity: Warning, Host: k.Host, Test: k.Test, Config: k.Config, Runs: slices.Compact(ids),
			Message: fmt.Sprintf("the queries per second of %s on %s changed level within %s, by the client's per-second lines: %s; such a run's total mixes two levels "+
				"(a checkpoint, autovacuum, a burst allowance running out)", k.Test, k.Config, listRuns(slices.Compact(ids)), strings.Join(said, "; "))})
	}
}

// steps reports the change points of one series of runs in the order
// they ran.
func (a *Analysis) steps(h, test, config, what string, runs []*Run, ys []float64, alpha float64) {
	if len(runs) < 2*changeMinSeg {
		return
	}
	cps := stats.ChangePoints(ys, alpha, changeMinSeg)
	var kept []stats.ChangePoint
	for _, cp := range cps {
		if r := cp.Ratio(); r > 0 && math.Abs(r-1) >= driftMin {
			kept = append(kept, cp)
		}
	}
	if len(kept) == 0 {
		return
	}
	var said []string
	for _, cp := range kept {
		r := runs[cp.Index]
		said = append(said, fmt.Sprintf("from run %d (round %d%s) by %s, median %.4g before and %.4g after (%s p=%.3g)",
			r.RunID, r.Round, startedText(r), pct(cp.Ratio()-1), cp.Before, cp.After, cp.Method, cp.P))
	}
	off, blocks := offLevel(runs, ys, kept)
	a.add(Finding{Guard: "change-point", Severity: Warning, Host: h, Test: test, Config: config, Runs: off,
		Message: fmt.Sprintf("%s changed level partway through the capture: %s; the runs off its longest level are %s: to leave them out (with any runs between them), %s",
			what, strings.Join(said, "; "), listRuns(off), strings.Join(blocks, " "))})
}

func startedText(r *Run) string {
	if r.Started.IsZero() {
		return ""
	}
	return ", started " + r.Started.UTC().Format("2006-01-02 15:04:05 UTC")
}

// offLevel are the runs of the levels between change points that differ
// by 10% or more from the longest level (the first such level on a tie):
// the ones a reader would leave out;
// and, for each stretch of them in the series, the --exclude option that
// spans it by run id.
func offLevel(runs []*Run, ys []float64, cps []stats.ChangePoint) (off []int64, excludes []string) {
	bounds := []int{0}
	for _, cp := range cps {
		bounds = append(bounds, cp.Index)
	}
	bounds = append(bounds, len(runs))
	longest := 0
	for i := 1; i+1 < len(bounds); i++ {
		if bounds[i+1]-bounds[i] > bounds[longest+1]-bounds[longest] {
			longest = i
		}
	}
	span := func(from, to int) { // runs[from:to], one stretch
		if from >= to {
			return
		}
		lo, hi := runs[from].RunID, runs[from].RunID
		for _, r := range runs[from:to] {
			off = append(off, r.RunID)
			lo, hi = min(lo, r.RunID), max(hi, r.RunID)
		}
		if lo == hi {
			excludes = append(excludes, fmt.Sprintf("--exclude run=%d", lo))
		} else {
			excludes = append(excludes, fmt.Sprintf("--exclude run=%d-%d", lo, hi))
		}
	}
	ref := stats.Median(ys[bounds[longest]:bounds[longest+1]])
	for i := 0; i+1 < len(bounds); i++ {
		// A level back within 10% of the main one (a slowdown that ended)
		// is not left out.
		if i != longest && !(ref > 0 && math.Abs(stats.Median(ys[bounds[i]:bounds[i+1]])/ref-1) < driftMin) {
			span(bounds[i], bounds[i+1])
		}
	}
	return off, excludes
}
