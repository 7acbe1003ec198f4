package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// countU is U by its definition: pairs with a_i > b_j, ties counting one half.
func countU(a, b []float64) float64 {
	var u float64
	for _, x := range a {
		for _, y := range b {
			switch {
			case x > y:
				u++
			case x == y:
				u += 0.5
			}
		}
	}
	return u
}

// enumeratedP is MannWhitneyU's exact p-value by brute force: U for every way of choosing which of
// the pooled values form the first sample, then twice the lower tail at min(u, n1·n2−u), or twice
// the observed upper tail where that lower tail is empty.
func enumeratedP(a, b []float64) float64 {
	pooled := append(slices.Clone(a), b...)
	n, n1 := len(pooled), len(a)
	u, m := countU(a, b), float64(len(a)*len(b))
	var us []float64
	for mask := uint(0); mask < 1<<n; mask++ {
		if bits.OnesCount(mask) != n1 {
			continue
		}
		var first, second []float64
		for i, v := range pooled {
			if mask>>i&1 == 1 {
				first = append(first, v)
			} else {
				second = append(second, v)
			}
		}
		us = append(us, countU(first, second))
	}
	if slices.Min(pooled) == slices.Max(pooled) || u == m-u {
		return 1
	}
	frac := func(keep func(float64) bool) float64 {
		var k int
		for _, x := range us {
			if keep(x) {
				k++
			}
		}
		return float64(k) / float64(len(us))
	}
	if p := 2 * frac(func(x float64) bool { return x <= min(u, m-u) }); p > 0 {
		return min(1, p)
	}
	return min(1, 2*frac(func(x float64) bool { return x >= u }))
}

func TestMannWhitneyU(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []float64
		wantU  float64
		wantP  float64 // a published value where there is one, else NaN: only the enumeration
		pDigit float64
	}{
		// R: wilcox.test(x, y) on Hollander & Wolfe's depression scores: W = 35, p-value = 0.2544
		// (the one-sided example in R's help gives 0.1272).
		{"R wilcox.test example",
			[]float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46},
			[]float64{1.15, 0.88, 0.90, 0.74, 1.21}, 35, 0.2544, 5e-5},
		{"separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, 1e-15},
		{"separated reversed", []float64{4, 5, 6, 7}, []float64{1, 2, 3, 0}, 16, 2.0 / 70, 1e-15},
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 3, 4, 5}, 3, math.NaN(), 0},
		{"ties within only", []float64{5, 5, 5, 6}, []float64{5, 5, 5, 5}, 10, math.NaN(), 0},
		{"equal halves", []float64{1, 2, 3, 4}, []float64{1, 2, 3, 4}, 8, 1, 0},
		{"all equal", []float64{3, 3}, []float64{3, 3, 3}, 3, 1, 0},
		// An asymmetric tie pattern: 2·P(U ≤ 1) is 1.5; benchstat prints p=1.500.
		{"doubled tail above 1", []float64{1, 2, 2}, []float64{2}, 1, 1, 0},
		// n1·n2−u = 0 lies below every attainable U (0.5, 2 or 3): benchstat's rule gives 0
		// (and prints a significant change for 3 values against 1); the observed tail is 1/4.
		{"reflected U unattainable", []float64{2, 1, 2}, []float64{-2}, 3, 0.5, 1e-15},
		// Two distinct values: U is 12 (1 in 3) or 7.5; benchstat's code prints p=1.333.
		{"two values", []float64{1, 0, 0}, []float64{0, 0, 0, 0, 0, 0}, 12, 2.0 / 3, 1e-15},
		{"single values", []float64{1}, []float64{2}, 0, 1, 0},
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 6 {
		a, b := make([]float64, 8), make([]float64, 4+i%4)
		for j := range a {
			a[j] = float64(rng.IntN(5))
		}
		for j := range b {
			b[j] = float64(rng.IntN(5) + i%3)
		}
		tests = append(tests, struct {
			name   string
			a, b   []float64
			wantU  float64
			wantP  float64
			pDigit float64
		}{"random ties", a, b, countU(a, b), math.NaN(), 0})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := slices.Clone(tt.a), slices.Clone(tt.b)
			u, p := mannWhitneyU(a, b)
			if !slices.Equal(a, tt.a) || !slices.Equal(b, tt.b) {
				t.Errorf("MannWhitneyU modified its input")
			}
			if u != tt.wantU {
				t.Errorf("u = %v, want %v", u, tt.wantU)
			}
			if !math.IsNaN(tt.wantP) && math.Abs(p-tt.wantP) > tt.pDigit {
				t.Errorf("p = %v, want %v", p, tt.wantP)
			}
			if e := enumeratedP(tt.a, tt.b); math.Abs(p-e) > 1e-12 {
				t.Errorf("p = %v, enumeration gives %v", p, e)
			}
		})
	}
}

// TestMannWhitneyUNormal checks the normal approximation, used above 50 values without ties and
// above 25 with, against U and σ worked out by hand.
func TestMannWhitneyUNormal(t *testing.T) {
	// 1..60 against 30.5..89.5: U = 1+2+…+30 = 465, σ² = 60·60·121/12.
	z := (465 - 1800 + 0.5) / math.Sqrt(3600*121.0/12)
	// 0,1,2 against 1,2,3, ten of each: U = 50 + 100 + 50 = 200; ties 10,20,20,10 give
	// Σ(t³−t) = 2·990 + 2·7980 = 17940, σ² = 900·(61 − 17940/(60·59))/12.
	zt := (200 - 450 + 0.5) / math.Sqrt(900*(61-17940.0/(60*59))/12)
	rep := func(vals ...float64) []float64 {
		var s []float64
		for _, v := range vals {
			for range 10 {
				s = append(s, v)
			}
		}
		return s
	}
	var halves []float64
	for _, v := range seq(30, 89) {
		halves = append(halves, v+0.5)
	}
	tests := []struct {
		name  string
		a, b  []float64
		wantU float64
		wantP float64
	}{
		{"no ties", seq(1, 60), halves, 465, math.Erfc(-z / math.Sqrt2)},
		{"ties", rep(0, 1, 2), rep(1, 2, 3), 200, math.Erfc(-zt / math.Sqrt2)},
	}
	for _, tt := range tests {
		u, p := mannWhitneyU(tt.a, tt.b)
		if u != tt.wantU || !near(p, tt.wantP, 1e-12) {
			t.Errorf("%s: MannWhitneyU = %v, %v; want %v, %v", tt.name, u, p, tt.wantU, tt.wantP)
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name                    string
		base, x                 []float64
		confidence, alpha       float64
		ratio, lo, hi           float64
		ciValid, pValid, signif bool
	}{
		// 4 and 4: P(U ≤ 0) = 1/70 < 0.025 ≤ P(U ≤ 1), so the extreme pairwise ratios.
		{"4 and 4", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 0.95, 0.05, 10, 2.5, 40, true, true, true},
		// 3 and 3: P(U ≤ 0) = 1/20 is already 0.05, and p is at least 0.1.
		{"3 and 3", []float64{1, 2, 3}, []float64{10, 20, 30}, 0.95, 0.05, 10, math.NaN(), math.NaN(), false, false, false},
		// benchstat does not warn at alpha 0.1 (2/C(6,3) = 0.1 ≤ alpha), but p = 0.1 is not below.
		{"3 and 3 at 0.1", []float64{1, 2, 3}, []float64{10, 20, 30}, 0.90, 0.1, 10, math.NaN(), math.NaN(), false, true, false},
		// p = 2/35: enough values for a test, not for this one to be significant.
		{"3 and 4", []float64{1, 2, 3}, []float64{10, 20, 30, 40}, 0.95, 0.05, 12.5, math.NaN(), math.NaN(), false, true, false},
		{"1 and 6", []float64{1}, []float64{2, 3, 4, 5, 6, 7}, 0.95, 0.05, 4.5, math.NaN(), math.NaN(), false, true, false},
		{"a zero", []float64{0, 2, 3, 4}, []float64{10, 20, 30, 40}, 0.95, 0.05, 10, math.NaN(), math.NaN(), false, true, true},
		{"empty", nil, []float64{1, 2}, 0.95, 0.05, 0, 0, 0, false, false, false},
		// 5 and 5: P(U ≤ 2) = 4/252 < 0.025 ≤ P(U ≤ 3) = 7/252, so the 3rd smallest and largest
		// of the ratios 5/9, 5/8, 6/9, ...
		{"same", []float64{5, 6, 7, 8, 9}, []float64{5, 6, 7, 8, 9}, 0.95, 0.05, 1, 2.0 / 3, 3.0 / 2, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.base, tt.x, tt.confidence, tt.alpha)
			if !tt.ciValid {
				tt.lo, tt.hi = 0, 0
			}
			if !near(c.Ratio, tt.ratio, 1e-12) || c.CIValid != tt.ciValid || c.PValid != tt.pValid || c.Significant != tt.signif ||
				!near(c.Lo, tt.lo, 1e-12) || !near(c.Hi, tt.hi, 1e-12) {
				t.Errorf("Compare = %+v\nwant ratio %v [%v, %v] CIValid %v PValid %v Significant %v",
					c, tt.ratio, tt.lo, tt.hi, tt.ciValid, tt.pValid, tt.signif)
			}
			if _, p := mannWhitneyU(tt.base, tt.x); c.P != p {
				t.Errorf("P = %v, MannWhitneyU gives %v", c.P, p)
			}
		})
	}
}

// TestCompareIntervalInvertsTest checks the ratio interval against its definition: the ratios r
// for which the Mann–Whitney test of x/r against base does not reject at 1−confidence. Just
// inside each bound the test must not reject; just outside it must.
func TestCompareIntervalInvertsTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for range 300 {
		n1, n2 := 4+rng.IntN(14), 4+rng.IntN(14)
		if rng.IntN(10) == 0 {
			n1, n2 = 51+rng.IntN(20), 51+rng.IntN(20) // the normal approximation
		}
		conf := []float64{0.8, 0.9, 0.95, 0.99}[rng.IntN(4)]
		base, x := make([]float64, n1), make([]float64, n2)
		shift := math.Exp(rng.NormFloat64() * 0.2)
		for i := range base {
			base[i] = math.Exp(rng.NormFloat64() * 0.1)
		}
		for i := range x {
			x[i] = shift * math.Exp(rng.NormFloat64()*0.1)
		}
		c := Compare(base, x, conf, 1-conf)
		if !c.CIValid {
			continue
		}
		rejects := func(r float64) bool {
			xr := make([]float64, len(x))
			for i, v := range x {
				xr[i] = v / r
			}
			_, p := mannWhitneyU(base, xr)
			return p < 1-conf
		}
		const eps = 1e-9
		for _, probe := range []struct {
			r    float64
			want bool
		}{{c.Lo * (1 - eps), true}, {c.Lo * (1 + eps), false}, {c.Hi * (1 - eps), false}, {c.Hi * (1 + eps), true}} {
			if got := rejects(probe.r); got != probe.want {
				t.Errorf("n=%d+%d conf=%v interval [%v, %v]: test at ratio %v rejects %v, want %v",
					n1, n2, conf, c.Lo, c.Hi, probe.r, got, probe.want)
			}
		}
		// And so, without ties, the interval excludes 1 exactly when the comparison is significant.
		if excl := c.Lo > 1 || c.Hi < 1; excl != (c.P < 1-conf) {
			t.Errorf("n=%d+%d: interval [%v, %v] excludes 1: %v, but P = %v", n1, n2, c.Lo, c.Hi, excl, c.P)
		}
		checked++
	}
	if checked < 200 {
		t.Errorf("only %d samples had an interval", checked)
	}
}

// TestCompareBimodal shows why Ratio may lie outside [Lo, Hi]: the medians sit in different modes
// while the bulk of both samples did not move.
func TestCompareBimodal(t *testing.T) {
	rep := func(v float64, n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	base := append(rep(100, 11), rep(200, 9)...)
	x := append(rep(100, 9), rep(200, 11)...)
	c := Compare(base, x, 0.95, 0.05)
	if c.Ratio != 2 || !c.CIValid || c.Lo != 1 || c.Hi != 1 || c.Significant {
		t.Errorf("Compare = %+v, want ratio 2 outside the interval [1, 1], not significant", c)
	}
}

func TestHolm(t *testing.T) {
	tests := []struct {
		ps, want []float64
	}{
		// R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm")
		{[]float64{0.01, 0.02, 0.03, 0.04, 0.05}, []float64{0.05, 0.08, 0.09, 0.09, 0.09}},
		// out of order: 0.005·4, 0.01·3, 0.03·2, then 0.04·1 raised to 0.06
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{[]float64{0.5, 0.6}, []float64{1, 1}},
		{[]float64{0.2, 0.2, 0.01}, []float64{0.4, 0.4, 0.03}},
		{[]float64{0.3}, []float64{0.3}},
		{nil, []float64{}},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.ps)
		got := Holm(in)
		if !slices.Equal(in, tt.ps) {
			t.Errorf("Holm modified its input")
		}
		if len(got) != len(tt.want) {
			t.Errorf("Holm(%v) = %v, want %v", tt.ps, got, tt.want)
			continue
		}
		for i := range got {
			if !near(got[i], tt.want[i], 1e-12) {
				t.Errorf("Holm(%v) = %v, want %v", tt.ps, got, tt.want)
				break
			}
		}
	}
}

// TestUCountsNoTies checks the Gaussian-binomial counts of U against enumeration for small
// samples, and their total against C(n1+n2, n1) up to benchstat's exact limit.
func TestUCountsNoTies(t *testing.T) {
	for n1 := 1; n1 <= 6; n1++ {
		for n2 := 1; n2 <= 6; n2++ {
			want := make([]float64, n1*n2+1)
			for mask := uint(0); mask < 1<<(n1+n2); mask++ {
				if bits.OnesCount(mask) != n1 {
					continue
				}
				var first, second []float64
				for i := range n1 + n2 {
					if mask>>i&1 == 1 {
						first = append(first, float64(i))
					} else {
						second = append(second, float64(i))
					}
				}
				want[int(countU(first, second))]++
			}
			if got := uCountsNoTies(n1, n2, n1*n2); !slices.Equal(got, want) {
				t.Errorf("uCountsNoTies(%d, %d) = %v, enumeration gives %v", n1, n2, got, want)
			}
		}
	}
	for _, n := range [][2]int{{50, 50}, {50, 17}, {25, 25}, {3, 50}} {
		var sum float64
		for _, c := range uCountsNoTies(n[0], n[1], n[0]*n[1]) {
			sum += c
		}
		if want := choose(n[0]+n[1], n[0]); !near(sum, want, 1e-12) {
			t.Errorf("counts for %v sum to %v, want C = %v", n, sum, want)
		}
	}
}

// TestByLessAsSortSlice checks that slices.SortFunc with byLess leaves
// values and their labels in the order sort.Slice with < did, ties and
// NaN included: the rank sums of KruskalWallis and mannWhitneyU, summed in
// that order, keep their bits.
func TestByLessAsSortSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 18))
	for n := range 300 {
		vals := make([]labelled, n)
		for i := range vals {
			v := float64(rng.IntN(max(n/4, 1)))
			if rng.IntN(20) == 0 {
				v = math.NaN()
			}
			vals[i] = labelled{v, i%3 == 0}
		}
		want := slices.Clone(vals)
		sort.Slice(want, func(i, j int) bool { return want[i].v < want[j].v })
		slices.SortFunc(vals, func(x, y labelled) int { return byLess(x.v, y.v) })
		for i := range vals {
			if vals[i].first != want[i].first || math.Float64bits(vals[i].v) != math.Float64bits(want[i].v) {
				t.Fatalf("n=%d: at %d got %v, sort.Slice gave %v", n, i, vals[i], want[i])
			}
		}
	}
}
