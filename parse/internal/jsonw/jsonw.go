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
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"
	"unsafe"
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

// key writes an object's key, k already quoted with a "," before it and
// its ":" after (`,"name":`), the "," left out for an object's first; a
// value follows, for which it makes room for a number. k is a field's key
// (keyOf), which can be read keyWords bytes from its first byte or its
// second: a key up to that long is copied as one block, not appended (a
// record of twenty counters is mostly keys, which append copied through
// a call each).
func (e *enc) key(k string) {
	if cap(e.b)-len(e.b) < keyWords+maxUint || len(k) > keyWords {
		e.longKey(k)
		return
	}
	e.b = putKey(e.b, k, !e.comma)
	e.comma = true
}

// putKey writes key k after b, which has room for keyWords bytes more,
// without its "," when first.
func putKey(b []byte, k string, first bool) []byte {
	src, n := unsafe.Pointer(unsafe.StringData(k)), len(k)
	if first {
		src, n = unsafe.Add(src, 1), n-1
	}
	l := len(b)
	dst := unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), l)
	// Three 16-byte moves: the compiler copies a [48]byte through memmove.
	w0, w1, w2 := *(*[16]byte)(src), *(*[16]byte)(unsafe.Add(src, 16)), *(*[16]byte)(unsafe.Add(src, 32))
	*(*[16]byte)(dst), *(*[16]byte)(unsafe.Add(dst, 16)), *(*[16]byte)(unsafe.Add(dst, 32)) = w0, w1, w2
	return b[:l+n]
}

// longKey is key's way for a key longer than keyWords, or where e.b has
// not the room.
//
//go:noinline
func (e *enc) longKey(k string) {
	if !e.comma {
		k = k[1:]
	}
	e.comma = true
	e.b = slices.Grow(e.b, len(k)+keyWords+maxUint)
	e.b = append(e.b, k...)
}

// keyUint writes key k, as key does, and x, negative when neg: one call
// a number, not one for the key and one for the number (and it is most
// of a record's fields).
func (e *enc) keyUint(k string, x uint64, neg bool) {
	if cap(e.b)-len(e.b) < keyWords+maxUint+1 || len(k) > keyWords {
		e.longKey(k)
	} else {
		e.b = putKey(e.b, k, !e.comma)
		e.comma = true
	}
	if neg {
		e.b = append(e.b, '-')
	}
	e.b = putUint(e.b, x)
}

// keyInt is keyUint of an int64.
func (e *enc) keyInt(k string, x int64) {
	u := uint64(x)
	if x < 0 {
		u = -u // x's magnitude, math.MinInt64's too
	}
	e.keyUint(k, u, x < 0)
}

// keyWords is the longest key copied as a block, 48 bytes: names of
// up to 44 characters.
const keyWords = 48

// float writes f, or records ErrUnsupported for a NaN or an infinity.
func (e *enc) float(f float64) {
	var ok bool
	if e.b, ok = AppendFloat(e.b, f); !ok {
		e.fail(ErrUnsupported)
	}
}

const hex = "0123456789abcdef"

// AppendString appends s quoted as encoding/json writes it without HTML
// escaping: '"' and '\\' escaped, control characters as \b \f \n \r \t or
// \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u2028 and \u2029.
// A run of plain bytes is copied at once, found eight bytes at a time.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))) {
			i += 8
			continue
		}
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

// plain reports whether the eight bytes of w are all ASCII that a JSON
// string holds as it is: none below 0x20, nor '"' or '\\'. Where no byte
// has its top bit set, subtracting a value from every byte borrows out of
// a byte (setting its top bit) only where that byte is below the value:
// below 0x20, or zero once '"' or '\\' is xored away; so the test is
// exact, not a hint.
func plain(w uint64) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	return (w|(w-0x20*ones)|((w^'"'*ones)-ones)|((w^'\\'*ones)-ones))&tops == 0
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
	b = appendInt(b, int64(line))
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
