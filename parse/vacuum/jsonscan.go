package vacuum

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
)

// A scanner of the flat JSON objects that jsonlog.c and the collector's
// notices write, one a line: encoding/json cost most of reading them.
// It reads only what it reads exactly as encoding/json would, and says
// no to the rest, which the caller then decodes with encoding/json (which
// also says what is wrong with a bad line).

// scanFlat reads b, a JSON object of string and scalar values without
// white space or nesting, calling set with each key and its value: a
// string's text with its escapes undone (in place when it has none, else
// appended to *scratch, which the values of one object share), or a
// number, true, false or null as written. set returns false for a value
// it does not take (a number for a text field, null, a key that matches
// a known one only with another case, as encoding/json's would). false
// for any other shape, and for text encoding/json reads differently: a
// \u escape, bytes that are not UTF-8 (which it replaces), a control
// character (which it refuses).
func scanFlat(b []byte, scratch *[]byte, set func(key, val []byte, str bool) bool) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' || !plainText(b) {
		return false
	}
	for i := 1; i < len(b)-1; {
		if b[i] != '"' {
			return false
		}
		end := bytes.IndexByte(b[i+1:], '"')
		if end < 0 || i+end+2 >= len(b) || b[i+end+2] != ':' {
			return false
		}
		key := b[i+1 : i+1+end]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		var val []byte
		var str, ok bool
		val, i, str, ok = jsonValue(b, i+end+3, scratch)
		if !ok || !set(key, val, str) {
			return false
		}
		switch {
		case b[i] == ',' && i+1 < len(b)-1: // a key must follow
			i++
		case i != len(b)-1:
			return false
		}
	}
	return true
}

// plainText reports whether b has no control character and is UTF-8: a
// JSON line encoding/json reads as the scanner does. Eight bytes at a
// time: a line is mostly ASCII text.
func plainText(b []byte) bool {
	const lows, highs = 0x0101010101010101, 0x8080808080808080
	high := false
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// A byte under 0x20 has its top bit set by the subtraction where
		// it was clear (bytes from 0x80 are told apart by x itself).
		if (x-0x20*lows)&^x&highs != 0 {
			return false
		}
		if x&highs != 0 {
			high = true
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return false
		}
		if b[i] >= 0x80 {
			high = true
		}
	}
	return !high || utf8.Valid(b)
}

// jsonValue reads the value at b[i]: a string (val is its text, escapes
// undone) or a scalar; next is the index after it.
func jsonValue(b []byte, i int, scratch *[]byte) (val []byte, next int, str, ok bool) {
	if i >= len(b) {
		return nil, i, false, false
	}
	if b[i] != '"' {
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' {
			j++
		}
		return b[i:j], j, false, isScalar(b[i:j])
	}
	if q := bytes.IndexByte(b[i+1:], '"'); q >= 0 && bytes.IndexByte(b[i+1:i+1+q], '\\') < 0 {
		return b[i+1 : i+1+q], i + q + 2, true, true // no escapes: the bytes themselves
	}
	start := len(*scratch)
	*scratch, next, ok = unescapeString(*scratch, b, i+1)
	return (*scratch)[start:], next, true, ok
}

// isScalar reports whether b is a JSON number, true, false or null.
func isScalar(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	}
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		k := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - k
	}
	switch n := digits(); {
	case n == 0, n > 1 && b[i-n] == '0':
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}

// unescapeString reads the JSON string whose text starts at b[j], to
// its closing quote: next is the index after it. Its text, escapes
// undone, is appended to dst, a run between escapes at a time; false for
// \u (rare in a server's messages: encoding/json then reads the line), a
// bad escape or no closing quote.
func unescapeString(dst, b []byte, j int) (out []byte, next int, ok bool) {
	q := -1 // the next quote at or after j, escaped or not
	for {
		if q < j {
			k := bytes.IndexByte(b[j:], '"')
			if k < 0 {
				return dst, j, false
			}
			q = j + k
		}
		k := bytes.IndexByte(b[j:q], '\\')
		if k < 0 {
			return append(dst, b[j:q]...), q + 1, true
		}
		dst = append(dst, b[j:j+k]...)
		j += k + 1 // the escaped byte
		if j == len(b) {
			return dst, j, false
		}
		switch c := b[j]; c {
		case '"', '\\', '/':
			dst = append(dst, c)
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		default:
			return dst, j, false
		}
		j++
	}
}

// foldsTo reports whether key is one of names but for the case of its
// ASCII letters, or has a byte outside ASCII: encoding/json would set
// that name's field from it (it matches keys without regard to case), so
// the scanner leaves such a line to it.
func foldsTo(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	for _, n := range names {
		if len(n) == len(key) && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}
