package jsonw

import (
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// Numbers as encoding/json writes them, into room made once a number:
// strconv's AppendInt and AppendUint were a tenth of writing a record of
// counters (diskstats), most of it the calls and the copy from their own
// buffer.

// pow10 are the powers of ten a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// pairs are the two digits of 0 to 99.
const pairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// maxUint is the most bytes a uint64 takes, and an int64 with its sign.
const maxUint = 20

// digits is the number of decimal digits of x: from its bits, a
// logarithm in base 10 that is right or one too many.
func digits(x uint64) int {
	t := (bits.Len64(x) * 1233) >> 12 // ⌊log10(2) · bits⌋
	if x >= pow10[t] {
		return t + 1
	}
	return max(t, 1)
}

// appendUint appends x in decimal, as strconv.AppendUint(b, x, 10) does.
func appendUint(b []byte, x uint64) []byte {
	if cap(b)-len(b) < maxUint {
		b = slices.Grow(b, maxUint)
	}
	return putUint(b, x)
}

// putUint writes x in decimal after b, which has room for maxUint bytes
// more: the digits written in place, two at a time from the last.
func putUint(b []byte, x uint64) []byte {
	n := len(b)
	if x < 10 {
		b = b[:n+1]
		b[n] = byte('0' + x)
		return b
	}
	i := n + digits(x)
	b = b[:i]
	for x >= 100 {
		q := x / 100
		r := (x - q*100) * 2
		i -= 2
		b[i], b[i+1] = pairs[r], pairs[r+1]
		x = q
	}
	if x >= 10 {
		b[n], b[n+1] = pairs[2*x], pairs[2*x+1]
	} else {
		b[n] = byte('0' + x)
	}
	return b
}

// appendInt appends x in decimal, as strconv.AppendInt(b, x, 10) does.
func appendInt(b []byte, x int64) []byte {
	if x < 0 {
		// -x as a uint64 is its magnitude, math.MinInt64's too.
		return appendUint(append(b, '-'), uint64(-x))
	}
	return appendUint(b, uint64(x))
}

// AppendFloat appends f as encoding/json writes a float64 (as ES6 does:
// 'f' between 1e-6 and 1e21, else 'e' with an unpadded exponent); false
// for NaN and ±Inf, which JSON cannot hold.
func AppendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	if d, ok := appendDecimal(b, f); ok {
		return d, true
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// scales are the powers of ten appendDecimal tries: up to three places.
var scales = [...]float64{1, 10, 100, 1000}

// appendDecimal appends f when it is a decimal of at most three places
// and fewer than 16 digits (a time in ms, a percentage or MB/s as the
// server prints them: all the figures of the vacuum fixtures, pgbench's
// and sysbench's), as strconv writes it, without strconv's general search
// for the shortest digits, which cost a third of writing a record. false
// for any other f.
//
// Why the digits are strconv's: n/10^k reads back as f when
// float64(n)/10^k == f (both are n/10^k correctly rounded); two decimals
// of 15 digits or fewer never read as the same float64, so no shorter
// one does, and n/10^k without its trailing zeros is the shortest. One
// test, at the most places that keep n under 10^15, finds it: a decimal
// of fewer places is one of that many too (n is within 0.5 of f·10^k,
// and is that decimal's digits followed by zeros), where a test a number
// of places cost a division each.
func appendDecimal(b []byte, f float64) ([]byte, bool) {
	a := math.Abs(f)
	if !(a >= 1e-3 && a < 1e15) { // 0 and -0 too
		return b, false
	}
	k := len(scales) - 1
	for a*scales[k] >= 1e15 {
		k--
	}
	n := uint64(a*scales[k] + 0.5)
	if float64(n)/scales[k] != a {
		return b, false
	}
	// n's digits, the point put k from their end, without its trailing
	// zeros (and no division by 10^k, which the compiler cannot make a
	// multiplication as it makes n/10 one).
	var room [maxUint]byte
	d := putUint(room[:0], n)
	for k > 0 && d[len(d)-1] == '0' {
		d, k = d[:len(d)-1], k-1
	}
	if f < 0 {
		b = append(b, '-')
	}
	switch whole := len(d) - k; {
	case k == 0:
		return append(b, d...), true
	case whole > 0:
		b = append(append(b, d[:whole]...), '.')
	default: // below 1: 0.005
		b = append(b, "0.00"[:2-whole]...)
	}
	return append(b, d[max(len(d)-k, 0):]...), true
}
