package stats

import (
	"math"
	"slices"
	"testing"
)

func near(a, b, tol float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsNaN(a) || math.IsNaN(b) {
		return a == b || math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func seq(lo, hi int) []float64 {
	var s []float64
	for i := lo; i <= hi; i++ {
		s = append(s, float64(i))
	}
	return s
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name       string
		xs         []float64
		confidence float64
		want       Summary
	}{
		// Quartiles are R's quantile(x, type = 8).
		{"1..10", []float64{7, 3, 10, 1, 5, 9, 2, 8, 4, 6}, 0.95, Summary{N: 10, Median: 5.5, Min: 1, Max: 10,
			Q1: 2 + 11.0/12, Q3: 8 + 1.0/12, IQR: 5 + 2.0/12,
			// binomial(10, 1/2): P(2 ≤ below < 9) = 1002/1024 ≥ 0.95, the 2nd and 9th values
			Lo: 2, Hi: 9, Confidence: 0.95, CIValid: true}},
		{"five values", []float64{10, 40, 20, 50, 30}, 0.95, Summary{N: 5, Median: 30, Min: 10, Max: 50,
			Q1: 10 + 2.0/3*10, Q3: 40 + 1.0/3*10, IQR: 20 + 2.0/3*10,
			// too few for 95% (the 0th and 5th values): benchstat's "± ∞" and "need >= 6 samples"
			Confidence: 0.95}},
		{"six values suffice at 95%", []float64{6, 5, 4, 3, 2, 1}, 0.95, Summary{N: 6, Median: 3.5, Min: 1, Max: 6,
			Q1: 1 + 11.0/12, Q3: 5 + 1.0/12, IQR: 3 + 2.0/12, Lo: 1, Hi: 6, Confidence: 0.95, CIValid: true}},
		{"five values suffice at 90%", []float64{1, 2, 3, 4, 5}, 0.90, Summary{N: 5, Median: 3, Min: 1, Max: 5,
			Q1: 1 + 2.0/3, Q3: 4 + 1.0/3, IQR: 2 + 2.0/3, Lo: 1, Hi: 5, Confidence: 0.90, CIValid: true}},
		{"one value", []float64{42}, 0.95, Summary{N: 1, Median: 42, Min: 42, Max: 42, Q1: 42, Q3: 42, Confidence: 0.95}},
		{"ties", []float64{3, 3, 3, 3, 3, 3, 3}, 0.95, Summary{N: 7, Median: 3, Min: 3, Max: 3, Q1: 3, Q3: 3,
			Lo: 3, Hi: 3, Confidence: 0.95, CIValid: true}},
		{"empty", nil, 0.95, Summary{}},
		// At 24 values benchstat's floating point breaks a tie between equally likely
		// intervals upward: the 8th and 18th values, where exact arithmetic gives the 7th and 17th.
		{"24 values", seq(1, 24), 0.95, Summary{N: 24, Median: 12.5, Min: 1, Max: 24,
			Q1: 6 + 5.0/12, Q3: 18 + 7.0/12, IQR: 12 + 2.0/12, Lo: 8, Hi: 18, Confidence: 0.95, CIValid: true}},
		// Above 30 values the normal approximation: for 40 at 95% benchstat takes the 14th and 27th.
		{"40 values", seq(1, 40), 0.95, Summary{N: 40, Median: 20.5, Min: 1, Max: 40,
			Q1: 10 + 5.0/12, Q3: 30 + 7.0/12, IQR: 20 + 2.0/12, Lo: 14, Hi: 27, Confidence: 0.95, CIValid: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.xs)
			got := Summarize(in, tt.confidence)
			if !slices.Equal(in, tt.xs) {
				t.Errorf("Summarize modified its input: %v", in)
			}
			w := tt.want
			if got.N != w.N || got.CIValid != w.CIValid || got.Confidence != w.Confidence ||
				!near(got.Median, w.Median, 1e-12) || !near(got.Min, w.Min, 0) || !near(got.Max, w.Max, 0) ||
				!near(got.Q1, w.Q1, 1e-12) || !near(got.Q3, w.Q3, 1e-12) || !near(got.IQR, w.IQR, 1e-12) ||
				!near(got.Lo, w.Lo, 0) || !near(got.Hi, w.Hi, 0) {
				t.Errorf("Summarize(%v, %v)\n got %+v\nwant %+v", tt.xs, tt.confidence, got, w)
			}
		})
	}
}

// TestMedianOrdersCoverage checks every interval below the normal approximation against its
// definition: its binomial coverage reaches the confidence, and it is at most one order statistic
// wider than the narrowest interval that does.
func TestMedianOrdersCoverage(t *testing.T) {
	for _, conf := range []float64{0.8, 0.9, 0.95, 0.99} {
		for n := 1; n <= 30; n++ {
			lo, hi := medianOrders(n, conf)
			cover := func(lo, hi int) float64 { // P(lo ≤ values below the median < hi)
				var p float64
				for k := max(lo, 0); k < min(hi, n+1); k++ {
					p += math.Exp(lchoose(n, k) - float64(n)*math.Ln2)
				}
				return p
			}
			if c := cover(lo, hi); c < conf-1e-12 && (lo > 0 || hi < n+1) {
				t.Errorf("n=%d conf=%v: orders [%d, %d] cover %v", n, conf, lo, hi, c)
			}
			width := hi - lo
			for l := 0; l+width-2 <= n+1; l++ {
				if cover(l, l+width-2) >= conf+1e-12 {
					t.Errorf("n=%d conf=%v: [%d, %d] is wider than needed: [%d, %d] covers %v",
						n, conf, lo, hi, l, l+width-2, cover(l, l+width-2))
				}
			}
		}
	}
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

func TestGeomean(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 100}, 10},
		{[]float64{2, 8}, 4},
		{[]float64{5}, 5},
		{[]float64{1e300, 1e300}, 1e300},
		{nil, math.NaN()},
		{[]float64{1, 0}, math.NaN()},
		{[]float64{-1, -4}, math.NaN()},
	}
	for _, tt := range tests {
		if got := Geomean(tt.xs); !near(got, tt.want, 1e-12) {
			t.Errorf("Geomean(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

func TestMinCIRounds(t *testing.T) {
	for conf, want := range map[float64]int{0.95: 6, 0.9: 5, 0.99: 8} {
		if got := MinCIRounds(conf); got != want {
			t.Errorf("MinCIRounds(%g) = %d, want %d", conf, got, want)
		}
		if Summarize(make([]float64, want-1), conf).CIValid || !Summarize(make([]float64, want), conf).CIValid {
			t.Errorf("at %g, %d values are not where the interval starts", conf, want)
		}
	}
}
