// Package num parses the numbers the parsers read. Each helper accepts
// exactly the plain decimal forms tools print and reports ok=false for
// anything else, so that a parser can say which text was not a number
// instead of guessing.
package num

import (
	"math"
	"strconv"
)

// text is the input of the helpers: a line as bytes or as a string.
type text interface{ ~string | ~[]byte }

// Uint parses an unsigned decimal integer: ASCII digits only, no sign,
// spaces, underscores or base prefix. ok is false for anything else and on
// overflow of uint64.
func Uint[T text](s T) (n uint64, ok bool) {
	if len(s) == 0 {
		return 0, false
	}
	if len(s) <= 19 { // cannot overflow: 10^19-1 < 2^64
		for i := 0; i < len(s); i++ {
			d := uint64(s[i]) - '0'
			if d > 9 {
				return 0, false
			}
			n = n*10 + d
		}
		return n, true
	}
	for i := 0; i < len(s); i++ {
		d := uint64(s[i]) - '0'
		if d > 9 {
			return 0, false
		}
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// Int parses a decimal integer with an optional leading '-' or '+'.
// ok is false for anything else and when it does not fit in an int64.
func Int[T text](s T) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	u, ok := Uint(s)
	if !ok {
		return 0, false
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// Count parses a non-negative decimal integer that fits in an int64
// (a count printed by a tool, such as transactions or events).
func Count[T text](s T) (int64, bool) {
	u, ok := Uint(s)
	if !ok || u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// Float parses a finite decimal number as C's printf("%f") and
// ("%e") print it: an optional sign, digits with an optional fraction, and
// an optional exponent ("12", "-0.5", "1.5e+03"). It refuses NaN and
// infinities (printed "nan", "-nan", "inf"), hexadecimal floats and
// underscores, which strconv.ParseFloat would accept, and values that
// overflow a float64.
func Float[T text](s T) (float64, bool) {
	if f, ok := short(s); ok {
		return f, true
	}
	if !isDecimal(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// ParseFloat is strconv.ParseFloat(s, 64), the same value and error for
// every s (NaN, infinities, exponents and hexadecimal included), with the
// short way first: for a parser whose results must stay exactly what
// strconv gave, where Float refuses what a tool does not print.
func ParseFloat(s string) (float64, error) {
	if f, ok := short(s); ok {
		return f, nil
	}
	return strconv.ParseFloat(s, 64)
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// short reads the form tools print most, [+-]digits[.digits] with at most
// 15 digits, without strconv (nor, for bytes, the string it needs): the
// digits are an integer a float64 holds exactly, divided by a power of ten
// it holds exactly, and so rounded once, to the value strconv.ParseFloat
// returns. ok is false for any other text, which Float reads the long way.
func short[T text](s T) (float64, bool) {
	i := 0
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		i++
	}
	var n uint64
	digits, frac, point := 0, 0, false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			n = n*10 + uint64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f := float64(n) / pow10[frac]
	if s[0] == '-' {
		f = -f
	}
	return f, true
}

// Leading reads the decimal that starts s, digits and then, when a digit
// follows it, a point and more digits ("436.308" of "436.308..516.155"),
// to strconv.ParseFloat's value of s[:n], as short does: for a parser
// that reads a line's figures in place. n is 0 when s does not start with
// a digit, or the decimal has more than 15 digits.
func Leading(s string) (f float64, n int) {
	var v uint64
	i := 0
	for i < len(s) && s[i]-'0' <= 9 {
		v = v*10 + uint64(s[i]-'0')
		i++
	}
	if i == 0 {
		return 0, 0
	}
	digits, frac := i, 0
	if i+1 < len(s) && s[i] == '.' && s[i+1]-'0' <= 9 {
		for i++; i < len(s) && s[i]-'0' <= 9; i++ {
			v = v*10 + uint64(s[i]-'0')
			frac++
		}
	}
	if digits+frac > 15 {
		return 0, 0 // v may have wrapped; strconv reads it
	}
	return float64(v) / pow10[frac], i
}

// NonNegFloat is Float for quantities that cannot be negative
// (rates, durations, latencies); "-0" and "-0.000" count as zero.
func NonNegFloat[T text](s T) (float64, bool) {
	f, ok := Float(s)
	if !ok || f < 0 {
		return 0, false
	}
	return f + 0, true // -0 becomes 0
}

// isDecimal reports whether s is [+-]digits[.digits][(e|E)[+-]digits], with
// at least one digit before or after the point.
func isDecimal[T text](s T) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// Percent parses a percentage as tools print it, "12.5%" or
// "(12.5%)", returning 12.5.
func Percent(s string) (float64, bool) {
	if len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		s = s[1 : len(s)-1]
	}
	if len(s) == 0 || s[len(s)-1] != '%' {
		return 0, false
	}
	return NonNegFloat(s[:len(s)-1])
}

// Quote quotes s for a message, cut to about 60 bytes with "..." so
// that an error about a long line stays readable.
func Quote[T text](s T) string {
	const limit = 60
	if len(s) > limit {
		return strconv.Quote(string(s[:limit])) + "..."
	}
	return strconv.Quote(string(s))
}
