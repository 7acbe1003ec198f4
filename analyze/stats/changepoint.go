package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// ChangePoint is a level shift found in a series.
type ChangePoint struct {
	Index  int     // index of the first value of the new level
	P      float64 // the split's p-value
	Method string  // "permutation" or "asymptotic"
	Before float64 // median of the segment ending at Index-1 (back to the previous change point or the start)
	After  float64 // median of the segment starting at Index (up to the next change point or the end)
}

// ChangePoints finds the level shifts of ys (in time order; not modified)
// by binary segmentation with Pettitt's rank statistic: in a segment of n
// values with mid-ranks r, U_t = 2·Σ_{i<t} r_i − t(n+1) is the centred
// Mann–Whitney statistic between the t values before a split and the rest,
// and the split is where |U_t| is largest (the first on a tie), among the
// splits that leave at least minSeg values a side (minSeg < 1 counts as 1).
// A split is kept when its p-value is below alpha, and both sides are then
// searched the same way. Ranks make it blind to the size of outliers and
// to the shape of the distribution.
//
// The p-value is a permutation test up to permLimit values: the share of
// 1,999 permutations of the segment's ranks whose largest |U_t| reaches the
// observed one, as (1 + count)/(1 + 1999). The permutations come from a
// generator seeded by the segment's length and start, so the same series
// gives the same answer every time, on every machine, whatever was called
// before. Above permLimit values it is Pettitt's approximation
// 2·exp(−6K²/(n³+n²)), so that 100,000 runs take milliseconds.
//
// A series with a NaN, or shorter than 2·minSeg, has no change point.
func ChangePoints(ys []float64, alpha float64, minSeg int) []ChangePoint {
	minSeg = max(minSeg, 1)
	if len(ys) < 2*minSeg || slices.ContainsFunc(ys, math.IsNaN) {
		return nil
	}
	var idx []ChangePoint
	var split func(lo, hi int)
	split = func(lo, hi int) {
		if hi-lo < 2*minSeg {
			return
		}
		t, p, method := pettitt(ys[lo:hi], minSeg, lo)
		if t < 0 || !(p < alpha) {
			return
		}
		idx = append(idx, ChangePoint{Index: lo + t, P: p, Method: method})
		split(lo, lo+t)
		split(lo+t, hi)
	}
	split(0, len(ys))
	slices.SortFunc(idx, func(a, b ChangePoint) int { return a.Index - b.Index })
	for i := range idx {
		start, end := 0, len(ys)
		if i > 0 {
			start = idx[i-1].Index
		}
		if i+1 < len(idx) {
			end = idx[i+1].Index
		}
		idx[i].Before, idx[i].After = Median(ys[start:idx[i].Index]), Median(ys[idx[i].Index:end])
	}
	return idx
}

// permLimit is the longest segment tested by permutation.
const permLimit = 500

const permutations = 1999

// pettitt returns the best split of seg (the index of the first value
// after it, or -1 when none is allowed or the values are all equal), its
// p-value and how it was computed. start seeds the permutations.
func pettitt(seg []float64, minSeg, start int) (int, float64, string) {
	n := len(seg)
	r := midRanks(seg)
	t, k := maxU(r, minSeg)
	if t < 0 || k == 0 {
		return -1, 1, ""
	}
	if n > permLimit {
		fn := float64(n)
		return t, math.Min(1, 2*math.Exp(-6*k*k/(fn*fn*fn+fn*fn))), "asymptotic"
	}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(start)^0x636861_6e6765))
	perm := slices.Clone(r)
	count := 0
	for range permutations {
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if _, kp := maxU(perm, minSeg); kp >= k-1e-9 {
			count++
		}
	}
	return t, float64(1+count) / float64(1+permutations), "permutation"
}

// maxU is the split t (minSeg ≤ t ≤ n−minSeg) with the largest |U_t| of
// the ranks r, and that largest |U_t|.
func maxU(r []float64, minSeg int) (int, float64) {
	n := len(r)
	best, bestT := -1.0, -1
	var sum float64
	for t := 1; t <= n-minSeg; t++ {
		sum += r[t-1]
		if t < minSeg {
			continue
		}
		if u := math.Abs(2*sum - float64(t)*float64(n+1)); u > best+1e-9 {
			best, bestT = u, t
		}
	}
	return bestT, best
}

// midRanks are the 1-based ranks of xs, ties given their mean rank.
func midRanks(xs []float64) []float64 {
	n := len(xs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return xs[order[a]] < xs[order[b]] })
	r := make([]float64, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && xs[order[j+1]] == xs[order[i]] {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[order[k]] = mid
		}
		i = j + 1
	}
	return r
}
