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

// figureScan reads a group of figures exactly as the server prints it,
// "cost=0.00..1.23 rows=4 width=5", in one pass: literals, decimals of
// digits and a point (num.Leading) and whole numbers of digits. ok turns
// false at the first text that is not so, and the caller then reads the
// group field by field as before, which gives the same figures for the
// text this reads: a field is cut at a space, a decimal holds no "..",
// and num.Leading gives strconv's value.
type figureScan struct {
	s  string
	ok bool
}

// lit reads p.
func (c *figureScan) lit(p string) {
	if c.ok && strings.HasPrefix(c.s, p) {
		c.s = c.s[len(p):]
		return
	}
	c.ok = false
}

// opt reads p if the text starts with it.
func (c *figureScan) opt(p string) bool {
	if strings.HasPrefix(c.s, p) {
		c.s = c.s[len(p):]
		return true
	}
	return false
}

// dec reads a decimal.
func (c *figureScan) dec() float64 {
	f, n := num.Leading(c.s)
	c.ok = c.ok && n > 0
	c.s = c.s[n:]
	return f
}

// whole reads a whole number of up to 18 digits.
func (c *figureScan) whole() int64 {
	v, i := leadingWhole(c.s)
	c.ok = c.ok && i > 0
	c.s = c.s[i:]
	return v
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

// done reports whether every read succeeded and the text is all read.
func (c *figureScan) done() bool { return c.ok && c.s == "" }

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// cutEq splits "k=v" at its first "=", as strings.Cut does; v is empty
// without one.
func cutEq(kv string) (k, v string) {
	if i := strings.IndexByte(kv, '='); i >= 0 {
		return kv[:i], kv[i+1:]
	}
	return kv, ""
}
