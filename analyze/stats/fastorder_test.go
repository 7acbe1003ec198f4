package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFastOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		n := 300 + rng.IntN(400)
		xs, ys := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = float64(i*3 + rng.IntN(3))
			ys[i] = 1 + 0.1*rng.NormFloat64() + float64(rng.IntN(3))*0.01
			if rng.IntN(10) == 0 {
				ys[i] = 1
			}
		}
		var s int64
		var slopes []float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if ys[j] > ys[i] {
					s++
				} else if ys[j] < ys[i] {
					s--
				}
				slopes = append(slopes, (ys[j]-ys[i])/(xs[j]-xs[i]))
			}
		}
		if got := mannKendallS(ys); got != s {
			t.Fatalf("S %d, want %d", got, s)
		}
		slices.Sort(slopes)
		h := len(slopes) / 2
		want := slopes[h]
		if len(slopes)%2 == 0 {
			want = (slopes[h-1] + slopes[h]) / 2
		}
		got := senSlope(xs, ys)
		if d := got - want; d > 1e-12*max(1, -want, want) || -d > 1e-12*max(1, -want, want) {
			t.Errorf("sen %v, want %v", got, want)
		}
		m := 30 + rng.IntN(100)
		a, b := ys[:m], ys[m:2*m]
		var ratios []float64
		for _, x := range a {
			for _, y := range b {
				ratios = append(ratios, y/x)
			}
		}
		slices.Sort(ratios)
		k := 1 + rng.IntN(len(ratios)/2)
		lo, hi := ratioOrders(a, b, k)
		if lo != ratios[k-1] || hi != ratios[len(ratios)-k] {
			t.Errorf("ratio orders %v %v, want %v %v", lo, hi, ratios[k-1], ratios[len(ratios)-k])
		}
	}
}
