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
	"bytes"
	"encoding/json"
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
	for k > 0 && n%10 == 0 {
		n, k = n/10, k-1
	}
	if f < 0 {
		b = append(b, '-')
	}
	p := uint64(scales[k])
	whole := n / p
	b = strconv.AppendUint(b, whole, 10)
	if k == 0 {
		return b, true
	}
	frac := n - whole*p
	var d [len(scales) - 1]byte
	for i := k - 1; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	return append(append(b, '.'), d[:k]...), true
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

// Tagged starts a record of a stream that yields records of several
// kinds (pgbench's progress lines, messages and summary): an object whose
// first fields are "kind" and "line". The caller appends the object of the
// record's own fields, which starts at mark, and Join makes the two one
// object, {"kind":"progress","line":12,"time_s":...}: flat, so that a
// table loaded from the lines has a column a field, whatever the kind.
func Tagged(b []byte, kind string, line int) (out []byte, mark int) {
	b = append(b, `{"kind":`...)
	b = AppendString(b, kind)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	return b, len(b)
}

// Join ends a Tagged record whose own object was appended to b from
// mark: its "{" becomes a ",", or an empty object, "{}", is dropped.
func Join(b []byte, mark int) []byte {
	if len(b) < mark+2 || b[mark] != '{' {
		return b // not an object: left for the caller's check to refuse
	}
	if b[mark+1] == '}' {
		return append(b[:mark], '}')
	}
	b[mark] = ','
	return b
}

// AppendTagged appends a Tagged record whose own fields are v's, written
// by s.
func AppendTagged[T any](b []byte, kind string, line int, s *Struct[T], v *T) ([]byte, error) {
	b, mark := Tagged(b, kind, line)
	b, err := s.Append(b, v)
	return Join(b, mark), err
}

// MarshalTagged is AppendTagged through encoding/json, v a struct or a
// pointer to one: a record's MarshalJSON, the reference its AppendJSON is
// checked against.
func MarshalTagged(kind string, line int, v any) ([]byte, error) {
	b, mark := Tagged(nil, kind, line)
	b, err := AppendEncoded(b, v)
	if err != nil {
		return nil, err
	}
	return Join(b, mark), nil
}

// AppendEncoded appends v as an encoding/json Encoder with
// SetEscapeHTML(false) writes it, without the newline: the reference a
// record's MarshalJSON builds on, where its AppendJSON uses a Struct.
func AppendEncoded(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
