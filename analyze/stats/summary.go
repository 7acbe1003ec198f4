// Package stats holds the distribution-free statistics pgstudy uses to compare the timings of
// configurations over rounds. Cold-cache timings are skewed and often bimodal, so nothing here
// assumes a normal distribution.
//
// Where benchstat (golang.org/x/perf/cmd/benchstat) has a rule, this package follows it: the
// median, the confidence interval of the median, the Mann–Whitney U test and the sample sizes they
// need. A reader can then check pgstudy's numbers with benchstat, and TestBenchstatPeer does.
package stats

import (
	"math"
	"slices"
)

// Summary describes one sample.
//
// Median, Q1 and Q3 use the quantile definition of benchstat's statistics library: Hyndman and
// Fan's type 8 (R's quantile(type = 8)), whose median is the usual one (the middle value, or the
// mean of the two middle values).
//
// [Lo, Hi] is the distribution-free confidence interval of the median: two order statistics whose
// coverage follows from the binomial distribution, picked exactly as benchstat picks them (see
// medianOrders). When the sample is too small for the requested confidence, an interval bound
// would lie outside the sample: CIValid is then false and Lo and Hi are 0 (not benchstat's ±∞, so
// that a Summary encodes as JSON). benchstat prints "± ∞" there, with its "need >= N samples for
// confidence interval" warning (at 0.95, fewer than 6 values).
type Summary struct {
	N                int
	Median, Min, Max float64
	Q1, Q3, IQR      float64
	Lo, Hi           float64
	Confidence       float64 // the requested level; the interval's own coverage is at least this when CIValid
	CIValid          bool
}

// Summarize describes xs (which it does not modify) with a confidence interval of the median at
// the given level (0.95 for 95%). The values must not be NaN; an empty sample gives a zero Summary.
func Summarize(xs []float64, confidence float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := Summary{
		N:          n,
		Min:        s[0],
		Max:        s[n-1],
		Median:     quantile8(s, 0.5),
		Q1:         quantile8(s, 0.25),
		Q3:         quantile8(s, 0.75),
		Confidence: confidence,
	}
	sum.IQR = sum.Q3 - sum.Q1
	if lo, hi := medianOrders(n, confidence); lo >= 1 && hi <= n {
		sum.Lo, sum.Hi, sum.CIValid = s[lo-1], s[hi-1], true
	}
	return sum
}

// quantile8 is the p-quantile of the sorted sample s by Hyndman and Fan's definition 8, the one
// benchstat's library uses, written in the same floating-point order so the median has the same bits.
func quantile8(s []float64, p float64) float64 {
	i, frac := quantile8At(len(s), p)
	switch {
	case i <= 0:
		return s[0]
	case i >= len(s):
		return s[len(s)-1]
	}
	return s[i-1] + frac*(s[i]-s[i-1])
}

// quantile8At is where quantile8 reads n sorted values: between the
// order statistics i-1 and i (0-based), frac of the way.
func quantile8At(n int, p float64) (i int, frac float64) {
	k, frac := math.Modf((float64(n)+1.0/3)*p + 1.0/3)
	return int(k), frac
}

// medianOrders returns the 1-based order statistics [lo, hi] that bound the confidence interval of
// the median of n values; lo < 1 or hi > n mean the bound is unbounded.
//
// This is benchstat's rule. The number of values below the population median is binomial(n, 1/2).
// Up to n = 30 the interval grows outward from the lower mode, each step taking the more probable
// neighbour (the lower one on a tie), until the covered probability reaches the confidence. Above
// n = 30 it uses the normal approximation with a continuity correction, rounded outward, and then
// drops one upper order statistic when the confidence still holds without it.
func medianOrders(n int, confidence float64) (lo, hi int) {
	if confidence >= 1 {
		return 0, n + 1
	}
	var l, r int // the covered band [l, r) of "how many values lie below the median"
	if n <= 30 {
		x := n / 2 // the lower mode of binomial(n, 1/2)
		l, r = x, x+1
		covered := binomialHalf(n, x)
		lp, rp := binomialHalf(n, l-1), binomialHalf(n, r)
		for covered < confidence && (lp > 0 || rp > 0) {
			if lp >= rp {
				covered += lp
				l--
				lp = binomialHalf(n, l-1)
			} else {
				covered += rp
				r++
				rp = binomialHalf(n, r)
			}
		}
	} else {
		mu := float64(n) * 0.5
		sigma := math.Sqrt(float64(n) * 0.5 * 0.5)
		l1 := normQuantile((1-confidence)/2)*sigma + mu
		r1 := 2*mu - l1
		l = int(math.Floor(l1-0.5)) + 1
		r = int(math.Ceil(r1-0.5)) + 1
		band := func(l, r int) float64 {
			return normalCDF(float64(r)-0.5, mu, sigma) - normalCDF(float64(l)-0.5, mu, sigma)
		}
		if b := band(l, r-1); b >= confidence && b < band(l, r) {
			r--
		}
	}
	return max(l, 0), min(r, n+1)
}

// binomialHalf is C(n, k)/2^n, computed in floating point as benchstat's library computes it:
// exactly up to n = 20, through log-gamma above. The rounding matters. For 21 ≤ n ≤ 30 it decides
// which of two equally probable order statistics benchstat takes (at n = 24 and 95% the 8th and
// 18th values, where exact arithmetic's lower-first rule would take the 7th and 17th), and the
// point of this package is to give benchstat's intervals.
func binomialHalf(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	var c float64
	switch {
	case k == 0 || k == n:
		c = 1
	case n <= 20:
		c = choose(n, k)
	default:
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		d, _ := math.Lgamma(float64(n - k + 1))
		c = math.Exp(a - b - d)
	}
	return math.Ldexp(c, -n)
}

// choose is the binomial coefficient C(n, k) in floating point: exact up to n = 50, where every
// intermediate stays below 2^53, and within a few ulps above.
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	k = min(k, n-k)
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// normalCDF is the normal distribution function with mean mu and standard deviation sigma.
func normalCDF(x, mu, sigma float64) float64 {
	return math.Erfc(-(x-mu)/(sigma*math.Sqrt2)) / 2
}

// normQuantile is the inverse of the standard normal distribution function.
func normQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// Geomean is the geometric mean of xs, which must all be positive: NaN when xs is empty or a value
// is not positive.
func Geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		if !(x > 0) {
			return math.NaN()
		}
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

// MinCIRounds is the fewest values whose median has a confidence interval
// at the given level (6 at 0.95, benchstat's "need >= 6 samples").
func MinCIRounds(confidence float64) int {
	for n := 1; n < 1000; n++ {
		if lo, hi := medianOrders(n, confidence); lo >= 1 && hi <= n {
			return n
		}
	}
	return 1000
}
