package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMedianAsSorted checks that Median, which selects two order
// statistics, gives the bits that quantile8 over the sorted values gives,
// on inputs of every kind: ties, sorted, reversed, infinities and NaNs.
func TestMedianAsSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pools := map[string]func() float64{
		"spread":  func() float64 { return rng.NormFloat64() * 1e3 },
		"ties":    func() float64 { return float64(rng.IntN(4)) },
		"special": func() float64 { return []float64{math.Inf(1), math.Inf(-1), math.NaN(), 1, 2, 1e300}[rng.IntN(6)] },
	}
	for name, draw := range pools {
		for n := 1; n <= 200; n++ {
			for _, order := range []string{"random", "sorted", "reversed"} {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = draw()
				}
				switch order {
				case "sorted":
					slices.Sort(xs)
				case "reversed":
					slices.SortFunc(xs, func(a, b float64) int { return -cmp.Compare(a, b) })
				}
				orig := slices.Clone(xs)
				sorted := slices.Clone(xs)
				slices.Sort(sorted)
				want, got := quantile8(sorted, 0.5), Median(xs)
				if math.Float64bits(want) != math.Float64bits(got) && !(math.IsNaN(want) && math.IsNaN(got)) {
					t.Fatalf("%s %s n=%d: Median %v, sorted %v (%v)", name, order, n, got, want, orig)
				}
				if !slices.EqualFunc(xs, orig, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
					t.Fatalf("%s %s n=%d: Median changed its input", name, order, n)
				}
				if in := MedianInPlace(slices.Clone(xs)); math.Float64bits(in) != math.Float64bits(got) {
					t.Fatalf("%s %s n=%d: MedianInPlace %v, Median %v", name, order, n, in, got)
				}
				k := rng.IntN(n)
				s := slices.Clone(orig)
				selectK(s, k)
				if math.Float64bits(s[k]) != math.Float64bits(sorted[k]) && !(math.IsNaN(s[k]) && math.IsNaN(sorted[k])) {
					t.Fatalf("%s %s n=%d: selectK(%d) put %v, sorted has %v", name, order, n, k, s[k], sorted[k])
				}
				for i := range s {
					if (i < k && cmp.Less(s[k], s[i])) || (i > k && cmp.Less(s[i], s[k])) {
						t.Fatalf("%s %s n=%d: selectK(%d): %v at %d is on the wrong side of %v", name, order, n, k, s[i], i, s[k])
					}
				}
			}
		}
	}
}

func BenchmarkMedian(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 5000)
	for i := range xs {
		xs[i] = rng.ExpFloat64()
	}
	for b.Loop() {
		Median(xs)
	}
}
