package parse

import "strconv"

// MaxExcerpt bounds the Text of a Warning: a line a parser did not
// understand may be up to MaxLine long (a file that is not the output it
// is said to be, a statement of megabytes logged on one line), and a
// warning that kept it whole would hold, and print, megabytes for each such
// line. 1 KiB is more than any line of the outputs the parsers read, so
// that a warning about a real line quotes it whole.
const MaxExcerpt = 1 << 10

// Excerpt is line as a Warning's Text: a copy of it, or, when it is longer
// than MaxExcerpt bytes, a copy of its first MaxExcerpt bytes cut back to a
// UTF-8 character boundary, then a marker that says how long the line
// was: "... [cut: a line of 66061247 bytes]". It never keeps a part of line
// (a parser's lines are parts of its buffer, or of the whole input), and
// reads no further into line than the bytes it copies.
func Excerpt[T ~string | ~[]byte](line T) string {
	n, cut := len(line), len(line) > MaxExcerpt
	if cut {
		n = cutUTF8(line, MaxExcerpt)
	}
	b := make([]byte, 0, n+48)
	b = append(b, line[:n]...) // a copy even of a string, which may be a view of a buffer
	if cut {
		b = append(b, "... [cut: a line of "...)
		b = strconv.AppendInt(b, int64(len(line)), 10)
		b = append(b, " bytes]"...)
	}
	return string(b)
}

// cutUTF8 is where to cut s to at most n bytes (n < len(s)) without
// splitting a UTF-8 character: n, or before the character n falls within.
// Bytes that are not UTF-8 are cut anywhere: at most 3 are stepped back
// over, the longest a character's continuation.
func cutUTF8[T ~string | ~[]byte](s T, n int) int {
	for k := n; k > 0 && k > n-4; k-- {
		if s[k]&0xC0 != 0x80 { // s[k] starts a character: cut before it
			return k
		}
	}
	return n
}
