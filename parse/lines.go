package parse

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"unsafe"
)

// MaxLine bounds one line of any input: an EXPLAIN (FORMAT JSON) of a large
// plan printed unaligned, or a long statement echoed by psql, is a long line,
// and 64 MiB is a thousand times the longest seen in real outputs. A longer
// line is refused with its number rather than held in memory: what makes a
// line that long is a file that is not the output it is said to be.
const MaxLine = 64 << 20

// MaxText bounds the inputs the parsers hold whole (psql's output, EXPLAIN
// (FORMAT JSON)). What psql's parser makes of an output takes about 16
// times its size (a record per statement, result and row), so 256 MiB, a
// thousand times a study run's output, bounds it to 4 GiB.
const MaxText = 256 << 20

// lines reads input a line at a time, counting lines for errors and
// refusing binary input and lines longer than MaxLine. A trailing "\r" is
// dropped. Its cost is linear in the input, however long the lines: a line
// that fits the reader's buffer is not copied, a longer one is gathered once.
type lines struct {
	br     *bufio.Reader
	long   []byte // the current line when it spans more than one buffer
	cur    []byte
	source string
	n      int
	eof    bool
	err    error
}

func newLines(r io.Reader, source string) *lines {
	size := 64 << 10
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
		// A short text in memory (one /proc/diskstats snapshot of many)
		// needs no more than itself.
		size = l.Len() + 1
	}
	return &lines{br: bufio.NewReaderSize(r, size), source: source}
}

// next advances to the next line; false at the end or on an error.
func (l *lines) next() bool {
	if l.err != nil || l.eof {
		return false
	}
	var line []byte
	l.long = l.long[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		if len(l.long)+len(chunk) > MaxLine+2 { // the line, "\r\n"
			l.err = lineTooLong(l.source, l.n+1)
			return false
		}
		if err == bufio.ErrBufferFull {
			l.gather(chunk)
			continue
		}
		line = chunk
		if len(l.long) > 0 {
			l.gather(chunk)
			line = l.long
		}
		if err == io.EOF {
			l.eof = true
			if len(line) == 0 {
				return false
			}
		} else if err != nil {
			l.err = errorf(l.source, l.n+1, "read: %v", err)
			return false
		}
		break
	}
	l.n++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if len(bytes.TrimSuffix(line, []byte{'\r'})) > MaxLine {
		l.err = lineTooLong(l.source, l.n)
		return false
	}
	if bytes.IndexByte(line, 0) >= 0 {
		l.err = errorf(l.source, l.n, "binary data (a NUL byte); expected text")
		return false
	}
	l.cur = bytes.TrimSuffix(line, []byte{'\r'})
	return true
}

// gather appends b to the long line, doubling its room as it grows (append
// grows a large slice by a quarter, which allocates five times the line).
func (l *lines) gather(b []byte) {
	if need := len(l.long) + len(b); need > cap(l.long) {
		grown := make([]byte, len(l.long), max(need, 2*cap(l.long)))
		copy(grown, l.long)
		l.long = grown
	}
	l.long = append(l.long, b...)
}

// bytes is the current line, valid until the next call to next.
func (l *lines) bytes() []byte { return l.cur }

// text is the current line as a string.
func (l *lines) text() string { return string(l.cur) }

// line is the current line's number, from 1.
func (l *lines) line() int { return l.n }

// error is the first read error, binary input or over-long line found, as a
// *SyntaxError.
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

// transient is b as a string without a copy, for a lookup that keeps no
// part of it (lookForeign clones what it keeps): a log's lines are many,
// and a copy of each would be most of what reading one costs.
func transient(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func lineTooLong(source string, n int) error {
	return errorf(source, n, "a line longer than %d MiB; expected lines of text output", MaxLine>>20)
}

// readText reads all of r as one string for the parsers that look ahead
// and back over a whole output, with the refusals of lines: binary data, a
// line longer than MaxLine (found as the bytes arrive, before the rest is
// read), and input of more than MaxText.
func readText(r io.Reader, source string) (string, error) {
	var sb strings.Builder
	size := 256 << 10 // the read buffer: its own size for a short input
	switch v := r.(type) {
	case interface{ Len() int }: // strings.Reader, bytes.Reader, bytes.Buffer
		sb.Grow(min(v.Len(), MaxText))
		size = min(size, v.Len()+1)
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			sb.Grow(int(min(st.Size(), MaxText)))
			size = int(min(int64(size), st.Size()+1))
		}
	}
	buf := make([]byte, size)
	n, run := 1, 0 // the line being read, and its length so far
	for {
		k, err := r.Read(buf)
		chunk := buf[:k]
		if sb.Len()+k > MaxText {
			return "", errorf(source, n, "input longer than %d MiB; expected one output of a client or a server", MaxText>>20)
		}
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			seg := chunk
			if i >= 0 {
				seg = chunk[:i]
			}
			if bytes.IndexByte(seg, 0) >= 0 {
				return "", errorf(source, n, "binary data (a NUL byte); expected text")
			}
			if run += len(seg); run > MaxLine {
				return "", lineTooLong(source, n)
			}
			if i < 0 {
				break
			}
			n, run = n+1, 0
			chunk = chunk[i+1:]
		}
		sb.Grow(k) // doubles the room when short: Write alone grows by a quarter
		sb.Write(buf[:k])
		if err == io.EOF {
			return sb.String(), nil
		}
		if err != nil {
			return "", errorf(source, n, "read: %v", err)
		}
	}
}
