package parse_test

import (
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/pgstudy/pgstudy/parse"
)

// TestExcerpt: a line up to MaxExcerpt bytes is quoted whole; a longer
// one is cut at a character boundary at most MaxExcerpt bytes in, and
// says how long it was.
func TestExcerpt(t *testing.T) {
	k := parse.MaxExcerpt
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short", "\tWAL usage: 1 records", "\tWAL usage: 1 records"},
		{"empty", "", ""},
		{"at the bound", strings.Repeat("x", k), strings.Repeat("x", k)},
		{"one byte over", strings.Repeat("x", k+1), strings.Repeat("x", k) + "... [cut: a line of 1025 bytes]"},
		// "é" is 2 bytes: the one across the bound is left out whole.
		{"a character across the bound", strings.Repeat("x", k-1) + "é" + "yyy", strings.Repeat("x", k-1) + "... [cut: a line of 1028 bytes]"},
		{"a character at the bound", strings.Repeat("x", k-2) + "é" + "yyy", strings.Repeat("x", k-2) + "é... [cut: a line of 1027 bytes]"},
		// "€" is 3 bytes, a 4-byte character 4: cut before them.
		{"4 bytes across the bound", strings.Repeat("x", k-2) + "😀" + "z", strings.Repeat("x", k-2) + "... [cut: a line of 1027 bytes]"},
		// Bytes that are not UTF-8 (a LATIN1 log): cut at the bound.
		{"not UTF-8", strings.Repeat("\x80", k+10), strings.Repeat("\x80", k) + "... [cut: a line of 1034 bytes]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parse.Excerpt(tc.in); got != tc.want {
				t.Errorf("Excerpt(%d bytes) = %q (%d bytes)\nwant %q", len(tc.in), got, len(got), tc.want)
			}
			if got := parse.Excerpt([]byte(tc.in)); got != tc.want {
				t.Errorf("Excerpt([]byte) = %q, want %q", got, tc.want)
			}
			if utf8.ValidString(tc.in) && !utf8.ValidString(parse.Excerpt(tc.in)) {
				t.Errorf("Excerpt of valid UTF-8 is not valid UTF-8")
			}
		})
	}
}

// TestExcerptCopies: an excerpt is not a part of the line, which a parser
// reuses (its buffer) or which is the whole input.
func TestExcerptCopies(t *testing.T) {
	b := []byte("\tWAL usage: 1 records")
	e := parse.Excerpt(b)
	b[1] = 'X'
	if e != "\tWAL usage: 1 records" {
		t.Errorf("the excerpt changed with the line: %q", e)
	}
	long := strings.Repeat("y", 1<<20)
	if n := len(parse.Excerpt(long)); n > parse.MaxExcerpt+64 {
		t.Errorf("an excerpt of 1 MiB is %d bytes", n)
	}
}

// TestExcerptOfAView: a string that is a view of a reused buffer (as the
// parsers read their lines in place) is copied too.
func TestExcerptOfAView(t *testing.T) {
	b := []byte("\tWAL usage: 1 records")
	e := parse.Excerpt(unsafe.String(&b[0], len(b)))
	b[1] = 'X'
	if e != "\tWAL usage: 1 records" {
		t.Errorf("the excerpt changed with the buffer: %q", e)
	}
}
