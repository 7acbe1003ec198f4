// Package jsonw appends JSON objects to a []byte exactly as an
// encoding/json Encoder with SetEscapeHTML(false) writes them (compact,
// the fields in the struct's order, "omitempty" as the tags say), for the
// records a command streams by the million: the reflection of
// encoding/json cost several times what parsing them did. A Struct reads
// a type's fields and tags once (see struct.go), so the struct is the one
// definition of its JSON; the tests compare every writer with
// encoding/json.
package jsonw

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// ErrUnsupported is set for a value encoding/json fails on or that jsonw
// leaves to it: a float JSON cannot hold (NaN, ±Inf), a json.Number that
// is not a number, a value of a map[string]any of a type jsonw does not
// know, or values nested deeper than maxDepth (a cycle). The caller then
// lets encoding/json write the value and report its own error, if any.
var ErrUnsupported = errors.New("jsonw: a value left to encoding/json (NaN or infinite float, invalid number, unknown type or too deep)")

// enc is the JSON being appended to b. err is the first value it could
// not write.
type enc struct {
	b     []byte
	err   error
	comma bool // a value was written at this level: the next needs a ","
	depth int  // the objects being written, one in another
	// pairs holds the entries of the maps being written, each map's
	// sorted at the end of those of the maps it is in, reused.
	pairs []pair
}

// maxDepth bounds the objects and arrays written one in another: deeper
// is a cycle, as likely as not, which encoding/json reports.
const maxDepth = 1 << 14

// enter counts an object or array about to be written, false (and
// ErrUnsupported) past maxDepth or after an error: its caller writes
// nothing, and ends with depth--, only if it is true.
func (e *enc) enter() bool {
	if e.depth >= maxDepth || e.err != nil {
		e.fail(ErrUnsupported)
		return false
	}
	e.depth++
	return true
}

// room doubles b's room when a large record (past 1 MiB: a plan of
// thousands of nodes) has less than 4 KiB left, before an object: append's
// own growth, by a quarter at that size, copied a record of 300 MB four
// times over, and cleared the room of each copy, touching memory not yet
// written (a fresh allocation from the system is zero already). Smaller
// records grow as append grows them.
func (e *enc) room() {
	if cap(e.b)-len(e.b) >= 4<<10 || len(e.b) < 1<<20 {
		return
	}
	b := make([]byte, len(e.b), 2*cap(e.b))
	copy(b, e.b)
	e.b = b
}

// fail records err unless an error came first.
func (e *enc) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// open starts an object, after a "," where a value came before it at
// this level (an array's element).
func (e *enc) open() {
	if e.comma {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '{')
	e.comma = false
}

// close ends an object or an array with c.
func (e *enc) close(c byte) {
	e.b = append(e.b, c)
	e.comma = true
}

// key writes an object's key, k already quoted with its ":" (`"name":`);
// a value follows.
func (e *enc) key(k string) {
	if e.comma {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, k...)
	e.comma = true
}

// float writes f, or records ErrUnsupported for a NaN or an infinity.
func (e *enc) float(f float64) {
	var ok bool
	if e.b, ok = AppendFloat(e.b, f); !ok {
		e.fail(ErrUnsupported)
	}
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
// server prints them: all the figures of the vacuum fixtures), as
// strconv writes it, without strconv's general search for the shortest
// digits, which cost a third of writing a record. false for any other f.
//
// Why the digits are strconv's: n/10^k reads back as f when
// float64(n)/10^k == f (both are n/10^k correctly rounded); two decimals
// of 15 digits or fewer never read as the same float64, so no shorter
// one does, and n/10^k is the shortest; and the smallest k is found
// first (n is within 0.5 of f·10^k), which a trailing 0 would belie.
func appendDecimal(b []byte, f float64) ([]byte, bool) {
	a := math.Abs(f)
	if !(a >= 1e-3 && a < 1e15) { // 0 and -0 too
		return b, false
	}
	for k, p := range scales {
		x := a * p
		if x >= 1e15 {
			return b, false
		}
		n := uint64(x + 0.5)
		if float64(n)/p != a {
			continue
		}
		if k > 0 && n%10 == 0 {
			return b, false
		}
		if f < 0 {
			b = append(b, '-')
		}
		whole := n / uint64(p)
		b = strconv.AppendUint(b, whole, 10)
		if k == 0 {
			return b, true
		}
		frac := n - whole*uint64(p)
		var d [len(scales) - 1]byte
		for i := k - 1; i >= 0; i-- {
			d[i] = byte('0' + frac%10)
			frac /= 10
		}
		return append(append(b, '.'), d[:k]...), true
	}
	return b, false
}

const hex = "0123456789abcdef"

// AppendString appends s quoted as encoding/json writes it without HTML
// escaping: '"' and '\\' escaped, control characters as \b \f \n \r \t or
// \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
// A run of plain bytes is copied at once.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
