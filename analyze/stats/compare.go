package stats

import (
	"math"
	"slices"
	"sort"
)

// Comparison is a sample compared with a baseline.
//
// Ratio is the ratio of the medians, median(x)/median(base), the number benchstat prints as "vs
// base" (Ratio−1, in percent); it is 0 when a sample is empty and Inf or NaN when the baseline
// median is 0.
//
// [Lo, Hi] is the confidence interval of the ratio that goes with the Mann–Whitney test: the
// Hodges–Lehmann/Moses interval of a shift on log scale, exponentiated. Of the n1·n2 pairwise log
// differences log x_j − log base_i, sorted, it takes the k-th smallest and the k-th largest, where
// k is the largest with P(U ≤ k−1) < (1−confidence)/2 under the null distribution of U without
// ties (exact while both samples have at most 50 values, normal with a continuity correction
// above). As exp is monotone, these are order statistics of the ratios x_j/base_i. Without ties
// in the exact range, 1 lies outside [Lo, Hi] exactly when P < 1−confidence, so at confidence
// 1−alpha the interval excludes 1 exactly when the comparison is significant; with ties the two
// can disagree at the margin. Every value must be positive; otherwise, or when the samples are
// too small for the level (3 values each at 0.95), CIValid is false and Lo and Hi are 0.
//
// The interval estimates the shift of the whole distribution, not the ratio of medians, so on
// bimodal samples whose medians fall in different modes Ratio can lie outside [Lo, Hi]; the
// interval then says that the bulk of the samples moved less than their medians did.
//
// P is benchstat's two-sided Mann–Whitney p-value (see MannWhitneyU) with the baseline as the
// first sample, and U its statistic: the number of (base, x) pairs in which the baseline value is
// the larger, ties counting one half. PValid is false when both samples are smaller than the
// smallest n for which n values each could give P ≤ alpha: benchstat's "need >= N samples to
// detect a difference" warning (below 4 values each at 0.05). P is computed all the same.
// Significant is PValid and P < alpha: where benchstat prints a change instead of "~". (Its rule
// is P ≤ alpha, but where P equals alpha in exact arithmetic, as 2/C(6, 3) = 0.1 does for 3
// values each at alpha 0.1, its floating point lands on either side depending on ties. PValid
// follows its warning and is true there, although P cannot be below alpha.)
type Comparison struct {
	Ratio       float64
	Lo, Hi      float64
	CIValid     bool
	P           float64
	PValid      bool
	U           float64
	Significant bool
}

// Compare compares x with the baseline base (neither is modified): the ratio of medians with its
// confidence interval at the given level, and the Mann–Whitney test at significance level alpha.
func Compare(base, x []float64, confidence, alpha float64) Comparison {
	var c Comparison
	if len(base) > 0 && len(x) > 0 {
		c.Ratio = Median(x) / Median(base)
	}
	c.Lo, c.Hi, c.CIValid = ratioInterval(base, x, confidence)
	c.U, c.P = mannWhitneyU(base, x)
	if len(base) > 0 && len(x) > 0 {
		need := uTestSamples(alpha)
		c.PValid = len(base) >= need || len(x) >= need
	}
	c.Significant = c.PValid && c.P < alpha
	return c
}

// byLess orders x and y as the comparison < does, NaN included (it is
// neither less nor more than anything): sort.Slice's order with that
// comparison, from slices.SortFunc, which runs the same algorithm.
func byLess(x, y float64) int {
	switch {
	case x < y:
		return -1
	case y < x:
		return 1
	}
	return 0
}

// Median is the median of xs as Summarize computes it (the same bits),
// without the rest of the Summary: 0 for no value. It does not modify xs.
func Median(xs []float64) float64 {
	if len(xs) <= 1 {
		return MedianInPlace(xs)
	}
	return MedianInPlace(slices.Clone(xs))
}

// MedianInPlace is Median for a caller whose xs are scratch: it reorders
// them instead of selecting in a copy (a copy a figure of each group of
// thousands of runs was most of the disk table's time).
func MedianInPlace(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	// quantile8 reads two order statistics: those are selected, not the
	// whole sorted.
	i, frac := quantile8At(len(xs), 0.5)
	if i >= len(xs) { // one value
		return xs[0]
	}
	selectK(xs, i-1)
	lo, hi := xs[i-1], smallest(xs[i:])
	return lo + frac*(hi-lo)
}

// uTestSamples is the smallest n for which two samples of n values each can give a two-sided
// Mann–Whitney p-value at most alpha: the most separated samples give 2/C(2n, n). benchstat warns
// when both samples are smaller.
func uTestSamples(alpha float64) int {
	n := 1
	for 2/choose(2*n, n) > alpha && n < 1000 {
		n++
	}
	return n
}

// ratioInterval is the exponentiated Moses interval of the log shift described at Comparison.
func ratioInterval(base, x []float64, confidence float64) (lo, hi float64, ok bool) {
	n1, n2 := len(base), len(x)
	if n1 == 0 || n2 == 0 {
		return 0, 0, false
	}
	for _, v := range base {
		if !(v > 0) || math.IsInf(v, 1) {
			return 0, 0, false
		}
	}
	for _, v := range x {
		if !(v > 0) || math.IsInf(v, 1) {
			return 0, 0, false
		}
	}
	k := mosesOrder(n1, n2, 1-confidence)
	if k < 1 {
		return 0, 0, false
	}
	if n1*n2 > 40000 {
		lo, hi := ratioOrders(base, x, k)
		return lo, hi, true
	}
	ratios := make([]float64, 0, n1*n2)
	for _, b := range base {
		for _, v := range x {
			ratios = append(ratios, v/b)
		}
	}
	slices.Sort(ratios)
	return ratios[k-1], ratios[len(ratios)-k], true
}

// mosesOrder is k of the Moses interval: the largest k with P(U ≤ k−1) < alpha/2 under the null
// distribution of U for samples of n1 and n2 values without ties, at most (n1·n2+1)/2 so that the
// interval is never reversed. 0 means the samples are too small.
func mosesOrder(n1, n2 int, alpha float64) int {
	m := n1 * n2
	limit := (m + 1) / 2
	if alpha <= 0 {
		return 0
	}
	if n1 <= exactLimit && n2 <= exactLimit {
		counts := uCounts(n1, ones(n1+n2), 1, limit)
		// Strictly below alpha/2, as Significant is strictly below alpha; the tolerance keeps
		// a probability equal to alpha/2 in exact arithmetic out.
		allowed := alpha / 2 * choose(n1+n2, n1) * (1 - 1e-12)
		k, cum := 0, 0.0
		for u := 0; u < limit; u++ {
			cum += counts[u]
			if cum >= allowed {
				break
			}
			k = u + 1
		}
		return k
	}
	N := float64(n1 + n2)
	sigma := math.Sqrt(float64(m) * (N + 1) / 12)
	// P(U ≤ k−1) ≈ Φ((k−1+0.5−m/2)/σ) < alpha/2.
	k := int(math.Floor(float64(m)/2 + normQuantile(alpha/2)*sigma + 0.5))
	return max(0, min(k, limit))
}

// Limits of the exact null distribution of U, benchstat's: above them the normal approximation is
// close and the exact one expensive.
const (
	exactLimit     = 50 // both samples at most this size, no ties
	exactTiesLimit = 25 // both samples at most this size, with ties
)

// mannWhitneyU is the two-sided Mann–Whitney U test of a against b, computed as benchstat computes
// it. u is the number of pairs (a_i, b_j) with a_i > b_j, ties counting one half.
//
// When both samples have at most 50 values and no value is tied, or at most 25 values with ties,
// p comes from the exact permutation distribution of U given the tie pattern (Klotz 1966): twice
// the probability of a U no larger than the smaller of u and n1·n2−u, with a as the first sample,
// and 1 when the two are equal. Otherwise it uses the normal approximation with the tie correction
// of the variance and a continuity correction of one half. When every value is equal, or a sample
// is empty, p is 1.
//
// With ties the exact distribution need not be symmetric, as benchstat's rule assumes: p then
// depends on which sample comes first, and benchstat can print a p above 1 (capped at 1 here).
// Where n1·n2−u lies below every attainable U the rule gives 0 for an ordinary outcome, and
// benchstat prints a significant change; here p is then twice the observed tail P(U ≥ u).
// benchstat's distribution is also off when the pooled values take exactly two distinct values and
// n1·n2−u < u (it rounds a negative quotient toward zero and counts arrangements that do not
// exist); here it is exact.
func mannWhitneyU(a, b []float64) (u, p float64) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return 0, 1
	}
	vals := make([]labelled, 0, n1+n2)
	for _, v := range a {
		vals = append(vals, labelled{v, true})
	}
	for _, v := range b {
		vals = append(vals, labelled{v, false})
	}
	slices.SortFunc(vals, func(x, y labelled) int { return byLess(x.v, y.v) })

	var r1 float64 // rank sum of a, ties taking their mean rank
	var groups []int
	ties := false
	for i := 0; i < len(vals); {
		j, inA := i, 0
		for ; j < len(vals) && vals[j].v == vals[i].v; j++ {
			if vals[j].first {
				inA++
			}
		}
		r1 += float64(inA) * float64(i+1+j) / 2
		groups = append(groups, j-i)
		ties = ties || j-i > 1
		i = j
	}
	u = r1 - float64(n1*(n1+1))/2
	m := float64(n1 * n2)

	if !ties && n1 <= exactLimit && n2 <= exactLimit || ties && n1 <= exactTiesLimit && n2 <= exactTiesLimit {
		if len(groups) == 1 || u == m-u {
			return u, 1
		}
		scale := 1
		if ties {
			scale = 2 // U moves in halves
		}
		if p := 2 * uCDF(n1, groups, scale, min(u, m-u)); p > 0 {
			return u, min(1, p)
		}
		// n1·n2−u lies below every attainable U, which an asymmetric tie pattern allows:
		// double the observed upper tail, P(U ≥ u), which is P(U' ≤ n1·n2−u) for U' on the
		// values in reverse order.
		rev := slices.Clone(groups)
		slices.Reverse(rev)
		return u, min(1, 2*uCDF(n1, rev, scale, m-u))
	}

	N := float64(n1 + n2)
	var t float64
	for _, g := range groups {
		t += float64(g*g*g - g)
	}
	sigma := math.Sqrt(m * ((N + 1) - t/(N*(N-1))) / 12)
	if sigma == 0 {
		return u, 1
	}
	d := u - m/2
	switch {
	case d > 0:
		d -= 0.5
	case d < 0:
		d += 0.5
	}
	return u, min(1, 2*normalCDF(-math.Abs(d/sigma), 0, 1))
}

type labelled struct {
	v     float64
	first bool
}

// uCDF is P(U ≤ u) for a first sample of n1 values among values tied in groups.
func uCDF(n1 int, groups []int, scale int, u float64) float64 {
	var cum float64
	for _, c := range uCounts(n1, groups, scale, int(math.Round(u*float64(scale)))) {
		cum += c
	}
	total := 0
	for _, g := range groups {
		total += g
	}
	return cum / choose(total, n1)
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// uCounts counts the ways the first sample, n1 of the values, can lie among the pooled values,
// grouped by ties in ascending order (groups holds the size of each group), so that its U
// statistic is u/scale, for u = 0..limit. Out of C(Σgroups, n1) ways in all, each equally likely
// under the null hypothesis. A first-sample value beats every second-sample value in lower groups
// and ties (one half) with those in its own group, so taking r of a group's t values when k
// first-sample values lie below it adds r·(below−k) + r·(t−r)/2 to U.
func uCounts(n1 int, groups []int, scale, limit int) []float64 {
	n2 := -n1
	for _, t := range groups {
		n2 += t
	}
	if len(groups) == n1+n2 {
		return uCountsNoTies(n1, n2, limit)
	}
	w := limit + 1
	cnt := make([]float64, (n1+1)*w) // cnt[k*w+u]: k first-sample values placed so far
	cnt[0] = 1
	below := 0
	for _, t := range groups {
		for k := min(n1, below); k >= 0; k-- {
			if below-k > n2 {
				break // more second-sample values below than there are
			}
			row := cnt[k*w : (k+1)*w]
			for u, c := range row {
				if c == 0 {
					continue
				}
				for r := 1; r <= t && k+r <= n1; r++ {
					nu := u + r*scale*(below-k) + r*scale*(t-r)/2
					if nu > limit {
						continue
					}
					cnt[(k+r)*w+nu] += c * choose(t, r)
				}
			}
		}
		below += t
	}
	return cnt[n1*w:]
}

// uCountsNoTies is uCounts without ties, in O(n1·limit) steps rather than O((n1+n2)·n1·limit):
// the counts are the coefficients of the Gaussian binomial Π_{i=1..n1} (1−q^(n2+i))/(1−q^i), up
// to q^limit.
func uCountsNoTies(n1, n2, limit int) []float64 {
	c := make([]float64, limit+1)
	c[0] = 1
	for i := 1; i <= n1; i++ {
		for u := limit; u >= n2+i; u-- { // times 1−q^(n2+i)
			c[u] -= c[u-n2-i]
		}
		for u := i; u <= limit; u++ { // divided by 1−q^i
			c[u] += c[u-i]
		}
	}
	return c
}

// Holm adjusts the p-values ps for multiple comparisons by Holm's step-down method (R's
// p.adjust(method = "holm")): the i-th smallest of m is multiplied by m−i+1, made monotone in the
// order of the p-values and capped at 1. The result is in the order of ps, which is not modified.
func Holm(ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return ps[order[i]] < ps[order[j]] })
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		v := min(1, float64(m-rank)*ps[i])
		running = max(running, v)
		adj[i] = running
	}
	return adj
}
