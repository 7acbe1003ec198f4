package stats

import (
	"math"
	"slices"
)

// Trend is the Mann–Kendall test of a monotone trend. pgstudy uses it to see times drift over a
// session, as they do when a disk's burst allowance runs out.
//
// S is the number of pairs i < j with ys[j] > ys[i] minus the number with ys[j] < ys[i]. Tau is
// Kendall's tau-b between ys and their order (S over the number of pairs, corrected for ties in
// ys). Z is the normal score of S: (S − sign S)/σ, where σ² = (n(n−1)(2n+5) − Σ t(t−1)(2t+5))/18
// over groups of t tied values. P is two-sided: exact (the permutation distribution of S) when ys
// has no ties and at most 50 values, where the normal approximation is poor for the few rounds a
// study has, and 2(1−Φ(|Z|)) otherwise. Valid is false for fewer than 3 values and for ys all
// equal.
type Trend struct {
	N     int
	S     float64
	Z     float64
	P     float64
	Tau   float64
	Valid bool
}

// MannKendall tests ys for a monotone trend in the order given. It does not modify ys.
func MannKendall(ys []float64) Trend {
	n := len(ys)
	tr := Trend{N: n}
	if n < 3 {
		return tr
	}

	s := int(mannKendallS(ys))
	sorted := slices.Clone(ys)
	slices.Sort(sorted)
	var tieVar, tiePairs float64
	for i := 0; i < n; {
		j := i
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		t := float64(j - i)
		tieVar += t * (t - 1) * (2*t + 5)
		tiePairs += t * (t - 1) / 2
		i = j
	}
	nf := float64(n)
	varS := (nf*(nf-1)*(2*nf+5) - tieVar) / 18
	if varS <= 0 {
		return tr
	}
	pairs := nf * (nf - 1) / 2
	tr.S = float64(s)
	tr.Tau = tr.S / math.Sqrt((pairs-tiePairs)*pairs)
	switch {
	case s > 0:
		tr.Z = (tr.S - 1) / math.Sqrt(varS)
	case s < 0:
		tr.Z = (tr.S + 1) / math.Sqrt(varS)
	}
	if tiePairs == 0 && n <= exactLimit {
		tr.P = kendallExactP(n, s)
	} else {
		tr.P = min(1, 2*normalCDF(-math.Abs(tr.Z), 0, 1))
	}

	tr.Valid = true
	return tr
}

// SenSlope is the median of the pairwise slopes (ys[j]−ys[i])/(xs[j]−xs[i]) over pairs with
// different xs (nil xs means 0, 1, 2, ...), 0 when there are none or the lengths differ. Neither
// slice is modified. It is apart from MannKendall, whose test does not need it: over strictly
// increasing xs it takes O(n log n) per bisection step, a cost a long study's guards would pay
// for nothing.
func SenSlope(xs, ys []float64) float64 {
	n := len(ys)
	if xs != nil && len(xs) != n {
		return 0
	}
	if xs == nil {
		xs = make([]float64, n)
		for i := range xs {
			xs[i] = float64(i)
		}
	}
	increasing := true
	for i := 1; i < n; i++ {
		if !(xs[i] > xs[i-1]) {
			increasing = false
			break
		}
	}
	if increasing && n > 200 {
		return senSlope(xs, ys)
	}
	var slopes []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if dx := xs[j] - xs[i]; dx != 0 {
				slopes = append(slopes, (ys[j]-ys[i])/dx)
			}
		}
	}
	if len(slopes) > 0 {
		slices.Sort(slopes)
		h := len(slopes) / 2
		if len(slopes)%2 == 1 {
			return slopes[h]
		}
		return (slopes[h-1] + slopes[h]) / 2
	}
	return 0
}

// kendallExactP is P(|S| ≥ |s|) for n values without ties in random order. S is the number of
// pairs minus twice the number of inversions, and the number of inversions of a random permutation
// of k values is that of k−1 values plus one uniform in 0..k−1.
func kendallExactP(n, s int) float64 {
	if s == 0 {
		return 1
	}
	pairs := n * (n - 1) / 2
	f := make([]float64, pairs+1) // f[i]: probability of i inversions
	f[0] = 1
	for k := 2; k <= n; k++ {
		prefix := 0.0
		next := make([]float64, pairs+1)
		for i := 0; i <= pairs; i++ {
			prefix += f[i]
			if i-k >= 0 {
				prefix -= f[i-k]
			}
			next[i] = prefix / float64(k)
		}
		f = next
	}
	// |S| ≥ |s| on one side means at most (pairs−|s|)/2 inversions; the distribution is symmetric.
	var tail float64
	for i := 0; i <= (pairs-abs(s))/2; i++ {
		tail += f[i]
	}
	return min(1, 2*tail)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
