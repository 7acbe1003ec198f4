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

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// cutEq splits "k=v" at its first "=", as strings.Cut does; v is empty
// without one.
func cutEq(kv string) (k, v string) {
	if i := strings.IndexByte(kv, '='); i >= 0 {
		return kv[:i], kv[i+1:]
	}
	return kv, ""
}
