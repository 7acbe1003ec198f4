package explain

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// field cuts the first field off s as strings.Fields splits it: field is
// "" when s has none left. It keeps no state (an iterator's state, stored
// through a pointer at every field, ran the write barrier while the
// collector marked), and reads ASCII by a table; from a byte beyond ASCII
// it decodes runes and asks unicode.IsSpace, as strings.Fields does.
func field(s string) (f, rest string) {
	i := skip(s, true)
	j := i + skip(s[i:], false)
	return s[i:j], s[j:]
}

// skip is the length of the run of white space (space is true) or of
// other runes that starts s.
func skip(s string, space bool) int {
	i := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiSpace[c] != space {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) != space {
			return i
		}
		i += size
	}
	return i
}

// cut is strings.Cut(s, sep) by a search for sep's first byte, then a
// look at the rest: strings.Cut's general search took a twentieth of the
// parser's time on the short lines of a plan, whose separators (": ",
// ", ", "..") come early.
func cut(s, sep string) (before, after string, found bool) {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], sep[0])
		if j < 0 {
			break
		}
		i += j
		if strings.HasPrefix(s[i:], sep) {
			return s[:i], s[i+len(sep):], true
		}
		i++
	}
	return s, "", false
}

// The figures of a node line's groups, as the server prints them.
type (
	costFigures struct {
		startup, total, rows float64
		width                int64
	}
	actualFigures struct {
		startup, total, rows float64
		loops                int64
		timed                bool // "time=" was printed (TIMING on)
	}
)

// scanCost reads "cost=0.00..1.23 rows=4 width=5" exactly as the server
// prints it, in one pass: literals, decimals of digits and a point
// (num.Leading) and a whole number of digits. ok is false for any other
// text, which the caller then reads field by field (costFields), which
// gives the same figures for the text this reads: a field is cut at a
// space, a decimal holds no "..", and num.Leading gives strconv's value.
// Straight code, not a scanner's methods: half the time.
func scanCost(g string) (c costFigures, ok bool) {
	var n int
	s, ok := strings.CutPrefix(g, "cost=")
	if c.startup, n = num.Leading(s); !ok || n == 0 {
		return c, false
	}
	if s, ok = strings.CutPrefix(s[n:], ".."); !ok {
		return c, false
	}
	if c.total, n = num.Leading(s); n == 0 {
		return c, false
	}
	if s, ok = strings.CutPrefix(s[n:], " rows="); !ok {
		return c, false
	}
	if c.rows, n = num.Leading(s); n == 0 {
		return c, false
	}
	if s, ok = strings.CutPrefix(s[n:], " width="); !ok {
		return c, false
	}
	c.width, ok = wholeAll(s)
	return c, ok
}

// scanActual reads "time=0.1..2.3 rows=4.00 loops=1" (or without
// "time=..."), as scanCost reads its group.
func scanActual(g string) (a actualFigures, ok bool) {
	var n int
	s := g
	if s, a.timed = strings.CutPrefix(s, "time="); a.timed {
		if a.startup, n = num.Leading(s); n == 0 {
			return a, false
		}
		if s, ok = strings.CutPrefix(s[n:], ".."); !ok {
			return a, false
		}
		if a.total, n = num.Leading(s); n == 0 || n == len(s) || s[n] != ' ' {
			return a, false
		}
		s = s[n+1:]
	}
	if s, ok = strings.CutPrefix(s, "rows="); !ok {
		return a, false
	}
	if a.rows, n = num.Leading(s); n == 0 {
		return a, false
	}
	if s, ok = strings.CutPrefix(s[n:], " loops="); !ok {
		return a, false
	}
	a.loops, ok = wholeAll(s)
	return a, ok
}

// wholeAll reads s, all of it, as a whole number of up to 18 digits.
func wholeAll(s string) (int64, bool) {
	v, n := leadingWhole(s)
	return v, n > 0 && n == len(s)
}

// leadingWhole reads the digits that start s, up to 18 (which an int64
// holds), as atoi reads them; n is how many.
func leadingWhole(s string) (v int64, n int) {
	for n < len(s) && n < 18 && s[n]-'0' <= 9 {
		v = v*10 + int64(s[n]-'0')
		n++
	}
	return v, n
}

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// cutEq splits "k=v" at its first "=", as strings.Cut does; v is empty
// without one.
func cutEq(kv string) (k, v string) {
	if i := strings.IndexByte(kv, '='); i >= 0 {
		return kv[:i], kv[i+1:]
	}
	return kv, ""
}
