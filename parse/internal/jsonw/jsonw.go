// Package jsonw appends JSON objects to a []byte exactly as an
// encoding/json Encoder with SetEscapeHTML(false) writes them (compact,
// fields in the order written, "omitempty" as the writer's Opt and Omit
// methods say), for the records a command streams by the million: the
// reflection of encoding/json cost several times what parsing them did.
// A type's writer is checked against encoding/json by its tests.
package jsonw

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// ErrUnsupported is set for a float JSON cannot hold (NaN, ±Inf), where
// encoding/json fails: the caller then lets encoding/json write the value
// and report its own error.
var ErrUnsupported = errors.New("jsonw: NaN or infinite float")

// Enc is the JSON being appended to B. Err is the first value it could
// not write.
type Enc struct {
	B     []byte
	Err   error
	comma bool // a value was written at this level: the next needs a ","
}

// Open starts an object (a record, or an element of an array).
func (e *Enc) Open() {
	if e.comma {
		e.B = append(e.B, ',')
	}
	e.B = append(e.B, '{')
	e.comma = false
}

// Close ends an object.
func (e *Enc) Close() {
	e.B = append(e.B, '}')
	e.comma = true
}

// OpenObject starts an object under key k (a struct-valued field);
// Close ends it.
func (e *Enc) OpenObject(k string) {
	e.Key(k)
	e.B = append(e.B, '{')
	e.comma = false
}

// OpenArray starts an array under key k; its elements are objects.
func (e *Enc) OpenArray(k string) {
	e.Key(k)
	e.B = append(e.B, '[')
	e.comma = false
}

// CloseArray ends an array.
func (e *Enc) CloseArray() {
	e.B = append(e.B, ']')
	e.comma = true
}

// Key writes an object's key; k is a struct tag's name, which needs no
// escaping. A value follows.
func (e *Enc) Key(k string) {
	if e.comma {
		e.B = append(e.B, ',')
	}
	e.B = append(e.B, '"')
	e.B = append(e.B, k...)
	e.B = append(e.B, '"', ':')
	e.comma = true
}

// String writes a string field.
func (e *Enc) String(k, v string) {
	e.Key(k)
	e.B = AppendString(e.B, v)
}

// OmitString writes a string field unless it is empty (omitempty).
func (e *Enc) OmitString(k, v string) {
	if v != "" {
		e.String(k, v)
	}
}

// Bool writes a bool field.
func (e *Enc) Bool(k string, v bool) {
	e.Key(k)
	e.B = strconv.AppendBool(e.B, v)
}

// OmitBool writes a bool field if it is true (omitempty).
func (e *Enc) OmitBool(k string, v bool) {
	if v {
		e.Bool(k, v)
	}
}

// Int writes an integer field.
func (e *Enc) Int(k string, v int64) {
	e.Key(k)
	e.B = strconv.AppendInt(e.B, v, 10)
}

// Uint writes an unsigned integer field.
func (e *Enc) Uint(k string, v uint64) {
	e.Key(k)
	e.B = strconv.AppendUint(e.B, v, 10)
}

// OptInt writes a *int64 field unless it is nil (omitempty).
func (e *Enc) OptInt(k string, v *int64) {
	if v != nil {
		e.Int(k, *v)
	}
}

// OptFloat writes a *float64 field unless it is nil (omitempty).
func (e *Enc) OptFloat(k string, v *float64) {
	if v == nil {
		return
	}
	e.Key(k)
	var ok bool
	if e.B, ok = AppendFloat(e.B, *v); !ok && e.Err == nil {
		e.Err = ErrUnsupported
	}
}

// AppendFloat appends f as encoding/json writes a float64 (as ES6 does:
// 'f' between 1e-6 and 1e21, else 'e' with an unpadded exponent); false
// for NaN and ±Inf, which JSON cannot hold.
func AppendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
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
