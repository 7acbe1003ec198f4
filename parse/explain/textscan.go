package explain

import (
	"strings"
	"unicode"
	"unicode/utf8"
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

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// cutEq splits "k=v" at its first "=", as strings.Cut does; v is empty
// without one.
func cutEq(kv string) (k, v string) {
	if i := strings.IndexByte(kv, '='); i >= 0 {
		return kv[:i], kv[i+1:]
	}
	return kv, ""
}
