package analyze

import (
	"fmt"
	"math"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// Verdict is what a comparison with the baseline supports, in one word
// and the reason for it. A "~" that nothing could have earned is no
// verdict: with 3 runs a side the smallest Mann-Whitney p is 0.1, so
// such a comparison is untested, not "within the noise".
type Verdict struct {
	// Word is faster or slower (a significant difference), equivalent
	// (within the tolerance by two one-sided tests), inconclusive
	// (neither), untested (no test could have found a difference),
	// noise (significant, but no larger than what two copies of one
	// setup differ by) or control (the configuration is a copy of the
	// baseline: its difference is the noise floor).
	Word string
	Why  string
	// RoundsNeeded is how many runs a side would find a difference of
	// the tolerance with 80% power, from the runs' spread; 0 is unknown,
	// stats.MaxRounds is that many or more.
	RoundsNeeded int
	// EqLo and EqHi are the (1 − 2α) interval of the ratio that the
	// equivalence test used, when EqValid.
	EqLo, EqHi float64
	EqValid    bool
}

// Mark is the verdict's sign beside a ratio in the relative tables: none
// for a difference, ~ inconclusive, = equivalent, ? untested, noise and
// A/A as they say.
func (v Verdict) Mark() string {
	switch v.Word {
	case "inconclusive":
		return "~"
	case "equivalent":
		return "="
	case "untested":
		return "?"
	case "noise":
		return "(noise)"
	case "control":
		return "(A/A)"
	}
	return ""
}

const targetPower = 0.8

// judge gives a comparison with the baseline its verdict. m is the
// number of comparisons Holm's correction divided among; higherBetter
// says that a ratio above 1 is faster (queries per second); noise is the
// test's A/A noise floor (nil when the study has no control).
func judge(base, x []float64, c *TimingCompare, m int, higherBetter bool, tol, alpha float64, noise *NoiseFloor) Verdict {
	var v Verdict
	sigma := math.Sqrt((sq(stats.LogSpread(base)) + sq(stats.LogSpread(x))) / 2)
	v.RoundsNeeded = stats.RoundsNeeded(sigma, tol, alpha, targetPower, m)
	eq, lo, hi, ok := stats.Equivalent(base, x, tol, alpha)
	v.EqLo, v.EqHi, v.EqValid = lo, hi, ok
	need := ""
	if v.RoundsNeeded > 0 {
		need = "; " + runsCount(v.RoundsNeeded) + fmt.Sprintf(" a side would find a %s difference with %.0f%% power, from the runs' spread", pctAbs(tol), 100*targetPower)
		if d := math.Abs(c.Ratio - 1); d > tol && !math.IsInf(d, 0) {
			need += fmt.Sprintf(" (%s a difference as large as the %s observed)", runsCount(stats.RoundsNeeded(sigma, d, alpha, targetPower, m)), pctAbs(d))
		}
	}

	faster := c.Ratio < 1
	if higherBetter {
		faster = c.Ratio > 1
	}
	switch {
	case !c.Testable || !stats.Testable(len(base), len(x), c.Family, alpha):
		v.Word = "untested"
		v.Why = fmt.Sprintf("%d and %d runs cannot give p < %.2f%s: the smallest p they can give is %.2g", len(base), len(x), alpha, holmText(m, alpha), stats.MinP(len(base), len(x)))
		v.Why += need
	case c.Significant && noise != nil && math.Abs(math.Log(c.Ratio)) <= math.Abs(math.Log(noise.Ratio())):
		v.Word = "noise"
		v.Why = fmt.Sprintf("significant, but no larger than the %s by which %s and %s, copies of one setup, differ", pctAbs(noise.Ratio()-1), noise.Config, noise.SameAs)
	case c.Significant && faster:
		v.Word = "faster"
	case c.Significant:
		v.Word = "slower"
	case eq:
		v.Word = "equivalent"
		v.Why = fmt.Sprintf("within ±%s: the %.0f%% interval of the ratio is [%.3f, %.3f]", pctAbs(tol), 100*(1-2*alpha), lo, hi)
	default:
		v.Word = "inconclusive"
		v.Why = fmt.Sprintf("neither a significant difference nor equivalence within ±%s", pctAbs(tol))
		if ok {
			v.Why += fmt.Sprintf(" (the %.0f%% interval of the ratio is [%.3f, %.3f])", 100*(1-2*alpha), lo, hi)
		}
		v.Why += need
	}
	return v
}

func sq(x float64) float64 { return x * x }

// runsCount is a count of runs from stats.RoundsNeeded, which stops
// counting at its cap.
func runsCount(n int) string {
	if n >= stats.MaxRounds {
		return fmt.Sprintf("more than %d runs", stats.MaxRounds)
	}
	return fmt.Sprintf("%d runs", n)
}

func pctAbs(f float64) string { return fmt.Sprintf("%.1f%%", 100*math.Abs(f)) }

func holmText(m int, alpha float64) string {
	if m <= 1 {
		return ""
	}
	return fmt.Sprintf(" among %d tests (Holm: p < %.3g for the first)", m, alpha/float64(m))
}

// verdicts judges every comparison with the baseline, timed and
// throughput, once the A/A comparisons are known.
func (a *Analysis) verdicts(opt Options) {
	var jobs []func()
	for i := range a.Timings {
		if t := &a.Timings[i]; t.Compare != nil {
			jobs = append(jobs, func() { t.Compare.Verdict = a.verdictOf(t.Host, t.Test, t.Config, t.Compare, opt) })
		}
	}
	for i := range a.Throughputs {
		if g := &a.Throughputs[i]; g.Compare != nil {
			jobs = append(jobs, func() { g.Compare.Verdict = a.verdictOf(g.Host, g.Test, g.Config, g.Compare, opt) })
		}
	}
	// Each judges its own comparison, reading the runs and the noise
	// floors only: a study of many groups judges them side by side.
	inLanes(guardLanes, len(jobs), func(i int) { jobs[i]() })
}

func (a *Analysis) verdictOf(h, test, config string, c *TimingCompare, opt Options) Verdict {
	m := a.metricOf(h, test)
	base, x := a.metricValues(h, test, a.Baseline), a.metricValues(h, test, config)
	floor, control := a.noiseOf(h, test, config)
	v := judge(base, x, c, max(c.Family, 1), m.higherBetter, opt.Tolerance, opt.Alpha, floor)
	if control {
		v.Word = "control"
		v.Why = fmt.Sprintf("%s and %s are copies of one setup: their difference is the study's noise, not a result", config, a.Baseline)
	}
	return v
}
