package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// steps is a series at the given levels, n values each, with 2% multiplicative noise from rng.
func steps(rng *rand.Rand, n int, levels ...float64) []float64 {
	var ys []float64
	for _, level := range levels {
		for range n {
			ys = append(ys, level*(1+0.02*rng.NormFloat64()))
		}
	}
	return ys
}

func TestChangePointsStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ys := steps(rng, 10, 100, 130)
	cps := ChangePoints(ys, 0.05, 3)
	if len(cps) != 1 || cps[0].Index != 10 || cps[0].P >= 0.01 || cps[0].Method != "permutation" ||
		math.Abs(cps[0].Before-100) > 3 || math.Abs(cps[0].After-130) > 4 || math.Abs(cps[0].Ratio()-1.3) > 0.05 {
		t.Fatalf("one step at 10: %+v", cps)
	}
	// 10 values a side, all of one side above the other: |U_10| = 100 = t(20−t), Z = 3.78, the
	// largest any order of 20 values can have, and only 2 of the C(20, 10) = 184,756 ways to split
	// the ranks reach it, so no permutation is likely to: the p-value is the floor, 1/2000.
	if cps[0].P != 1.0/2000 {
		t.Errorf("P = %v, want 1/2000", cps[0].P)
	}

	// Up, then back down.
	ys = steps(rng, 12, 100, 140, 100)
	cps = ChangePoints(ys, 0.05, 3)
	if len(cps) != 2 || cps[0].Index != 12 || cps[1].Index != 24 ||
		math.Abs(cps[0].Ratio()-1.4) > 0.05 || math.Abs(cps[1].Ratio()-1/1.4) > 0.05 {
		t.Fatalf("steps at 12 and 24: %+v", cps)
	}
	// The medians are of the final segments: the middle level is After of the first point and
	// Before of the second.
	if cps[0].After != cps[1].Before || cps[0].After != Median(ys[12:24]) || cps[0].Before != Median(ys[:12]) {
		t.Errorf("medians of the wrong segments: %+v", cps)
	}
}

// TestChangePointsOffCentre: a burst allowance that ran out at run 13 of
// 16 (the times of a real capture, each against its configuration's
// median). Run 12 is a high one of the fast level, and Pettitt's K,
// which favours splits near the middle, put the step there; Z, each
// split's U over its standard deviation, puts it at run 13 (index 12).
func TestChangePointsOffCentre(t *testing.T) {
	a, b := 121.5, 124.2
	ys := []float64{120.4 / a, 115.3 / b, 124.1 / b, 122.8 / a, 108.0 / a, 117.4 / b, 124.2 / b, 118.3 / a,
		120.1 / a, 125.5 / b, 117.8 / b, 122.7 / a, 1934.9 / a, 1932.3 / b, 1930.5 / b, 1939.8 / a}
	if tk, _ := maxU(midRanks(ys), 3); tk != 11 {
		t.Errorf("K's split at %d, want 11 (the pull to the middle this test guards against)", tk)
	}
	cps := ChangePoints(ys, 0.05, 3)
	if len(cps) != 1 || cps[0].Index != 12 || cps[0].P > 0.015 || cps[0].Ratio() < 15 {
		t.Errorf("burst at index 12: %+v", cps)
	}
}

// TestChangePointsPlace: where a step is placed, over 1,000 simulated
// series of 16 with a step at run 13 (index 12), normal noise: the
// deviations place a step of ten times the noise (levels that do not
// overlap) exactly every time, where ranks cannot (Z's split is a rank
// split, K's too); one of 1.6 times the noise, which no method places
// well, about as well as Z does.
func TestChangePointsPlace(t *testing.T) {
	for _, step := range []float64{10, 1.6} {
		rng := rand.New(rand.NewPCG(16, 12))
		const trials, at = 1000, 12
		var exact, off [3]float64 // K, Z, the deviations: share placed exactly, mean distance
		for range trials {
			ys := make([]float64, 16)
			for i := range ys {
				ys[i] = 1 + 0.05*rng.NormFloat64()
				if i >= at {
					ys[i] += 0.05 * step
				}
			}
			r := midRanks(ys)
			tk, _ := maxU(r, 3)
			tz, _ := maxZ(r, 3)
			for m, split := range []int{tk, tz, placeSplit(ys, 3, tz)} {
				if split == at {
					exact[m] += 1.0 / trials
				}
				off[m] += math.Abs(float64(split-at)) / trials
			}
		}
		t.Logf("step of %.1f times the noise at run 13 of 16: placed exactly K %.3f, Z %.3f, deviations %.3f; mean distance %.2f, %.2f, %.2f",
			step, exact[0], exact[1], exact[2], off[0], off[1], off[2])
		bad := exact[2] < exact[1]-0.05 || off[2] > 1.15*off[1] || exact[1] < exact[0]
		if step == 10 {
			bad = bad || exact[2] < 1-1e-9 || exact[1] > 0.8
		}
		if bad {
			t.Errorf("step %.1f: placed exactly %v, mean distance %v", step, exact, off)
		}
	}
}

// TestChangePointsTrend: a trend is not a step, but binary segmentation cuts it into steps. A
// clean ramp of 20 values: |U_t| = t(20−t) is largest at 10, each half of 10 is split at its
// middle too (P < 0.01), and segments of 5 are too short at minSeg 3. With noise (sd 3 against a
// rise of 19) it is cut once here, near the middle.
func TestChangePointsTrend(t *testing.T) {
	ramp := make([]float64, 20)
	for i := range ramp {
		ramp[i] = float64(i)
	}
	var got []int
	for _, cp := range ChangePoints(ramp, 0.05, 3) {
		got = append(got, cp.Index)
	}
	if !slices.Equal(got, []int{5, 10, 15}) {
		t.Errorf("clean ramp: change points at %v, want [5 10 15]", got)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	noisy := make([]float64, 20)
	for i := range noisy {
		noisy[i] = 100 + float64(i) + 3*rng.NormFloat64()
	}
	if cps := ChangePoints(noisy, 0.05, 3); len(cps) != 1 || cps[0].Index < 7 || cps[0].Index > 13 {
		t.Errorf("noisy ramp: %+v, want one split near the middle", cps)
	}
}

// TestChangePointsFalseAlarms: on series without a step, any change point needs the first split,
// which is a test at level alpha (the permutation test is exact up to its Monte Carlo error).
// Measured: 0.046 over 500 series of 20 (23 alarms; a binomial 95% band around 0.05 is
// 0.031–0.069), and 0.047 over 300 series of 600, where the asymptotic p-value is used.
func TestChangePointsFalseAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	rate := func(series, n int) float64 {
		alarms := 0
		for range series {
			ys := make([]float64, n)
			for i := range ys {
				ys[i] = math.Exp(0.3 * rng.NormFloat64())
			}
			if len(ChangePoints(ys, 0.05, 3)) > 0 {
				alarms++
			}
		}
		return float64(alarms) / float64(series)
	}
	small := rate(500, 20)
	t.Logf("false alarms at 0.05: %.3f over 500 series of 20 (permutation)", small)
	if small < 0.02 || small > 0.08 {
		t.Errorf("false-alarm rate %.3f, want about 0.05", small)
	}
	large := rate(300, 600)
	t.Logf("false alarms at 0.05: %.3f over 300 series of 600 (asymptotic)", large)
	if large > 0.08 {
		t.Errorf("false-alarm rate %.3f of the asymptotic branch, want at most about 0.05", large)
	}
}

// TestChangePointsPermutationExact: the permutation p-value is within its Monte Carlo error of
// the exact one, from every order of the ranks (ties included).
func TestChangePointsPermutationExact(t *testing.T) {
	for _, c := range []struct {
		ys     []float64
		minSeg int
	}{
		{[]float64{3, 1, 4, 1, 5, 9, 2, 6}, 1},
		{[]float64{5, 3, 4, 2, 6, 7, 5, 9, 8}, 2},
		{[]float64{2, 1, 2, 3, 2, 4, 5, 4, 6}, 3},
	} {
		r := midRanks(c.ys)
		_, k := maxZ(r, c.minSeg)
		perm := slices.Clone(r)
		slices.Sort(perm)
		hit, all := 0, 0
		for {
			all++
			if _, kp := maxZ(perm, c.minSeg); kp >= k-1e-9 {
				hit++
			}
			if !nextPermutation(perm) {
				break
			}
		}
		exact := float64(hit) / float64(all)
		_, p, method := pettitt(c.ys, c.minSeg, 0, 1) // alpha 1: every permutation counted
		sd := math.Sqrt(exact * (1 - exact) / permutations)
		t.Logf("%v minSeg %d: exact %.4f, permutation %.4f", c.ys, c.minSeg, exact, p)
		if method != "permutation" || math.Abs(p-exact) > 4*sd+1.0/2000 {
			t.Errorf("%v minSeg %d: permutation p %v (%s), exact %v", c.ys, c.minSeg, p, method, exact)
		}
	}
}

// TestPettittU: U_t from ranks is Σ_{i<t} Σ_{j≥t} sign(y_i − y_j), the Mann–Whitney statistic
// between the two sides, with ties.
func TestPettittU(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	ys := make([]float64, 30)
	for i := range ys {
		ys[i] = float64(rng.IntN(8)) // many ties
	}
	r := midRanks(ys)
	var sum float64
	for tt := 1; tt < len(ys); tt++ {
		sum += r[tt-1]
		u := 2*sum - float64(tt)*float64(len(ys)+1)
		var direct float64
		for i := 0; i < tt; i++ {
			for j := tt; j < len(ys); j++ {
				direct += sign(ys[i] - ys[j])
			}
		}
		if math.Abs(u-direct) > 1e-9 {
			t.Fatalf("t=%d: U from ranks %v, directly %v", tt, u, direct)
		}
	}
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// parkMiller is the series C of testdata/pettitt.R: 700 values from the Park–Miller generator,
// modulo 1000, plus 150 from index 400 on.
func parkMiller() []float64 {
	ys := make([]float64, 700)
	s := int64(12345)
	for i := range ys {
		s = 48271 * s % 2147483647
		ys[i] = float64(s % 1000)
		if i >= 400 {
			ys[i] += 150
		}
	}
	return ys
}

// TestChangePointsPeerR: K, its split and the asymptotic p-value agree with R 4.2.2, computed
// from R's rank() by testdata/pettitt.R (Rscript pettitt.R), whose output is pasted here. The
// 700-value series takes the asymptotic branch, so its p-value is checked through ChangePoints.
func TestChangePointsPeerR(t *testing.T) {
	for _, c := range []struct {
		ys []float64
		t  int
		k  float64
		p  float64
	}{
		{[]float64{101, 99, 103, 98, 100, 102, 131, 128, 133, 129, 130, 128}, 6, 36, 0.031407801130256138},
		{[]float64{52, 48, 50, 55, 47, 50, 53, 49, 51, 46, 54, 50, 48, 52, 49, 51, 47, 53,
			58, 61, 57, 60, 63, 58, 59, 62, 56, 60, 61, 58}, 17, 216, 8.7804201399563017e-05},
		{parkMiller(), 379, 30658, 1.4815238256922424e-07},
	} {
		n := len(c.ys)
		tt, k := maxU(midRanks(c.ys), 1)
		if p := pettittAsymptotic(k, n); tt != c.t || k != c.k || math.Abs(p-c.p) > 1e-12*c.p {
			t.Errorf("n=%d: t=%d K=%v p=%.17g, R: t=%d K=%v p=%.17g", n, tt, k, p, c.t, c.k, c.p)
		}
		if n <= permLimit {
			continue
		}
		cps := ChangePoints(c.ys, 0.05, 1)
		i := slices.IndexFunc(cps, func(cp ChangePoint) bool { return cp.Index == c.t })
		if i < 0 || cps[i].Method != "asymptotic" || math.Abs(cps[i].P-c.p) > 1e-12*c.p {
			t.Errorf("n=%d: %+v, want the first split at %d with asymptotic p %v", n, cps, c.t, c.p)
		}
	}
}

// TestChangePointsDeterministic: the same series gives the same answer, whatever ran between,
// and is not modified.
func TestChangePointsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	ys := steps(rng, 8, 100, 108, 100, 95)
	orig := slices.Clone(ys)
	first := ChangePoints(ys, 0.2, 2)
	ChangePoints(ys[3:], 0.2, 2)
	ChangePoints(steps(rng, 20, 1, 2), 0.05, 1)
	again := ChangePoints(ys, 0.2, 2)
	if len(first) == 0 || !slices.Equal(first, again) {
		t.Fatalf("not deterministic: %+v, then %+v", first, again)
	}
	if !slices.Equal(ys, orig) {
		t.Fatal("ChangePoints modified its input")
	}
	// Every point is a kept split with a legal p and at least minSeg values on each side.
	prev := 0
	for _, cp := range first {
		if cp.Index-prev < 2 || !(cp.P > 0 && cp.P < 0.2) || cp.Method != "permutation" {
			t.Errorf("bad point %+v in %+v", cp, first)
		}
		prev = cp.Index
	}
	if len(ys)-prev < 2 {
		t.Errorf("last segment too short: %+v", first)
	}
}

// TestChangePointsLarge: 100,000 values take the asymptotic branch and find a 5% step (noise
// 10%) within 200 values of where it is.
func TestChangePointsLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ys := make([]float64, 100000)
	for i := range ys {
		level := 1.0
		if i >= 60000 {
			level = 1.05
		}
		ys[i] = level * (1 + 0.1*rng.NormFloat64())
	}
	cps := ChangePoints(ys, 0.001, 3)
	i := slices.IndexFunc(cps, func(cp ChangePoint) bool { return math.Abs(float64(cp.Index-60000)) <= 200 })
	if i < 0 || cps[i].Method != "asymptotic" || math.Abs(cps[i].Ratio()-1.05) > 0.01 {
		t.Fatalf("%+v", cps)
	}
	t.Logf("%d change points; the step found at %d", len(cps), cps[i].Index)
}

func TestChangePointsEdges(t *testing.T) {
	for _, c := range []struct {
		what   string
		ys     []float64
		minSeg int
	}{
		{"nil", nil, 1},
		{"empty", []float64{}, 0},
		{"one value", []float64{1}, 0},
		{"constant", []float64{1, 1, 1, 1, 1, 1, 1}, 2},
		{"NaN", []float64{1, 1, 1, math.NaN(), 9, 9, 9}, 1},
		{"shorter than 2·minSeg", []float64{1, 1, 1, 9, 9}, 3},
		{"huge minSeg", []float64{1, 1, 1, 9, 9, 9}, math.MaxInt},
	} {
		if cps := ChangePoints(c.ys, 0.5, c.minSeg); cps != nil {
			t.Errorf("%s: %+v, want nil", c.what, cps)
		}
	}
	// minSeg 0 counts as 1; two values can be a step at alpha 1.
	if cps := ChangePoints([]float64{1, 2}, 1.1, 0); len(cps) != 1 || cps[0].Index != 1 {
		t.Errorf("two values, minSeg 0: %+v", cps)
	}
	// Infinities rank as the extremes, but a median next to one is NaN (Median interpolates).
	inf := math.Inf(1)
	ys := []float64{1, 2, 1, 2, 1, 2, 1, 2, inf, inf, 9, inf, 9, inf, 9, inf}
	if cps := ChangePoints(ys, 0.05, 3); len(cps) != 1 || cps[0].Index != 8 || cps[0].Before != 1.5 || !math.IsNaN(cps[0].After) {
		t.Errorf("with +Inf: %+v", cps)
	}
	if r := (ChangePoint{Before: 0, After: 3}).Ratio(); r != 0 {
		t.Errorf("Ratio with Before 0: %v", r)
	}
}

// BenchmarkChangePoints: a series without a step (where the permutations stop early, as soon as
// the split cannot be kept), one with a step (all 1,999 permutations for the kept split, then its
// two sides stop early), and 100,000 values without a step (the asymptotic branch).
func BenchmarkChangePoints(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
		step float64
	}{{"n=20", 20, 0}, {"n=20,step", 20, 1}, {"n=100000", 100000, 0}} {
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			ys := make([]float64, c.n)
			for i := range ys {
				ys[i] = rng.NormFloat64()
				if i >= c.n/2 {
					ys[i] += 4 * c.step
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				ChangePoints(ys, 0.05, 3)
			}
		})
	}
}

// TestChangePointsBump: a level that rises for 6 runs of 20 and comes
// back (found by an outsider: +90% on runs 9-14 raised nothing) is found
// as two change points.
func TestChangePointsBump(t *testing.T) {
	// The stretch is placed by the deviations: the run before the bump
	// (1.04) is the highest of the low ones, and ranks alone would take
	// it into the bump.
	ys := []float64{1.02, 1.03, 1.01, 1.04, 1.02, 1.03, 1.01, 1.04,
		1.92, 1.95, 1.90, 1.93, 1.91, 1.94,
		1.00, 1.02, 1.03, 1.01, 1.04, 1.02}
	cps := ChangePoints(ys, 0.05, 3)
	if len(cps) != 2 || cps[0].Index != 8 || cps[1].Index != 14 || cps[0].Ratio() < 1.8 || cps[1].Ratio() > 0.6 {
		t.Fatalf("a bump on 8-13: %+v", cps)
	}
}
