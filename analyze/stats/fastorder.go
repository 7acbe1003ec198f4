package stats

import (
	"math"
	"slices"
)

// Prototype (scratch only): order statistics of pairwise quantities without
// materialising the n² pairs.

// floatKey maps a float64 to an int64 with the same order (no NaNs).
func floatKey(f float64) int64 {
	b := int64(math.Float64bits(f))
	if b < 0 {
		b = math.MinInt64 - b
	}
	return b
}

func keyFloat(k int64) float64 {
	if k < 0 {
		k = math.MinInt64 - k
	}
	return math.Float64frombits(uint64(k))
}

// kthBisect returns the smallest float t in [lo, hi] with count(t) >= k,
// count being non-decreasing in t.
func kthBisect(lo, hi float64, k int64, count func(float64) int64) float64 {
	a, b := floatKey(lo), floatKey(hi)
	for a < b {
		m := a + (b-a)/2
		if count(keyFloat(m)) >= k {
			b = m
		} else {
			a = m + 1
		}
	}
	return keyFloat(a)
}

// ratioOrders returns the k-th smallest and k-th largest of x_j/b_i, exactly.
func ratioOrders(base, x []float64, k int) (float64, float64) {
	b := slices.Clone(base)
	v := slices.Clone(x)
	slices.Sort(b)
	slices.Sort(v)
	// count(t) = #{(i, j): v_j / b_i <= t}. v_j/b_i <= t holds for a
	// prefix of the sorted v, and that prefix grows with b_i: one pass.
	count := func(t float64) int64 {
		var c int64
		j := 0
		for i := 0; i < len(b); i++ {
			for j < len(v) && v[j]/b[i] <= t {
				j++
			}
			c += int64(j)
		}
		return c
	}
	lo := v[0] / b[len(b)-1]
	hi := v[len(v)-1] / b[0]
	m := int64(len(b)) * int64(len(v))
	return kthBisect(lo, hi, int64(k), count), kthBisect(lo, hi, m-int64(k)+1, count)
}

// countInversions counts pairs i<j with a[i] > a[j] or, with orEqual,
// a[i] >= a[j]; it sorts a in place (buf is scratch).
func countInversions(a, buf []float64, orEqual bool) int64 {
	n := len(a)
	if n < 2 {
		return 0
	}
	var inv int64
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n-width; lo += 2 * width {
			mid, hi := lo+width, min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				var takeRight bool
				if orEqual {
					takeRight = a[j] <= a[i]
				} else {
					takeRight = a[j] < a[i]
				}
				if takeRight {
					inv += int64(mid - i)
					buf[k] = a[j]
					j++
				} else {
					buf[k] = a[i]
					i++
				}
				k++
			}
			k += copy(buf[k:], a[i:mid])
			copy(buf[k:], a[j:hi])
			copy(a[lo:hi], buf[lo:hi])
		}
	}
	return inv
}

// mannKendallS is S in O(n log n): pairs i<j with y_j > y_i minus those with y_j < y_i.
func mannKendallS(ys []float64) int64 {
	n := int64(len(ys))
	a := slices.Clone(ys)
	buf := make([]float64, len(a))
	d := countInversions(a, buf, false) // y_i > y_j
	// a is sorted now: tied pairs
	var ties int64
	for i := 0; i < len(a); {
		j := i
		for j < len(a) && a[j] == a[i] {
			j++
		}
		t := int64(j - i)
		ties += t * (t - 1) / 2
		i = j
	}
	c := n*(n-1)/2 - d - ties
	return c - d
}

// senSlope is the median of pairwise slopes for strictly increasing xs.
func senSlope(xs, ys []float64) float64 {
	n := len(ys)
	z := make([]float64, n)
	buf := make([]float64, n)
	count := func(t float64) int64 {
		for i := range z {
			z[i] = ys[i] - t*xs[i]
		}
		return countInversions(z, buf, true) // pairs i<j with z_j <= z_i: slope_ij <= t
	}
	ymin, ymax := slices.Min(ys), slices.Max(ys)
	mindx := math.Inf(1)
	for i := 1; i < n; i++ {
		mindx = min(mindx, xs[i]-xs[i-1])
	}
	bound := (ymax - ymin) / mindx
	pairs := int64(n) * int64(n-1) / 2
	h := pairs / 2
	if pairs%2 == 1 {
		return kthBisect(-bound, bound, h+1, count)
	}
	return (kthBisect(-bound, bound, h, count) + kthBisect(-bound, bound, h+1, count)) / 2
}
