package num

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestUint(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"0042", 42, true},
		{"9999999999999999999", 9999999999999999999, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"18446744073709551616", 0, false},
		{"99999999999999999999", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1_000", 0, false},
		{"0x10", 0, false},
		{" 1", 0, false},
		{"1.0", 0, false},
	} {
		got, ok := Uint(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseUint(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if gotB, okB := Uint([]byte(tt.in)); gotB != got || okB != ok {
			t.Errorf("parseUint([]byte(%q)) differs from the string's", tt.in)
		}
	}
}

func TestInt(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"+7", 7, true},
		{"-0", 0, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"-", 0, false},
		{"--1", 0, false},
	} {
		got, ok := Int(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := Count("9223372036854775808"); ok {
		t.Error("parseCount accepts more than an int64")
	}
}

func TestFloat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true},
		{"-0.5", -0.5, true},
		{"+.5", 0.5, true},
		{"5.", 5, true},
		{"1.5e+03", 1500, true},
		{"1E-2", 0.01, true},
		{"1e400", 0, false},
		{"nan", 0, false},
		{"-nan", 0, false},
		{"inf", 0, false},
		{"Infinity", 0, false},
		{"0x1p-2", 0, false},
		{"1_0", 0, false},
		{".", 0, false},
		{"", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{"1.2.3", 0, false},
		{"12%", 0, false},
	} {
		got, ok := Float(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseFloat(%q) = %g, %v; want %g, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if f, ok := NonNegFloat("-0.000"); !ok || math.Signbit(f) {
		t.Errorf("parseNonNegFloat(-0.000) = %g, %v; want 0, true", f, ok)
	}
	if _, ok := NonNegFloat("-0.001"); ok {
		t.Error("parseNonNegFloat accepts a negative number")
	}
	for in, want := range map[string]float64{"12.5%": 12.5, "(0.345%)": 0.345} {
		if got, ok := Percent(in); !ok || got != want {
			t.Errorf("parsePercent(%q) = %g, %v", in, got, ok)
		}
	}
	for _, in := range []string{"12.5", "(12.5%", "%", "()", "-1%"} {
		if _, ok := Percent(in); ok {
			t.Errorf("parsePercent(%q) accepted", in)
		}
	}
}

// FuzzShort: the short way reads what isDecimal accepts, to the bits
// strconv.ParseFloat returns, and the same from a string and from bytes.
func FuzzShort(f *testing.F) {
	for _, s := range []string{"1.271", "-0.000", "0.1", "999999999999999", "123456789.012345", ".5", "5.", "+3", "1e3", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := short(s)
		gotB, okB := short([]byte(s))
		if ok != okB || math.Float64bits(got) != math.Float64bits(gotB) {
			t.Fatalf("%q: string %v %v, bytes %v %v", s, got, ok, gotB, okB)
		}
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if !isDecimal(s) || err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: short %v (%x), strconv %v (%x) %v, isDecimal %v", s, got, math.Float64bits(got), want, math.Float64bits(want), err, isDecimal(s))
		}
	})
}

// FuzzParseFloat: ParseFloat gives strconv.ParseFloat's value, to the
// bit, and its error, for any text.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1.271", "-0", "0x1p-2", "inf", "-NaN", "1_0", "1e400", "9999999999999999", ".", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseFloat(s)
		want, wantErr := strconv.ParseFloat(s, 64)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%q: %v (%x) %v, strconv %v (%x) %v", s, got, math.Float64bits(got), err, want, math.Float64bits(want), wantErr)
		}
	})
}

// FuzzLeading: Leading reads the decimal strconv.ParseFloat reads in the
// text it says it read, to the bit, and stops where a decimal does.
func FuzzLeading(f *testing.F) {
	for _, s := range []string{"436.308..516.155", "5..6", "5.", "0.00 rows", "1e5", ".5", "1234567890123456", "-1", "12.5.6", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, n := Leading(s)
		if n == 0 {
			// Refused: no digit first, or more than 15 in the decimal.
			whole := len(s) - len(strings.TrimLeft(s, "0123456789"))
			digits := whole
			if rest := s[whole:]; whole > 0 && len(rest) > 1 && rest[0] == '.' && rest[1]-'0' <= 9 {
				digits += len(rest) - 1 - len(strings.TrimLeft(rest[1:], "0123456789"))
			}
			if got != 0 || digits > 0 && digits <= 15 {
				t.Fatalf("%q: nothing read (%v), but %d digits", s, got, digits)
			}
			return
		}
		want, err := strconv.ParseFloat(s[:n], 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: %v from %q, strconv %v %v", s, got, s[:n], want, err)
		}
		if n < len(s) && (s[n]-'0' <= 9 || s[n] == '.' && n+1 < len(s) && s[n+1]-'0' <= 9 && !strings.Contains(s[:n], ".")) {
			t.Fatalf("%q: stopped at %d, inside the decimal", s, n)
		}
	})
}

func TestQuote(t *testing.T) {
	if got := Quote("a\tb"); got != `"a\tb"` {
		t.Errorf("quoteClip = %s", got)
	}
	long := Quote(string(make([]byte, 100)))
	if len(long) > 260 || long[len(long)-3:] != "..." {
		t.Errorf("quoteClip(100 bytes) = %s", long)
	}
}
