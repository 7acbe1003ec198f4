package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func benchSample(rng *rand.Rand, n int, level float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = level * math.Exp(0.05*rng.NormFloat64())
	}
	return s
}

func BenchmarkSummarize(b *testing.B) {
	for _, n := range []int{5, 100} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			xs := benchSample(rand.New(rand.NewPCG(1, 2)), n, 1e6)
			for b.Loop() {
				Summarize(xs, 0.95)
			}
		})
	}
}

func BenchmarkCompare(b *testing.B) {
	for _, n := range []int{5, 100} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			base, x := benchSample(rng, n, 1e6), benchSample(rng, n, 1.05e6)
			for b.Loop() {
				Compare(base, x, 0.95, 0.05)
			}
		})
	}
}
