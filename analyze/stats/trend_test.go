package stats

import (
	"math"
	"slices"
	"testing"
)

// enumeratedKendallP is P(|S| ≥ |s|) by enumerating every order of n distinct values.
func enumeratedKendallP(ys []float64) float64 {
	s := func(v []float64) int {
		var s int
		for i := range v {
			for j := i + 1; j < len(v); j++ {
				switch {
				case v[j] > v[i]:
					s++
				case v[j] < v[i]:
					s--
				}
			}
		}
		return s
	}
	obs := abs(s(ys))
	perm := slices.Clone(ys)
	slices.Sort(perm)
	var hit, all int
	for {
		all++
		if abs(s(perm)) >= obs {
			hit++
		}
		if !nextPermutation(perm) {
			break
		}
	}
	return float64(hit) / float64(all)
}

func nextPermutation(a []float64) bool {
	i := len(a) - 2
	for i >= 0 && a[i] >= a[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(a) - 1
	for a[j] <= a[i] {
		j--
	}
	a[i], a[j] = a[j], a[i]
	slices.Reverse(a[i+1:])
	return true
}

func TestMannKendall(t *testing.T) {
	// Hand-worked with ties: 1, 2, 2, 3 has S = 5; one pair of ties gives
	// σ² = (4·3·13 − 2·1·9)/18 = 23/3 and tau-b = 5/√(5·6); the six slopes 1, ½, ⅔, 0, ½, 1
	// have median (½ + ⅔)/2.
	zTies := 4 / math.Sqrt(23.0/3)
	tests := []struct {
		name   string
		xs, ys []float64
		want   Trend
		slope  float64
	}{
		// Exact without ties: 2 of the 5! orders have |S| = 10.
		{"increasing", nil, []float64{1, 2, 3, 4, 5}, Trend{N: 5, S: 10, Z: 9 / math.Sqrt(5*4*15/18.0), P: 2.0 / 120, Tau: 1, Valid: true}, 1},
		{"decreasing over xs", []float64{0, 10, 20, 30}, []float64{4, 3, 2, 1},
			Trend{N: 4, S: -6, Z: -5 / math.Sqrt(4*3*13/18.0), P: 2.0 / 24, Tau: -1, Valid: true}, -0.1},
		{"ties", nil, []float64{1, 2, 2, 3},
			Trend{N: 4, S: 5, Z: zTies, P: math.Erfc(zTies / math.Sqrt2), Tau: 5 / math.Sqrt(30), Valid: true}, (0.5 + 2.0/3) / 2},
		{"no trend", nil, []float64{1, 3, 2}, Trend{N: 3, S: 1, Z: 0, P: 1, Tau: 1.0 / 3, Valid: true}, 0.5},
		{"too short", nil, []float64{1, 2}, Trend{N: 2}, 0},
		{"all equal", nil, []float64{7, 7, 7, 7}, Trend{N: 4}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, w := MannKendall(tt.ys), tt.want
			if got.N != w.N || got.Valid != w.Valid || got.S != w.S || !near(got.Z, w.Z, 1e-12) || !near(got.P, w.P, 1e-12) ||
				!near(got.Tau, w.Tau, 1e-12) {
				t.Errorf("MannKendall(%v)\n got %+v\nwant %+v", tt.ys, got, w)
			}
			if slope := SenSlope(tt.xs, tt.ys); w.Valid && !near(slope, tt.slope, 1e-12) {
				t.Errorf("SenSlope(%v, %v) = %v, want %v", tt.xs, tt.ys, slope, tt.slope)
			}
		})
	}
}

func TestMannKendallExactByEnumeration(t *testing.T) {
	for _, ys := range [][]float64{
		{3, 1, 4, 1.5, 5, 9, 2.6},
		{10, 9, 8, 7, 11, 6, 5},
		{1, 2, 3, 4, 5, 6, 8, 7},
		{4, 2, 6, 1, 3, 5},
	} {
		got := MannKendall(ys)
		if want := enumeratedKendallP(ys); !got.Valid || !near(got.P, want, 1e-12) {
			t.Errorf("MannKendall(%v).P = %v, enumeration gives %v", ys, got.P, want)
		}
	}
}

// TestMannKendallLong checks the normal approximation used above 50 values: a long rising series
// is a trend, a long alternating one is not.
func TestMannKendallLong(t *testing.T) {
	rising, zigzag := make([]float64, 60), make([]float64, 60)
	for i := range rising {
		rising[i] = float64(i) + 5*math.Sin(float64(i))
		zigzag[i] = float64(i % 2)
	}
	if tr := MannKendall(rising); !tr.Valid || tr.P > 1e-6 || tr.S <= 0 || !near(SenSlope(nil, rising), 1, 0.2) {
		t.Errorf("rising: %+v", tr)
	}
	if tr := MannKendall(zigzag); !tr.Valid || tr.P < 0.5 {
		t.Errorf("zigzag: %+v", tr)
	}
}
