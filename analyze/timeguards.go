package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// The guards of this file look at every run of a test in the order the
// runs ran, timed or throughput alike (through the test's metric): the
// position in the round, a trend across the capture, a step.

const (
	driftMin    = 0.10 // the smallest change across a capture worth a warning
	positionMin = 0.05 // the smallest difference between positions worth a warning
)

func pct(f float64) string { return fmt.Sprintf("%+.1f%%", 100*f) }

// screenAlpha is the level of the guards that test every test of a
// capture for an effect nobody claimed: Bonferroni over the tests, so that
// a clean capture of many tests does not raise a false alarm one time in
// twenty per test.
func (a *Analysis) screenAlpha(opt Options) float64 {
	return opt.Alpha / float64(max(1, len(a.Tests)))
}

// normalised divides each run's value by its configuration's median, so
// that runs of configurations of different speeds can be pooled.
func (a *Analysis) normalised(h, test string, runs []*Run) []float64 {
	m := a.metricOf(h, test)
	meds := map[string]float64{}
	for _, c := range a.Configs {
		if xs := a.metricValues(h, test, c); len(xs) > 0 {
			meds[c] = stats.Median(xs)
		}
	}
	out := make([]float64, len(runs))
	for i, r := range runs {
		out[i] = m.value(r) / meds[r.Config]
	}
	return out
}

// guardPosition: with configurations rotating through the positions of a
// round, a position effect shows as values that group by position once
// each configuration's own level is taken out. (Where each configuration
// always holds one position, that level is the position's: the order
// guard says so.)
func (a *Analysis) guardPosition(opt Options) {
	for _, h := range a.Hosts {
		for _, test := range a.Tests {
			runs := a.testRuns(h, test)
			m := a.metricOf(h, test)
			byPos, byCfg, norm := map[int][]float64{}, map[string][]float64{}, a.normalised(h, test, runs)
			for i, r := range runs {
				byPos[r.Position] = append(byPos[r.Position], norm[i])
				byCfg[r.Config] = append(byCfg[r.Config], m.value(r))
			}
			if len(byPos) < 2 || len(byCfg) < 2 {
				continue
			}
			posNames := slices.Sorted(func(yield func(int) bool) {
				for p := range byPos {
					if !yield(p) {
						return
					}
				}
			})
			var pos, cfg [][]float64
			for _, p := range posNames {
				pos = append(pos, byPos[p])
			}
			for _, c := range a.Configs {
				if len(byCfg[c]) > 0 {
					cfg = append(cfg, byCfg[c])
				}
			}
			kp, kc := stats.KruskalWallis(pos), stats.KruskalWallis(cfg)
			if !kp.Valid || kp.P >= a.screenAlpha(opt) {
				continue
			}
			var med []string
			lo, hi := math.Inf(1), math.Inf(-1)
			for i, p := range posNames {
				md := stats.Median(pos[i])
				lo, hi = min(lo, md), max(hi, md)
				med = append(med, fmt.Sprintf("position %d: %s", p, pct(md-1)))
			}
			if hi-lo < positionMin {
				continue // significant, but too small to matter
			}
			sev, than := Warning, "better than the configuration does"
			if kc.Valid && kp.EpsilonSq < kc.EpsilonSq {
				sev, than = Info, "though less than the configuration does"
			}
			a.add(Finding{Guard: "position", Severity: sev, Host: h, Test: test, Runs: runIDs(runs),
				Message: fmt.Sprintf("the position in the round explains the %s of %s %s (Kruskal-Wallis p=%.3g, ε²=%.2f against %.2f); each position's median against its configuration's: %s",
					m.what, test, than, kp.P, kp.EpsilonSq, kc.EpsilonSq, strings.Join(med, ", "))})
		}
	}
}

// guardDrift: a test's values (each against its configuration's median)
// or the device's throughput should not trend with the order of the runs.
func (a *Analysis) guardDrift(opt Options) {
	for _, h := range a.Hosts {
		for _, test := range a.Tests {
			if runs := a.testRuns(h, test); len(runs) >= 6 {
				a.trend(opt, h, test, runs, a.normalised(h, test, runs))
			}
		}
		if runs, norm := a.deviceThroughput(h); len(runs) >= 6 {
			a.trend(opt, h, "", runs, norm)
		}
	}
}

// deviceThroughput is every run of a host that read enough from its
// device, in the order they ran, with its read throughput against its
// test and configuration's median; the caller must not change them.
func (a *Analysis) deviceThroughput(h string) ([]*Run, []float64) {
	if f := a.devTput[h]; f != nil {
		return f()
	}
	return a.hostThroughput(h)
}

// hostThroughput computes deviceThroughput.
func (a *Analysis) hostThroughput(h string) ([]*Run, []float64) {
	groups, keys := a.groupRuns(func(r *Run) bool { return r.Host == h && okRun(r) && r.Disk != nil && r.Disk.ReadBytes >= coldMinRead })
	type point struct {
		r *Run
		y float64
	}
	var pts []point
	for _, k := range keys {
		var xs []float64
		for _, r := range groups[k] {
			xs = append(xs, r.Disk.RKiBPerS)
		}
		if m := stats.Median(xs); m > 0 {
			for _, r := range groups[k] {
				pts = append(pts, point{r, r.Disk.RKiBPerS / m})
			}
		}
	}
	slices.SortFunc(pts, func(x, y point) int { return cmp.Compare(x.r.Seq, y.r.Seq) })
	runs, norm := make([]*Run, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		runs[i], norm[i] = p.r, p.y
	}
	return runs, norm
}

func (a *Analysis) trend(opt Options, host, test string, runs []*Run, ys []float64) {
	tr := stats.MannKendall(ys) // in the order the runs ran
	if !tr.Valid || tr.P >= a.screenAlpha(opt) {
		return
	}
	// The change from the first third of the runs to the last third
	// (medians): robust to a curve, which a straight line through a
	// burst allowance running out is not.
	k := max(1, len(ys)/3)
	first, last := stats.Median(ys[:k]), stats.Median(ys[len(ys)-k:])
	if first <= 0 {
		return
	}
	change := last/first - 1
	if math.Abs(change) < driftMin {
		return
	}
	subject := fmt.Sprintf("the %s of %s", a.metricOf(host, test).what, test)
	hint := "something changed as the study went on (a cache, a burst allowance, background work)"
	if test == "" {
		subject = "the device's read throughput"
		hint = "a cloud volume's burst allowance running out looks like this"
		if change > 0 {
			hint = "the device got faster as the study went on (other load ending, a cache below the disk warming)"
		}
	}
	a.add(Finding{Guard: "drift", Severity: Warning, Host: host, Test: test, Runs: runIDs(runs),
		Message: fmt.Sprintf("%s drifted across the capture: %s from the first third of the runs to the last (Mann-Kendall p=%.3g over %d runs); %s",
			subject, pct(change), tr.P, len(runs), hint)})
}
