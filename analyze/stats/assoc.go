package stats

import (
	"math"
	"slices"
)

// CramersV is the association between two categorical variables from
// their table of counts (rows by columns): √(χ²/(N·(min(r, c) − 1))),
// from 0 (independent: every row spread over the columns alike) to 1 (each
// row always in the same column, each column always the same row). Rows
// and columns without a count are left out; fewer than 2 of either give
// 0, as nothing can then be associated.
func CramersV(counts [][]float64) float64 {
	var rows []float64
	cols := map[int]float64{}
	var n float64
	for _, r := range counts {
		var sum float64
		for j, c := range r {
			sum += c
			cols[j] += c
		}
		if sum > 0 {
			rows = append(rows, sum)
		}
		n += sum
	}
	nc := 0
	for _, c := range cols {
		if c > 0 {
			nc++
		}
	}
	k := min(len(rows), nc)
	if k < 2 || n == 0 {
		return 0
	}
	var chi2 float64
	for _, r := range counts {
		var rs float64
		for _, c := range r {
			rs += c
		}
		if rs == 0 {
			continue
		}
		for j, c := range r {
			if cols[j] == 0 {
				continue
			}
			e := rs * cols[j] / n
			chi2 += (c - e) * (c - e) / e
		}
	}
	return math.Min(1, math.Sqrt(chi2/(n*float64(k-1))))
}

// Precedes is the share of pairs (x from xs, y from ys) in which x comes
// first, ties counting one half: 1 when every x comes before every y, 0.5
// when the two are interleaved evenly. Applied to the times runs
// started, it says whether one configuration's runs all came before
// another's.
func Precedes(xs, ys []float64) float64 {
	if len(xs) == 0 || len(ys) == 0 {
		return math.NaN()
	}
	// Counted over sorted copies, in n log n: a long study has thousands of
	// runs a side. Twice the sum, so that it stays a whole number.
	sx, sy := slices.Clone(xs), slices.Clone(ys)
	slices.Sort(sx)
	slices.Sort(sy)
	var twice, lo, hi int
	for _, x := range sx {
		for lo < len(sy) && sy[lo] < x {
			lo++
		}
		hi = max(hi, lo)
		for hi < len(sy) && sy[hi] <= x {
			hi++
		}
		twice += 2*(len(sy)-hi) + (hi - lo) // ys after x, and ys equal to it
	}
	return float64(twice) / 2 / float64(len(xs)*len(ys))
}
