package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// markdownText makes text from a capture safe in a Markdown table cell or
// paragraph: no line breaks, pipes, HTML or emphasis markers that would
// change the document around it.
func markdownText(s string) string {
	rs := []rune(s)
	word := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || r == utf8.RuneError:
			// A terminal escape in a capture must not reach a terminal.
			b.WriteRune(utf8.RuneError)
		case strings.ContainsRune("|\\`*[]<", r),
			r == '~' && strings.Count(s, "~") > 1, // a lone ~ (not significant) strikes nothing through
			r == '_' && !(word(i-1) && word(i+1)), // r_await needs no escape; _x_ does
			(r == '#' || r == '>') && i == 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// PlainText makes text from a capture safe on one line of a terminal: line
// breaks become spaces and other control characters (a terminal escape)
// U+FFFD, so that it can neither forge a line nor move the cursor.
func PlainText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r):
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}
