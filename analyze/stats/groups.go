package stats

import (
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Groups is the Kruskal–Wallis test of whether several samples come from one distribution.
// pgstudy uses it to tell whether a run's position in the round explains its time better than its
// configuration does, by comparing EpsilonSq grouped one way and the other.
//
// H is the Kruskal–Wallis statistic on mean ranks, divided by the tie correction
// 1 − Σ(t³−t)/(N³−N); P is its chi-squared approximation with DF = (non-empty groups − 1) degrees of
// freedom (R's kruskal.test); EpsilonSq = H/(N−1) is the share of the rank variance the grouping
// explains (0 to 1). Valid is false with fewer than two non-empty groups or when every value is
// equal.
type Groups struct {
	H, P, EpsilonSq float64
	DF              int
	Valid           bool
}

// KruskalWallis tests groups (which it does not modify; empty groups are ignored).
func KruskalWallis(groups [][]float64) Groups {
	type obs struct {
		v float64
		g int
	}
	var all []obs
	var sizes []int
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		for _, v := range g {
			all = append(all, obs{v, len(sizes)})
		}
		sizes = append(sizes, len(g))
	}
	k, n := len(sizes), len(all)
	if k < 2 {
		return Groups{}
	}
	// The sort package's algorithm, without its swaps through reflect:
	// the same order, ties and all.
	slices.SortFunc(all, func(x, y obs) int { return byLess(x.v, y.v) })
	rankSums := make([]float64, k)
	var ties float64
	for i := 0; i < n; {
		j := i
		for j < n && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+1+j) / 2
		for _, o := range all[i:j] {
			rankSums[o.g] += rank
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	nf := float64(n)
	correction := 1 - ties/(nf*nf*nf-nf)
	if correction <= 0 {
		return Groups{DF: k - 1}
	}
	var sum float64
	for g, r := range rankSums {
		sum += r * r / float64(sizes[g])
	}
	h := max(0, (12/(nf*(nf+1))*sum-3*(nf+1))/correction)
	return Groups{
		H:         h,
		P:         distuv.ChiSquared{K: float64(k - 1)}.Survival(h),
		EpsilonSq: h / (nf - 1),
		DF:        k - 1,
		Valid:     true,
	}
}
