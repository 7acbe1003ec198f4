package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMinP(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		want   float64
	}{
		{3, 3, 0.1},      // 2/20
		{4, 3, 2.0 / 35}, // 0.057: still above 0.05
		{4, 4, 2.0 / 70},
		{5, 5, 2.0 / 252},
		{1, 1, 1},
		{0, 5, 1},
	} {
		if got := MinP(c.n1, c.n2); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.want)
		}
	}
	// MinP is what the test itself gives on fully separated samples.
	for n := 2; n <= 8; n++ {
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = float64(i+1), float64(100+i)
		}
		if _, p := mannWhitneyU(a, b); math.Abs(p-MinP(n, n)) > 1e-9 {
			t.Errorf("n=%d: separated samples give p=%v, MinP %v", n, p, MinP(n, n))
		}
	}
	if Testable(3, 3, 1, 0.05) || !Testable(4, 4, 1, 0.05) || Testable(5, 5, 32, 0.05) || !Testable(5, 5, 4, 0.05) {
		t.Error("Testable: 3 a side never reaches 0.05, 4 a side does; 5 a side does among 4 tests, not among 32")
	}
}

// TestRoundsNeededPower draws log-normal samples of the size RoundsNeeded
// gives and checks that the real Mann–Whitney test of this package finds
// the shift about as often as the power asked for: the formula is a
// promise to the reader, and this measures it.
func TestRoundsNeededPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		sigma, shift float64
		m            int
	}{
		{0.05, 0.05, 1}, {0.10, 0.05, 1}, {0.02, 0.05, 4}, {0.20, 0.10, 1},
	} {
		n := RoundsNeeded(c.sigma, c.shift, 0.05, 0.8, c.m)
		power := measuredPower(rng, n, c.sigma, c.shift, c.m)
		t.Logf("sigma %.2f, shift %.0f%%, m %d: %d a side, measured power %.3f", c.sigma, 100*c.shift, c.m, n, power)
		// The normal-theory size is rounded up and the test is exact, so
		// the power is at least about 0.8; it is no promise of much more
		// (an n twice too large would pass 0.8 too: checked at n/2).
		if power < 0.76 {
			t.Errorf("sigma %.2f, shift %.2f: %d a side found the shift %.1f%% of the time, want about 80%%", c.sigma, c.shift, n, 100*power)
		}
		if half := max(2, n/2); half < n && n > 8 {
			if p := measuredPower(rng, half, c.sigma, c.shift, c.m); p > 0.7 {
				t.Errorf("sigma %.2f: half the rounds (%d) still found the shift %.1f%% of the time: RoundsNeeded asks for too many", c.sigma, half, 100*p)
			}
		}
	}
	if RoundsNeeded(0, 0.05, 0.05, 0.8, 1) != 4 || RoundsNeeded(0, 0.05, 0.05, 0.8, 32) != 7 {
		t.Errorf("no spread: %d and %d, want the smallest testable n: 4, and 7 among 32 tests",
			RoundsNeeded(0, 0.05, 0.05, 0.8, 1), RoundsNeeded(0, 0.05, 0.05, 0.8, 32))
	}
	if RoundsNeeded(math.NaN(), 0.05, 0.05, 0.8, 1) != 0 {
		t.Error("an unknown spread gives an unknown count")
	}
}

// measuredPower is the share of 2,000 draws of n log-normal values a
// side, one side shifted, that this package's Mann–Whitney test finds at
// 0.05 among m tests.
func measuredPower(rng *rand.Rand, n int, sigma, shift float64, m int) float64 {
	const sims = 2000
	found := 0
	a, b := make([]float64, n), make([]float64, n)
	for range sims {
		for i := range a {
			a[i] = math.Exp(sigma * rng.NormFloat64())
			b[i] = (1 + shift) * math.Exp(sigma*rng.NormFloat64())
		}
		if _, p := mannWhitneyU(a, b); p < 0.05/float64(m) {
			found++
		}
	}
	return float64(found) / sims
}

func TestLogSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 4000)
	for i := range xs {
		xs[i] = 100 * math.Exp(0.1*rng.NormFloat64())
	}
	if s := LogSpread(xs); math.Abs(s-0.1) > 0.005 {
		t.Errorf("LogSpread of a log-normal with sigma 0.1 = %v", s)
	}
	if !math.IsNaN(LogSpread([]float64{5})) || !math.IsNaN(LogSpread([]float64{0, -1})) {
		t.Error("fewer than 2 positive values have no spread")
	}
}

func TestEquivalent(t *testing.T) {
	base := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1}
	same := []float64{100.3, 99.7, 100.1, 100.6, 99.4, 100, 99.9, 100.4}
	if eq, lo, hi, ok := Equivalent(base, same, 0.05, 0.05); !ok || !eq || lo < 0.99 || hi > 1.01 {
		t.Errorf("equal samples within 1%%: %v [%v, %v] %v", eq, lo, hi, ok)
	}
	far := []float64{103, 104, 102, 103.5, 102.5, 103.2, 102.8, 103.1}
	if eq, _, hi, ok := Equivalent(base, far, 0.02, 0.05); !ok || eq || hi < 1.02 {
		t.Errorf("3%% apart is not equivalent within 2%%: %v %v", eq, hi)
	}
	if _, _, _, ok := Equivalent(base[:2], same[:2], 0.05, 0.05); ok {
		t.Error("2 a side have no 90% interval")
	}
}
