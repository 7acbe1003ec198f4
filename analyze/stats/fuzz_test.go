package stats

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// fuzzScales multiply the fuzzed integers: exact powers of two keep every ratio exact, the others
// reach huge, subnormal and inexact values.
var fuzzScales = []float64{1, 0x1p-1050, 0x1p900, 1e-300, 1e300, 0.001}

// FuzzCompare feeds Compare and Summarize arbitrary samples, ties, zeros, single values and equal
// samples included, and checks what must hold whatever the data: no panic, p in [0, 1], U in
// range, an interval that holds the Hodges–Lehmann estimate and, with distinct values and a
// power-of-two scale, excludes 1 exactly when the comparison is significant.
func FuzzCompare(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 3, 0, 4, 0, 5}, uint8(5), uint8(0))
	f.Add([]byte{0, 7, 0, 7, 0, 7, 0, 7}, uint8(2), uint8(1))
	f.Add([]byte{0, 1, 0, 9}, uint8(1), uint8(2))
	f.Add([]byte{1, 0, 2, 0, 3, 0, 4, 0, 9, 0, 8, 0, 7, 0, 6, 0}, uint8(4), uint8(3))
	f.Add([]byte{0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5}, uint8(3), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, split, mode uint8) {
		vals := make([]float64, 0, len(data)/2)
		scale := fuzzScales[int(mode)%len(fuzzScales)]
		for i := 0; i+1 < len(data) && len(vals) < 120; i += 2 {
			vals = append(vals, float64(binary.BigEndian.Uint16(data[i:]))*scale)
		}
		k := min(int(split), len(vals))
		base, x := slices.Clone(vals[:k]), slices.Clone(vals[k:])
		c := Compare(base, x, 0.95, 0.05)

		if !c.CIValid && (c.Lo != 0 || c.Hi != 0) {
			t.Fatalf("invalid interval [%v, %v] is not zero", c.Lo, c.Hi)
		}
		if !(c.P >= 0 && c.P <= 1) {
			t.Fatalf("P = %v", c.P)
		}
		if !(c.U >= 0 && c.U <= float64(len(base)*len(x))) {
			t.Fatalf("U = %v for %d and %d values", c.U, len(base), len(x))
		}
		if want := len(base) > 0 && len(x) > 0 && max(len(base), len(x)) >= 4; c.PValid != want {
			t.Fatalf("PValid = %v for %d and %d values", c.PValid, len(base), len(x))
		}
		if c.Significant && (!c.PValid || c.P >= 0.05) {
			t.Fatalf("significant with P = %v, PValid %v", c.P, c.PValid)
		}
		if !slices.Equal(base, vals[:k]) || !slices.Equal(x, vals[k:]) {
			t.Fatalf("Compare modified its input")
		}
		for _, s := range []Summary{Summarize(base, 0.95), Summarize(x, 0.95)} {
			if s.N > 0 && !(s.Min <= s.Q1 && s.Q1 <= s.Median && s.Median <= s.Q3 && s.Q3 <= s.Max) ||
				s.CIValid && !(s.Min <= s.Lo && s.Lo <= s.Median && s.Median <= s.Hi && s.Hi <= s.Max) ||
				!s.CIValid && (s.Lo != 0 || s.Hi != 0) {
				t.Fatalf("Summary out of order: %+v", s)
			}
			if _, err := json.Marshal(s); err != nil {
				t.Fatalf("Summary does not encode as JSON: %v", err)
			}
		}
		if !c.CIValid {
			return
		}
		if slices.Min(vals) <= 0 {
			t.Fatalf("interval from non-positive values: %+v", c)
		}
		if !(c.Lo <= c.Hi) {
			t.Fatalf("interval [%v, %v]", c.Lo, c.Hi)
		}
		var ratios []float64
		for _, b := range base {
			for _, v := range x {
				ratios = append(ratios, v/b)
			}
		}
		slices.Sort(ratios)
		if hl := ratios[(len(ratios)-1)/2]; !(c.Lo <= hl && hl <= c.Hi) {
			t.Fatalf("interval [%v, %v] misses the Hodges–Lehmann estimate %v", c.Lo, c.Hi, hl)
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		distinct := len(slices.Compact(sorted)) == len(vals)
		pow2 := scale == math.Ldexp(1, math.Ilogb(scale)) && scale > 0x1p-1000
		if distinct && pow2 && len(base) <= exactLimit && len(x) <= exactLimit {
			if excl := c.Lo > 1 || c.Hi < 1; excl != (c.P < 0.05) {
				t.Fatalf("interval [%v, %v] excludes 1: %v, but P = %v", c.Lo, c.Hi, excl, c.P)
			}
		}
	})
}
