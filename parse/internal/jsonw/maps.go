package jsonw

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// pair is an entry of a map being written.
type pair struct {
	k string
	v any
}

// writeMap writes m as an object of its entries sorted by key as
// encoding/json sorts a map's keys (byte order), each value by value. The
// entries are sorted at the end of e.pairs, above those of the maps m is
// in, and released after.
func writeMap[V any](e *enc, m map[string]V, value func(V)) {
	start := len(e.pairs)
	e.pairs = slices.Grow(e.pairs, len(m))
	for k, v := range m {
		e.pairs = append(e.pairs, pair{k, v})
	}
	if ps := e.pairs[start:]; len(ps) > 1 {
		slices.SortFunc(ps, func(a, b pair) int { return strings.Compare(a.k, b.k) })
	}
	// A nested map's entries go after end, and are released before
	// value returns; e.pairs may move, so each entry is read by index.
	end := len(e.pairs)
	e.b = append(e.b, '{')
	for i := start; i < end; i++ {
		if i > start {
			e.b = append(e.b, ',')
		}
		p := e.pairs[i]
		e.b = append(AppendString(e.b, p.k), ':')
		v, _ := p.v.(V) // a nil of map[string]any is no V: its zero, nil
		value(v)
	}
	e.b = append(e.b, '}')
	e.pairs = e.pairs[:start]
}

// mapString writes m, not nil, as an object of its entries sorted by key.
func (e *enc) mapString(m map[string]string) {
	writeMap(e, m, func(v string) { e.b = AppendString(e.b, v) })
}

// mapAny writes m as an object of its entries sorted by key, or null.
func (e *enc) mapAny(m map[string]any) {
	if m == nil {
		e.b = append(e.b, "null"...)
		return
	}
	if !e.enter() {
		return
	}
	writeMap(e, m, e.any)
	e.depth--
}

// any writes a value of a map[string]any as encoding/json writes it: the
// values a JSON decoder gives (nil, bool, string, json.Number, float64,
// []any, map[string]any); any other type is left to encoding/json.
func (e *enc) any(v any) {
	switch v := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case string:
		e.b = AppendString(e.b, v)
	case bool:
		e.b = strconv.AppendBool(e.b, v)
	case json.Number:
		e.number(string(v))
	case float64:
		e.float(v)
	case []any:
		e.list(v)
	case map[string]any:
		e.mapAny(v)
	default:
		e.fail(ErrUnsupported)
	}
}

// list writes a []any, or null.
func (e *enc) list(l []any) {
	if l == nil {
		e.b = append(e.b, "null"...)
		return
	}
	if !e.enter() {
		return
	}
	e.b = append(e.b, '[')
	for i, v := range l {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.any(v)
	}
	e.b = append(e.b, ']')
	e.depth--
}

// number writes a json.Number as it is ("" as 0, as encoding/json
// does), or fails on one that is not a JSON number.
func (e *enc) number(s string) {
	if s == "" {
		s = "0"
	}
	if !validNumber(s) {
		e.fail(ErrUnsupported)
		return
	}
	e.b = append(e.b, s...)
}

// validNumber reports whether s is a number as JSON writes it
// (RFC 8259), as encoding/json checks a json.Number before writing it.
func validNumber(s string) bool {
	digits := func() {
		for s != "" && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	s = strings.TrimPrefix(s, "-")
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		digits()
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		digits()
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
		}
		if s == "" || s[0] < '0' || s[0] > '9' {
			return false
		}
		digits()
	}
	return s == ""
}
