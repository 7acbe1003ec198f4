package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCramersV(t *testing.T) {
	for _, c := range []struct {
		name   string
		counts [][]float64
		want   float64
	}{
		// configurations by positions
		{"fixed order, 4 configurations, 5 rounds", [][]float64{{5, 0, 0, 0}, {0, 5, 0, 0}, {0, 0, 5, 0}, {0, 0, 0, 5}}, 1},
		{"rotated, 2 configurations, 4 rounds", [][]float64{{2, 2}, {2, 2}}, 0},
		{"rotated, 2 configurations, 5 rounds", [][]float64{{3, 2}, {2, 3}}, 0.2},
		{"one swap in 5 rounds", [][]float64{{4, 1}, {1, 4}}, 0.6},
		{"one configuration", [][]float64{{3, 2}}, 0},
		{"empty", nil, 0},
	} {
		if got := CramersV(c.counts); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: V = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPrecedes(t *testing.T) {
	if p := Precedes([]float64{1, 2, 3}, []float64{4, 5}); p != 1 {
		t.Errorf("all before: %v", p)
	}
	if p := Precedes([]float64{1, 3}, []float64{2, 4}); p != 0.75 {
		t.Errorf("a,b,a,b: %v", p)
	}
	if p := Precedes([]float64{1, 4}, []float64{2, 3}); p != 0.5 {
		t.Errorf("a,b,b,a: %v", p)
	}
	if !math.IsNaN(Precedes(nil, []float64{1})) {
		t.Error("no runs: NaN")
	}
	// Every pair counted as the definition says, ties and unsorted input
	// included, against the n·m count.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		xs, ys := make([]float64, 1+rng.IntN(30)), make([]float64, 1+rng.IntN(30))
		for _, v := range [][]float64{xs, ys} {
			for i := range v {
				v[i] = float64(rng.IntN(12))
			}
		}
		var s float64
		for _, x := range xs {
			for _, y := range ys {
				if x < y {
					s++
				} else if x == y {
					s += 0.5
				}
			}
		}
		if want, got := s/float64(len(xs)*len(ys)), Precedes(xs, ys); got != want {
			t.Fatalf("trial %d: Precedes(%v, %v) = %v, want %v", trial, xs, ys, got, want)
		}
	}
}
