package stats

import "cmp"

// selectK reorders s so that s[k] is the value a sort would put there,
// with no larger value before it and no smaller one after (NaNs first, as
// slices.Sort puts them). It takes linear time on average where a sort
// takes n log n: an analysis of 100,000 runs takes the median of every
// disk figure of every group.
func selectK(s []float64, k int) {
	lo, hi := 0, len(s)-1
	for hi > lo {
		// The median of the first, middle and last as the pivot: a
		// deterministic choice, fine on sorted and reversed input.
		mid := lo + (hi-lo)/2
		if cmp.Less(s[mid], s[lo]) {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if cmp.Less(s[hi], s[lo]) {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if cmp.Less(s[hi], s[mid]) {
			s[hi], s[mid] = s[mid], s[hi]
		}
		p := s[mid]
		i, j := lo, hi
		for i <= j {
			for cmp.Less(s[i], p) {
				i++
			}
			for cmp.Less(p, s[j]) {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return // s[k] lies between the two parts: equal to the pivot
		}
	}
}

// smallest is the smallest value of s (NaN first, as a sort has it);
// s is not empty.
func smallest(s []float64) float64 {
	m := s[0]
	for _, x := range s[1:] {
		if cmp.Less(x, m) {
			m = x
		}
	}
	return m
}
