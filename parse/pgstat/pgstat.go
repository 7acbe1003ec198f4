// Package pgstat reads the rows of PostgreSQL's statistics views as the
// collector records them: one flat JSON object per row, as row_to_json
// prints it (numbers, strings, booleans and nulls; a nested value is read
// past). It reads a row in one pass, without decoding it into a map or
// copying its strings, as an analysis reads millions of them.
//
// Each reader (ParseIO, ParseWAL, ParseAIO, ParseVacuumCounts,
// ParseRelationSize, ParseActivity, ParseSetting):
//
//  1. scans the object's keys and values with fields;
//  2. keeps the fields of its view, typed; a field the server did not
//     print, or printed as null, is not Valid (pg_stat_io's read_bytes is
//     18's, op_bytes older servers');
//  3. refuses text that is not one JSON object with a *parse.SyntaxError
//     naming the source.
package pgstat

import (
	"encoding/json"
	"strconv"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// Num is a number a row may lack: Valid is false when the field was
// absent or null. A quoted number reads as a number; other text as 0.
type Num struct {
	V     float64
	Valid bool
}

// Value is one field's value, as written in the row.
type Value struct {
	raw  string // the value's text; a string's without its quotes
	kind byte   // '"' a string, 'n' null, '0' a number, 't' a boolean, '{' a nested value
	esc  bool   // the string has escapes
}

// Null reports whether the value is null.
func (v Value) Null() bool { return v.kind == 'n' }

// Num is the value as a number.
func (v Value) Num() Num {
	switch v.kind {
	case 'n', '{', 't':
		return Num{}
	}
	if f, ok := num.Float(v.raw); ok { // a counter's digits, without strconv
		return Num{f, true}
	}
	f, _ := strconv.ParseFloat(v.raw, 64)
	return Num{f, true}
}

// Text is the value as text: a string's content, unescaped, or the
// value as written.
func (v Value) Text() string {
	if v.kind == '"' && v.esc {
		var s string
		if json.Unmarshal([]byte(`"`+v.raw+`"`), &s) == nil {
			return s
		}
	}
	return v.raw
}

// fields calls field for each key of the flat JSON object row, in order.
// The key is as written (without quotes, escapes left as they are).
func fields(row, source string, field func(key string, v Value)) error {
	s := scanner{s: row, source: source}
	s.space()
	if !s.byte('{') {
		return s.fail("expected a JSON object")
	}
	s.space()
	if s.byte('}') {
		return s.end()
	}
	for {
		s.space()
		key, _, ok := s.str()
		if !ok {
			return s.fail("expected a key")
		}
		s.space()
		if !s.byte(':') {
			return s.fail("expected ':' after a key")
		}
		s.space()
		v, ok := s.value()
		if !ok {
			return s.fail("expected a value")
		}
		field(key, v)
		s.space()
		if s.byte(',') {
			continue
		}
		if s.byte('}') {
			return s.end()
		}
		return s.fail("expected ',' or '}'")
	}
}

// scanner reads a row from its start.
type scanner struct {
	s      string
	i      int
	source string
}

func (s *scanner) space() {
	for s.i < len(s.s) && (s.s[s.i] == ' ' || s.s[s.i] == '\t' || s.s[s.i] == '\n' || s.s[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) byte(c byte) bool {
	if s.i < len(s.s) && s.s[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string, returning its text without the quotes. A string
// without escapes (the keys, most values) is read by a loop that tests
// two bytes (strings.IndexByte's call cost more on short keys), one with
// escapes by the general loop.
func (s *scanner) str() (text string, esc, ok bool) {
	if !s.byte('"') {
		return "", false, false
	}
	start := s.i
	i := start
	for i < len(s.s) && s.s[i] != '"' && s.s[i] != '\\' {
		i++
	}
	if i < len(s.s) && s.s[i] == '"' {
		s.i = i + 1
		return s.s[start:i], false, true
	}
	for s.i < len(s.s) {
		switch s.s[s.i] {
		case '"':
			s.i++
			return s.s[start : s.i-1], esc, true
		case '\\':
			esc = true
			s.i++
		}
		s.i++
	}
	s.i = start - 1 // the error points at the open quote
	return "", false, false
}

func (s *scanner) value() (Value, bool) {
	if s.i >= len(s.s) {
		return Value{}, false
	}
	switch c := s.s[s.i]; {
	case c == '"':
		text, esc, ok := s.str()
		return Value{raw: text, kind: '"', esc: esc}, ok
	case c == '{' || c == '[':
		start := s.i
		ok := s.nested()
		return Value{raw: s.s[start:s.i], kind: '{'}, ok
	case c == '-' || c >= '0' && c <= '9':
		start := s.i
		for s.i < len(s.s) && isNumberByte(s.s[s.i]) {
			s.i++
		}
		return Value{raw: s.s[start:s.i], kind: '0'}, true
	}
	for _, w := range [...]string{"null", "true", "false"} {
		if len(s.s)-s.i >= len(w) && s.s[s.i:s.i+len(w)] == w {
			s.i += len(w)
			kind := byte('t')
			if w == "null" {
				kind = 'n'
			}
			return Value{raw: w, kind: kind}, true
		}
	}
	return Value{}, false
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// nested reads past an object or an array, strings and all.
func (s *scanner) nested() bool {
	depth := 0
	for s.i < len(s.s) {
		switch s.s[s.i] {
		case '"':
			if _, _, ok := s.str(); !ok {
				return false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		}
		s.i++
	}
	return false
}

// end checks that nothing but space follows the object.
func (s *scanner) end() error {
	s.space()
	if s.i != len(s.s) {
		return s.fail("text after the object")
	}
	return nil
}

func (s *scanner) fail(msg string) error {
	found := "the end"
	if s.i < len(s.s) {
		found = parse.Quote(s.s[s.i:])
	}
	return parse.Errorf(s.source, 0, "%s at byte %d, found %s; expected a row of a statistics view as JSON", msg, s.i, found)
}
