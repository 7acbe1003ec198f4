package parse

import (
	"bytes"
	"fmt"
)

// The lines Lines does not hand out as they are: one that holds a NUL,
// one longer than MaxLine, one partly left out already, and a first line
// of a file whose lines end with a carriage return alone.

// unusual hands out, leaves out (Skip) or refuses a line that holds a
// NUL, is longer than MaxLine, or was partly dropped already: b is the
// line without its "\n", cur without its "\r\n".
func (l *Lines) unusual(b, cur []byte) bool {
	l.off += l.dropped
	switch {
	case l.discard || len(cur) > MaxLine && l.skipping():
		if !l.discard {
			l.head = startOf(cur)
		}
		l.skip(l.n, l.head, fmt.Sprintf("a line of %d bytes, longer than %d MiB: left out", l.dropped+int64(len(cur)), MaxLine>>20))
		l.leftOut()
		return false
	case len(cur) > MaxLine:
		l.err = lineTooLong(l.source, l.n)
		return false
	case l.isNul && (!l.nulLine || l.n == 1) && !l.skipping() && !l.leadingNULs(l.n, cur[:bytes.LastIndexByte(cur, 0)+1]):
		l.err = binary(l.source, l.n, b)
		return false
	case l.isNul || l.nulLine:
		if !l.nulLine {
			l.before = int64(bytes.IndexByte(cur, 0))
		}
		j := bytes.LastIndexByte(cur, 0) + 1
		l.skip(l.n, Excerpt(cur[j:]), nulsLeftOut(l.dropped+int64(j), l.before, j < len(cur)))
		cur = cur[j:]
		l.leftOut()
		if len(cur) == 0 {
			return false
		}
	}
	l.cur, l.inBuf = cur, false
	return true
}

// crOnly reports whether the input's first line holds the line ends of a
// file whose lines end with "\r" alone: two "\r" or more, each followed
// by text (a statement holding a lone "\r" is rare, and holds one).
func crOnly(line []byte) bool {
	n := 0
	for i := bytes.IndexByte(line, '\r'); i >= 0 && i+1 < len(line); {
		if n++; n == 2 {
			return true
		}
		j := bytes.IndexByte(line[i+1:], '\r')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// startOf is the start of a line longer than MaxExcerpt, for a warning
// that says the line's length itself: its first MaxExcerpt bytes, cut
// back to a character, without Excerpt's marker of a length it does not
// know.
func startOf(b []byte) string {
	return Excerpt(b[:cutUTF8(b, min(len(b)-1, MaxExcerpt))])
}

// nulsLeftOut says what was left out of a line with NULs: its first n
// bytes, of which the text before the NULs is the first before; more
// tells whether text follows them.
func nulsLeftOut(n, before int64, more bool) string {
	msg := nBytes(n-before) + " of binary data (NULs, as a file system leaves where a crash cut a file) left out"
	if before > 0 {
		// The text a crash cut: its last figure may have lost digits, so
		// it is not read as whole; what it held is unknown, not wrong.
		msg += ", with the " + nBytes(before) + " of text before them, a line cut short (its last figure may have lost digits)"
	}
	if more {
		return msg + "; the line is read from the byte after them"
	}
	return msg + "; nothing follows them on the line"
}

// nBytes is "1 byte" or "N bytes".
func nBytes(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// leftOut ends the leaving out of (a part of) a line, and looks for the
// next NUL in the bytes not read yet: the one fill found was this line's.
func (l *Lines) leftOut() {
	l.discard, l.nulLine, l.dropped, l.head, l.before = false, false, 0, "", 0
	l.nul = -1
	if i := bytes.IndexByte(l.buf[l.rd:l.wr], 0); i >= 0 {
		l.nul = l.rd + i
	}
}
