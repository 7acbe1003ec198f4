package parse

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
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

// Lines reads input a line at a time, counting lines for errors and
// refusing binary input and lines longer than MaxLine. A trailing "\r" is
// dropped. Its cost is linear in the input, however long the lines: a line
// that fits the reader's buffer is not copied, a longer one is gathered once.
type Lines struct {
	br     *bufio.Reader
	long   []byte // the current line when it spans more than one buffer
	cur    []byte
	source string
	n      int
	eof    bool
	err    error
}

func NewLines(r io.Reader, source string) *Lines {
	size := 64 << 10
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
		// A short text in memory (one /proc/diskstats snapshot of many)
		// needs no more than itself.
		size = l.Len() + 1
	}
	return &Lines{br: bufio.NewReaderSize(r, size), source: source}
}

// Next advances to the next line; false at the end or on an error.
func (l *Lines) Next() bool {
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
			l.err = Errorf(l.source, l.n+1, "read: %v", err)
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
		l.err = binary(l.source, l.n, line)
		return false
	}
	l.cur = bytes.TrimSuffix(line, []byte{'\r'})
	return true
}

// gather appends b to the long line, doubling its room as it grows (append
// grows a large slice by a quarter, which allocates five times the line).
func (l *Lines) gather(b []byte) {
	if need := len(l.long) + len(b); need > cap(l.long) {
		grown := make([]byte, len(l.long), max(need, 2*cap(l.long)))
		copy(grown, l.long)
		l.long = grown
	}
	l.long = append(l.long, b...)
}

// Bytes is the current line, valid until the next call to Next.
func (l *Lines) Bytes() []byte { return l.cur }

// Text is the current line as a string.
func (l *Lines) Text() string { return string(l.cur) }

// Line is the current line's number, from 1.
func (l *Lines) Line() int { return l.n }

// Err is the first read error, binary input or over-long line found, as a
// *SyntaxError.
func (l *Lines) Err() error {
	if l.err == nil {
		return nil
	}
	return l.err
}

// ReadLines feeds each line of r, with its number, to line, then the
// number of the last line to finish: the loop of the parsers that read a
// whole output line by line and judge it at its end.
func ReadLines(r io.Reader, source string, line func(int, string) error, finish func(int) error) error {
	l := NewLines(r, source)
	for l.Next() {
		if err := line(l.Line(), l.Text()); err != nil {
			return err
		}
	}
	if err := l.Err(); err != nil {
		return err
	}
	return finish(l.Line())
}

// binary is the refusal of line n, which holds a NUL byte; a first line
// that starts as a compressed file does is named so.
func binary(source string, n int, line []byte) error {
	if n == 1 {
		for _, c := range []struct{ name, magic string }{
			{"gzip", "\x1f\x8b"}, {"bzip2", "BZh"}, {"zstd", "\x28\xb5\x2f\xfd"}, {"xz", "\xfd7zXZ\x00"},
		} {
			if bytes.HasPrefix(line, []byte(c.magic)) {
				return Errorf(source, n, "%s-compressed data; expected text: decompress it first", c.name)
			}
		}
	}
	return Errorf(source, n, "binary data (a NUL byte); expected text")
}

func lineTooLong(source string, n int) error {
	return Errorf(source, n, "a line longer than %d MiB; expected lines of text output", MaxLine>>20)
}

// ReadText reads all of r as one string for the parsers that look ahead
// and back over a whole output, with the refusals of lines: binary data, a
// line longer than MaxLine (found as the bytes arrive, before the rest is
// read), and input of more than MaxText.
func ReadText(r io.Reader, source string) (string, error) {
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
			return "", Errorf(source, n, "input longer than %d MiB; expected one output of a client or a server", MaxText>>20)
		}
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			seg := chunk
			if i >= 0 {
				seg = chunk[:i]
			}
			if bytes.IndexByte(seg, 0) >= 0 {
				return "", binary(source, n, seg)
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
			return "", Errorf(source, n, "read: %v", err)
		}
	}
}
