package vacuum

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestDecimal: decimal gives what strconv.ParseFloat gives, bit for bit,
// on the numbers the server prints and on others around them.
func TestDecimal(t *testing.T) {
	cases := []string{"0", "0.00", "-0.00", "99.53", "100.00", "12.", ".5", "-.5", "0.001", "123456789012345",
		"1234567890123456", "0.000000000000001", "9007199254740993", "1.2.3", "-", ".", "1e5", "12a",
		strings.Repeat("9", 308), strings.Repeat("9", 309) + ".5", "-" + strings.Repeat("9", 400)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		whole := strconv.FormatUint(rng.Uint64N(1e9), 10)
		frac := strconv.FormatUint(rng.Uint64N(1e6), 10)
		cases = append(cases, whole+"."+frac, "-"+whole+"."+frac, frac+"."+whole)
	}
	for _, s := range cases {
		want, err := strconv.ParseFloat(s, 64)
		got, ok, fits := decimal(s)
		if fits != (err == nil) || fits && math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("decimal(%.20q) = %v, %v; ParseFloat gives %v, %v", s, got, fits, want, err)
		}
		// A number beyond a float64's range is a number all the same.
		if ok != (err == nil || errors.Is(err, strconv.ErrRange)) {
			t.Errorf("decimal(%.20q): ok %v; ParseFloat's error %v", s, ok, err)
		}
	}
}

// TestLastIndex: lastIndex finds what strings.LastIndex finds.
func TestLastIndex(t *testing.T) {
	for _, s := range []string{"", `"`, `t_pkey": pages: 1`, `a": pages: ": pages: 2`, `": pages: `, `x": pages:`} {
		for _, text := range []string{`": pages: `, `"`, "", "x"} {
			if got, want := lastIndex(s, text), strings.LastIndex(s, text); got != want {
				t.Errorf("lastIndex(%q, %q) = %d; want %d", s, text, got, want)
			}
		}
	}
}

// TestPatternPercent: "%%" in a pattern is a percent sign, so that a
// percentage is the number before it and nothing else: "(~% of total)"
// took "1e2% of total" for 1 and a name "e2".
func TestPatternPercent(t *testing.T) {
	p := compile("# scanned (~%% of total)")
	for _, c := range []struct {
		line string
		ok   bool
		pct  float64
	}{
		{"7 scanned (12.50% of total)", true, 12.5},
		{"7 scanned (100.00% of total)", true, 100},
		{"7 scanned (1e2% of total)", false, 0},
		{"7 scanned (12.5%% of total)", false, 0},
		{"7 scanned (12.5 of total)", false, 0},
		{"7 scanned (12.5% x of total)", false, 0},
	} {
		var v nums
		ok := p.match(c.line, &v)
		if ok != c.ok || ok && (v.f[0] != c.pct || v.i[0] != 7) {
			t.Errorf("%q: match %v, %v %v; want %v, %v", c.line, ok, v.i[0], v.f[0], c.ok, c.pct)
		}
	}
	if q := compile(`index "%": ~%%`); len(q.segs) != 5 || q.segs[1].kind != '%' || q.segs[1].text != `": ` || q.segs[4].kind != 0 || q.segs[4].text != "%" {
		t.Errorf(`index "%%": ~%%%%: segments %+v`, q.segs)
	}
}
