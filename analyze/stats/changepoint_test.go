package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestChangePointsStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var ys []float64
	for i := range 20 {
		level := 100.0
		if i >= 10 {
			level = 130
		}
		ys = append(ys, level*(1+0.02*rng.NormFloat64()))
	}
	cps := ChangePoints(ys, 0.05, 3)
	if len(cps) != 1 || cps[0].Index != 10 || cps[0].P >= 0.01 || cps[0].Method != "permutation" ||
		math.Abs(cps[0].Before-100) > 3 || math.Abs(cps[0].After-130) > 4 {
		t.Fatalf("one step at 10: %+v", cps)
	}
	// Two steps: up then back down.
	ys = ys[:0]
	for i := range 36 {
		level := 100.0
		if i >= 12 && i < 24 {
			level = 140
		}
		ys = append(ys, level*(1+0.02*rng.NormFloat64()))
	}
	cps = ChangePoints(ys, 0.05, 3)
	if len(cps) != 2 || cps[0].Index != 12 || cps[1].Index != 24 {
		t.Fatalf("steps at 12 and 24: %+v", cps)
	}
	// Determinism: the same answer, whatever ran between.
	again := ChangePoints(ys, 0.05, 3)
	ChangePoints(ys[:20], 0.05, 3)
	if third := ChangePoints(ys, 0.05, 3); len(again) != len(cps) || again[0] != cps[0] || third[1] != cps[1] {
		t.Fatalf("not deterministic: %+v, %+v, %+v", cps, again, third)
	}
}

// TestChangePointsFalseAlarms: on series without a step the first split
// is kept about alpha of the time (a permutation test is exact).
func TestChangePointsFalseAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const series = 400
	alarms := 0
	for range series {
		ys := make([]float64, 20)
		for i := range ys {
			ys[i] = math.Exp(0.3 * rng.NormFloat64())
		}
		if len(ChangePoints(ys, 0.05, 3)) > 0 {
			alarms++
		}
	}
	rate := float64(alarms) / series
	t.Logf("false alarms at 0.05: %.3f over %d series of 20", rate, series)
	if rate < 0.02 || rate > 0.08 {
		t.Errorf("false-alarm rate %.3f, want about 0.05", rate)
	}
}

// TestPettittU: U_t from ranks is Σ_{i<t} Σ_{j≥t} sign(y_i − y_j), the
// Mann–Whitney statistic between the two sides, with ties.
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

// TestChangePointsLarge: 100,000 values take the asymptotic branch and
// find a 5% step within 200 values of where it is.
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
	if len(cps) == 0 || cps[0].Method != "asymptotic" || math.Abs(float64(cps[0].Index-60000)) > 200 {
		t.Fatalf("%+v", cps)
	}
	if ChangePoints([]float64{1, 2, math.NaN(), 4, 5, 6}, 0.05, 1) != nil || ChangePoints([]float64{1, 1, 1, 1, 1, 1, 1}, 0.05, 2) != nil {
		t.Error("NaN or constant series")
	}
}

func BenchmarkChangePoints(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{20, 100000} {
		ys := make([]float64, n)
		for i := range ys {
			ys[i] = rng.NormFloat64()
		}
		b.Run(map[int]string{20: "n=20", 100000: "n=100000"}[n], func(b *testing.B) {
			for range b.N {
				ChangePoints(ys, 0.05, 3)
			}
		})
	}
}
