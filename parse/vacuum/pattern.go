package vacuum

import (
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// A pattern is a line with placeholders: '#' stands for an integer, '~'
// for a decimal number, '%' for a name (up to the last occurrence in the
// line of the text that follows it in the pattern), "%%" for a percent
// sign, a part in brackets is optional ("# page[s]" is "1 page" and "2
// pages"), and any other byte stands for itself. (A percentage is "~%%":
// "(~% of total)" read "1e2% of total" as 1, its "e2" taken for a name.) Patterns are compiled once into segments, so that
// the text between the numbers is compared at once, not byte by byte.
type pattern struct {
	text string // as written
	segs []segment
}

// segment is a run of text, a placeholder, or the bounds of an optional
// group: kind is 0 for text, '#', '~', '%', '[' or ']'.
type segment struct {
	kind byte
	text string // the text; for '%', the text after it
	end  int    // for '[', the index of its ']'
	// A text's first and last eight bytes as little-endian words, to be
	// compared as such (see textSegment); one shorter is in first, the
	// rest of mask zero.
	first, last, mask uint64
}

// nums holds the numbers a pattern found: integers and decimals, in
// order, and the name.
//
// A number is read whole, however many digits it has: the line is the
// pattern's even when one of its numbers does not fit its type (WAL bytes
// are printed unsigned, up to 18446744073709551615; 13's tuples are
// doubles printed "%.0f"). Such a number is 0 in i or f, its bit is set in
// over (bit k for i[k], bit 8+k for f[k]) and its text kept in big, so
// that its field is left out, with a warning, rather than wrapped, zeroed,
// or the whole line lost.
type nums struct {
	i    [6]int64
	f    [3]float64
	n, m int    // how many of each
	name string // what '%' stood for
	over uint16
	big  [overFloat + 3]string // the text of each number that did not fit, by its bit; a part of the line
	neg  bool                  // a number read had a minus sign
}

// overFloat is the bit of over of the first decimal.
const overFloat = 8

// negative reports whether a number read is below zero (placeholder
// reads the sign; the fast path of prefix reads digits only).
func (v *nums) negative() bool { return v.neg }

// fits reports whether the integers whose bits are in mask fit an int64.
func (v *nums) fits(mask uint16) bool { return v.over&mask == 0 }

func compile(text string) pattern {
	p := pattern{text: text}
	open := -1
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '#' || c == '~' || c == '[' || c == ']' || c == '%' && !strings.HasPrefix(text[i:], "%%"):
			s := segment{kind: c}
			if c == '%' {
				s.text, _ = literal(text[i+1:])
			}
			if c == '[' {
				open = len(p.segs)
			}
			if c == ']' && open >= 0 {
				p.segs[open].end = len(p.segs)
				open = -1
			}
			p.segs = append(p.segs, s)
			i++
		default:
			lit, n := literal(text[i:])
			p.segs = append(p.segs, textSegment(lit))
			i += n
		}
	}
	return p
}

// literal is the text at the start of a pattern up to its next
// placeholder, "%%" read as "%", and the pattern's bytes it took.
func literal(text string) (string, int) {
	var b strings.Builder
	i := 0
	for i < len(text) {
		switch c := text[i]; {
		case strings.HasPrefix(text[i:], "%%"):
			b.WriteByte('%')
			i += 2
		case c == '#' || c == '~' || c == '%' || c == '[' || c == ']':
			return b.String(), i
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i
}

// match reports whether s is the pattern.
func (p *pattern) match(s string, v *nums) bool {
	rest, ok := p.prefix(s, v)
	return ok && rest == ""
}

// prefix matches the start of s, returning the rest. A group's numbers
// are counted only when it matched (v.n says which form the line was).
func (p *pattern) prefix(s string, v *nums) (string, bool) {
	v.n, v.m, v.over, v.neg = 0, 0, 0, false
	i := 0
	group := -1        // the open group's ']', or -1
	var gi, gn, gm int // i, v.n and v.m where the open group started
	var gneg bool      // and v.neg
	for k := 0; k < len(p.segs); k++ {
		sg := &p.segs[k]
		ok := true
		switch sg.kind {
		case 0: // text and integers are read here, not by calls: most of a line's time
			n := len(sg.text) // compared as words (see textSegment)
			switch {
			case len(s)-i < n:
				ok = false
			case n >= 8:
				ok = le64(s, i) == sg.first && le64(s, i+n-8) == sg.last && (n <= 16 || s[i+8:i+n-8] == sg.text[8:n-8])
			case len(s)-i >= 8:
				ok = le64(s, i)&sg.mask == sg.first
			default:
				ok = s[i:i+n] == sg.text
			}
			if ok {
				i += n
			}
		case '#':
			j := i
			var n int64
			for j < len(s) && s[j]-'0' <= 9 {
				n = n*10 + int64(s[j]-'0')
				j++
			}
			if j > i && j-i <= 18 && v.n < len(v.i) { // else a sign, or too many digits
				v.i[v.n], i = n, j
				v.n++
				continue
			}
			var next int
			if next, ok = placeholder(s, i, sg, v); ok {
				i = next
			}
		case '[':
			group, gi, gn, gm, gneg = sg.end, i, v.n, v.m, v.neg
		case ']':
			group = -1
		default:
			var next int
			if next, ok = placeholder(s, i, sg, v); ok {
				i = next
			}
		}
		if ok {
			continue
		}
		if group < 0 {
			return "", false
		}
		i, v.n, v.m, v.neg, k, group = gi, gn, gm, gneg, group, -1 // the group is absent
		v.over &= 1<<gn - 1 | (1<<gm-1)<<overFloat
	}
	return s[i:], true
}

// textSegment is the segment of a run of text, with the words prefix
// compares it as: a text of 8 to 16 bytes as its first and last eight
// (which overlap), a shorter one masked where the line has eight bytes
// left, a longer one with the bytes between compared as strings. A
// pattern's texts are short (" removed, ", "% of total)"), and the call
// that compared them as strings cost more than the comparing.
func textSegment(t string) segment {
	sg := segment{text: t}
	if len(t) >= 8 {
		sg.first, sg.last = le64(t, 0), le64(t, len(t)-8)
		return sg
	}
	for k := range len(t) {
		sg.first |= uint64(t[k]) << (8 * k)
		sg.mask |= 0xff << (8 * k)
	}
	return sg
}

// le64 is s[i:i+8] as a little-endian word, read in one load.
func le64(s string, i int) uint64 {
	b := s[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// placeholder matches a number or a name at s[i:], returning where it
// ends.
func placeholder(s string, i int, sg *segment, v *nums) (int, bool) {
	switch sg.kind {
	case '#':
		j := i
		if j < len(s) && s[j] == '-' {
			j++
		}
		k := j
		var n int64
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			n = n*10 + int64(s[k]-'0') // wraps past 18 digits: read again below
			k++
		}
		if k == j || v.n == len(v.i) {
			return 0, false
		}
		if j > i {
			n, v.neg = -n, true
		}
		if k-j > 18 {
			var fits bool
			if n, fits = num.Int(s[i:k]); !fits {
				v.over |= 1 << v.n
				v.big[v.n] = s[i:k]
			}
		}
		v.i[v.n] = n
		v.n++
		return k, true
	case '~':
		j := i
		if j < len(s) && s[j] == '-' {
			j++
		}
		digits := 0
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			if s[j] != '.' {
				digits++
			}
			j++
		}
		if digits == 0 || v.m == len(v.f) {
			return 0, false
		}
		f, ok, fits := decimal(s[i:j])
		if !ok {
			return 0, false
		}
		if s[i] == '-' {
			v.neg = true
		}
		if !fits {
			f = 0
			v.over |= 1 << (overFloat + v.m)
			v.big[overFloat+v.m] = s[i:j]
		}
		v.f[v.m] = f
		v.m++
		return j, true
	case '%':
		k := lastIndex(s[i:], sg.text)
		if k <= 0 {
			return 0, false
		}
		v.name = s[i : i+k]
		return i + k, true
	}
	return 0, false
}

// lastIndex is strings.LastIndex for the short lines and texts of
// patterns, where looking back for the text's first byte is faster than
// its hashing.
func lastIndex(s, text string) int {
	if text == "" {
		return len(s)
	}
	for k := len(s) - len(text); k >= 0; k-- {
		k = strings.LastIndexByte(s[:k+1], text[0])
		if k < 0 {
			return -1
		}
		if s[k:k+len(text)] == text {
			return k
		}
	}
	return -1
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimal parses a decimal number ("-12.345") as strconv.ParseFloat does,
// and as fast as the server's short numbers allow: up to 15 digits, the
// number and the power of ten are exact, so their quotient is the
// correctly rounded value ParseFloat returns. Longer ones go to it. fits
// is false for a number beyond a float64's range (over 309 digits), which
// ParseFloat makes infinite.
func decimal(s string) (f float64, ok, fits bool) {
	t := s
	neg := t != "" && t[0] == '-'
	if neg {
		t = t[1:]
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			digits = 16 // ParseFloat says what it is
		}
	}
	if digits == 0 || digits > 15 {
		f, err := strconv.ParseFloat(s, 64)
		ne, isNum := err.(*strconv.NumError)
		return f, err == nil || isNum && ne.Err == strconv.ErrRange, err == nil
	}
	f = float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true, true
}

// atoi parses a decimal integer that is all of s, as '#' reads one; fits
// is false when it is one but does not fit an int64.
func atoi(s string) (n int64, ok, fits bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false, false
	}
	n, fits = num.Int(s)
	return n, true, fits
}
