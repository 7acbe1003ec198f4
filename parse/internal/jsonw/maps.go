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

// sortedPairs appends the entries of m (built by add) to e.pairs, sorted
// by key as encoding/json sorts a map's keys (byte order), and returns
// them and where they start, for release.
func (e *enc) sortedPairs(n int, add func(func(k string, v any))) ([]pair, int) {
	start := len(e.pairs)
	e.pairs = slices.Grow(e.pairs, n)
	add(func(k string, v any) { e.pairs = append(e.pairs, pair{k, v}) })
	ps := e.pairs[start:]
	if len(ps) > 1 {
		slices.SortFunc(ps, func(a, b pair) int { return strings.Compare(a.k, b.k) })
	}
	return ps, start
}

// mapString writes m, not nil, as an object of its entries sorted by key.
func (e *enc) mapString(m map[string]string) {
	ps, start := e.sortedPairs(len(m), func(add func(string, any)) {
		for k, v := range m {
			add(k, v)
		}
	})
	e.b = append(e.b, '{')
	for i, p := range ps {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(AppendString(e.b, p.k), ':')
		e.b = AppendString(e.b, p.v.(string))
	}
	e.b = append(e.b, '}')
	e.pairs = e.pairs[:start]
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
	ps, start := e.sortedPairs(len(m), func(add func(string, any)) {
		for k, v := range m {
			add(k, v)
		}
	})
	e.b = append(e.b, '{')
	for i, p := range ps {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(AppendString(e.b, p.k), ':')
		e.any(p.v)
	}
	e.b = append(e.b, '}')
	e.pairs = e.pairs[:start]
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
