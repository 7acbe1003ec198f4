package stats

import (
	"math"
	"math/rand/v2"
	"sync"
)

// MinP is the smallest two-sided Mann–Whitney p-value that samples of n1
// and n2 values can give: 2/C(n1+n2, n1), reached when every value of one
// sample lies below every value of the other, without ties (capped at 1).
// A comparison whose MinP, times the number of tests Holm's correction
// divides among, is not below alpha can never be significant, whatever
// the data: calling it "not significant" would claim a test that was never
// possible. With 3 values a side MinP is 0.1.
func MinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	return min(1, 2/choose(n1+n2, n1))
}

// Testable says whether samples of n1 and n2 values can reach significance
// at level alpha among m tests corrected by Holm's method: Holm compares
// the smallest of m p-values with alpha/m, so no comparison of the family
// is significant unless one reaches it.
func Testable(n1, n2, m int, alpha float64) bool {
	return float64(max(m, 1))*MinP(n1, n2) < alpha
}

// LogSpread is a robust estimate of the standard deviation of log(x):
// the interquartile range of the logs over 1.349, which is the standard
// deviation for a normal distribution and is not moved by a few outlying
// runs (a cold start, a checkpoint). Values that are not positive are
// left out; fewer than 2 left give NaN.
func LogSpread(xs []float64) float64 {
	logs := make([]float64, 0, len(xs))
	for _, x := range xs {
		if x > 0 {
			logs = append(logs, math.Log(x))
		}
	}
	if len(logs) < 2 {
		return math.NaN()
	}
	s := Summarize(logs, 0.95)
	return s.IQR / 1.349
}

// RoundsNeeded is how many runs a side a two-sided Mann–Whitney test needs
// to find a shift of the given size (0.05: one sample 5% above the other)
// at level alpha among m tests (Holm: the first test is at alpha/m), with
// the given power (0.8), when log(x) has standard deviation sigma in both
// samples.
//
// The normal-theory size is 2·(z₁₋α/₂ₘ + z_power)²·σ²/log(1+shift)²,
// divided by the Mann–Whitney test's asymptotic relative efficiency 3/π
// against the t-test (Noether's rule for a shift of a normal sample;
// heavier tails need fewer runs, so this errs on the safe side for them).
// Below smallExact runs a side that size is too small, as the exact test
// is discrete (5 a side among 4 tests found a shift of 2.5σ half the
// time, not 80%): there the size is the smallest n whose exact test, by
// seeded simulation of normal log-times, reaches the power. It is never
// below the smallest n for which m·MinP(n, n) < alpha, 0 when sigma is
// not a number (too few runs to estimate a spread) or the shift is not
// positive, and MaxRounds when the count would be larger.
func RoundsNeeded(sigma, shift, alpha, power float64, m int) int {
	if math.IsNaN(sigma) || sigma < 0 || !(shift > 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1) {
		return 0
	}
	m = max(m, 1)
	floor := 1
	for !Testable(floor, floor, m, alpha) && floor < MaxRounds {
		floor++
	}
	d := math.Log1p(shift)
	z := normQuantile(1-alpha/(2*float64(m))) + normQuantile(power)
	n := 2 * z * z * sigma * sigma / (d * d) * math.Pi / 3
	if n >= MaxRounds {
		return MaxRounds
	}
	need := max(floor, int(math.Ceil(n)))
	if sigma == 0 {
		return need
	}
	for k := need; k <= smallExact; k++ {
		if exactPower(k, d/sigma, alpha/float64(m)) >= power {
			return k
		}
	}
	return max(need, smallExact+1)
}

// MaxRounds is where RoundsNeeded stops counting: a study of more runs a
// side than this is not one anybody runs, and the count means "more".
const MaxRounds = 10000

// smallExact is the size a side up to which RoundsNeeded simulates the
// exact test rather than trusting the normal approximation.
const smallExact = 40

// powers caches exactPower: an analysis asks it for every comparison,
// and comparisons of one study share their sizes and often their spread.
var powers sync.Map // powerKey -> float64

type powerKey struct {
	n      int
	effect float64
	level  float64
}

// exactPower is the share of 4,000 seeded simulations of n normal values
// a side, shifted by effect standard deviations, that the exact two-sided
// test without ties finds significant at level: the same answer on every
// call and every machine. The effect is rounded to three significant
// digits, so that comparisons of similar spread share a cache entry.
func exactPower(n int, effect, level float64) float64 {
	effect = roundSignificant(effect, 3)
	k := powerKey{n, effect, level}
	if p, ok := powers.Load(k); ok {
		return p.(float64)
	}
	total := choose(2*n, n)
	counts := uCountsNoTies(n, n, n*n/2)
	crit, cum := -1, 0.0
	for c, w := range counts {
		cum += w
		if 2*cum/total >= level {
			break
		}
		crit = c
	}
	found := 0
	const sims = 4000
	if crit >= 0 {
		rng := rand.New(rand.NewPCG(uint64(n), math.Float64bits(effect)^math.Float64bits(level)))
		a, b := make([]float64, n), make([]float64, n)
		for range sims {
			for i := range a {
				a[i], b[i] = rng.NormFloat64(), effect+rng.NormFloat64()
			}
			u := 0
			for _, x := range a {
				for _, y := range b {
					if x > y {
						u++
					}
				}
			}
			if u <= crit || u >= n*n-crit {
				found++
			}
		}
	}
	p := float64(found) / sims
	powers.Store(k, p)
	return p
}

func roundSignificant(x float64, digits int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	scale := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*scale) / scale
}

// Equivalent says whether the ratio of x to base lies within a tolerance
// of 1 by two one-sided tests at level alpha: the (1 − 2·alpha) interval
// of the ratio (the Moses interval of Compare) lies inside
// [1/(1+tol), 1+tol]. ok is false when the samples are too small for that
// interval; lo and hi are the interval.
func Equivalent(base, x []float64, tol, alpha float64) (equivalent bool, lo, hi float64, ok bool) {
	lo, hi, ok = ratioInterval(base, x, 1-2*alpha)
	if !ok {
		return false, 0, 0, false
	}
	return lo >= 1/(1+tol) && hi <= 1+tol, lo, hi, true
}
