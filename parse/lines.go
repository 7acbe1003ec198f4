package parse

import (
	"bufio"
	"bytes"
	"io"
)

// maxLine bounds one line: an EXPLAIN (FORMAT JSON) of a large plan is one
// long line in some captures.
const maxLine = 256 << 20

// lines reads input a line at a time, counting lines for errors and
// refusing binary input. A trailing "\r" is dropped.
type lines struct {
	sc     *bufio.Scanner
	source string
	n      int
	err    error
}

func newLines(r io.Reader, source string) *lines {
	sc := bufio.NewScanner(r)
	size := 4 << 10
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
		// A short text in memory (one /proc/diskstats snapshot of many)
		// needs no more than itself.
		size = max(64, l.Len()+1)
	}
	sc.Buffer(make([]byte, 0, size), maxLine) // grows as lines need
	return &lines{sc: sc, source: source}
}

// next advances to the next line; false at the end or on an error.
func (l *lines) next() bool {
	if l.err != nil || !l.sc.Scan() {
		if l.err == nil {
			if err := l.sc.Err(); err != nil {
				l.err = errorf(l.source, l.n+1, "read: %v", err)
			}
		}
		return false
	}
	l.n++
	if bytes.IndexByte(l.sc.Bytes(), 0) >= 0 {
		l.err = errorf(l.source, l.n, "binary data (a NUL byte); expected text")
		return false
	}
	return true
}

// bytes is the current line, valid until the next call to next.
func (l *lines) bytes() []byte { return bytes.TrimSuffix(l.sc.Bytes(), []byte{'\r'}) }

// text is the current line as a string.
func (l *lines) text() string { return string(l.bytes()) }

// line is the current line's number, from 1.
func (l *lines) line() int { return l.n }

// error is the first read error or binary input found, as a *SyntaxError.
func (l *lines) error() error {
	if l.err == nil {
		return nil
	}
	return l.err
}

// readLines feeds each line of r, with its number, to line, then the
// number of the last line to finish: the loop of the parsers that read a
// whole output line by line and judge it at its end.
func readLines(r io.Reader, source string, line func(int, string) error, finish func(int) error) error {
	l := newLines(r, source)
	for l.next() {
		if err := line(l.line(), l.text()); err != nil {
			return err
		}
	}
	if err := l.error(); err != nil {
		return err
	}
	return finish(l.line())
}
