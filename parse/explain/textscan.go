package explain

import "strings"

// fields yields the fields of a string as strings.Fields splits it,
// without the slice and without FieldsSeq's calls through closures, which
// took a sixth of the text parser's time: ASCII is split here, and from
// the first byte beyond ASCII on, the rest by strings.Fields (a field
// starts after a space either way, so the two agree).
type fields struct {
	s      string
	slow   []string
	isSlow bool
}

var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// next is the next field; false at the end.
func (f *fields) next() (string, bool) {
	if f.isSlow {
		if len(f.slow) == 0 {
			return "", false
		}
		field := f.slow[0]
		f.slow = f.slow[1:]
		return field, true
	}
	s := f.s
	i := 0
	for i < len(s) && asciiSpace[s[i]] {
		i++
	}
	j := i
	for j < len(s) && !asciiSpace[s[j]] {
		if s[j] >= 0x80 {
			f.isSlow, f.slow = true, strings.Fields(s[i:])
			return f.next()
		}
		j++
	}
	f.s = s[j:]
	if i == j {
		return "", false
	}
	return s[i:j], true
}

// cutEq splits "k=v" at its first "=", as strings.Cut does; v is empty
// without one.
func cutEq(kv string) (k, v string) {
	if i := strings.IndexByte(kv, '='); i >= 0 {
		return kv[:i], kv[i+1:]
	}
	return kv, ""
}
