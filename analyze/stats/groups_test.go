package stats

import (
	"math"
	"testing"
)

func TestKruskalWallis(t *testing.T) {
	tests := []struct {
		name   string
		groups [][]float64
		want   Groups
	}{
		// R: kruskal.test(list(x, y, z)) from its help page (Hollander & Wolfe 1973, p. 116):
		// Kruskal-Wallis chi-squared = 0.77143, df = 2, p-value = 0.68. With 2 degrees of
		// freedom the chi-squared tail is exp(−H/2).
		{"R example", [][]float64{
			{2.9, 3.0, 2.5, 2.6, 3.2},
			{3.8, 2.7, 4.0, 2.4},
			{2.8, 3.4, 3.7, 2.2, 2.0},
		}, Groups{H: 0.7714285714285714, P: math.Exp(-0.7714285714285714 / 2), EpsilonSq: 0.7714285714285714 / 13, DF: 2, Valid: true}},
		// Hand-worked with ties: ranks 1, 3, 3 | 3, 5, 6; H = (12/42·245/3 − 21)/(1 − 24/210)
		// = 245/93; with 1 degree of freedom the tail is erfc(√(H/2)).
		{"ties", [][]float64{{1, 2, 2}, {2, 3, 4}, {}},
			Groups{H: 245.0 / 93, P: math.Erfc(math.Sqrt(245.0 / 93 / 2)), EpsilonSq: 245.0 / 93 / 5, DF: 1, Valid: true}},
		{"one group", [][]float64{{1, 2, 3}, nil}, Groups{}},
		{"all equal", [][]float64{{1, 1}, {1, 1, 1}}, Groups{DF: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, w := KruskalWallis(tt.groups), tt.want
			if got.Valid != w.Valid || got.DF != w.DF || !near(got.H, w.H, 1e-12) || !near(got.P, w.P, 1e-9) ||
				!near(got.EpsilonSq, w.EpsilonSq, 1e-12) {
				t.Errorf("KruskalWallis\n got %+v\nwant %+v", got, w)
			}
		})
	}
}
