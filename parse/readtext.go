package parse

import (
	"bytes"
	"io"
	"os"
	"strings"
)

// textBlock is the size of the blocks ReadText reads and checks.
const textBlock = 256 << 10

// ReadText reads all of r as one string for the parsers that look ahead
// and back over a whole output, with the refusals of lines: binary data, a
// line longer than MaxLine (found as the bytes arrive, before the rest is
// read), and input of more than MaxText.
//
// A reader that holds its bytes in memory and writes them out whole
// (strings.Reader, bytes.Reader, bytes.Buffer: a Len and a WriteTo) hands
// them over without a read buffer, which was as large as the input, and a
// string comes back as it is, without a copy: the analysis reads each plan
// from a string. They are checked in the same blocks as read ones.
func ReadText(r io.Reader, source string) (string, error) {
	t := &textReader{source: source}
	size := textBlock // the read buffer: its own size for a short input
	switch v := r.(type) {
	case interface{ Len() int }: // strings.Reader, bytes.Reader, bytes.Buffer
		t.room = min(v.Len(), MaxText)
		if w, ok := r.(io.WriterTo); ok {
			if _, err := w.WriteTo(t); err != nil {
				return "", t.failed(err)
			}
			return t.text(), nil
		}
		size = min(size, v.Len()+1)
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			t.room = int(min(st.Size(), MaxText))
			size = int(min(int64(size), st.Size()+1))
		}
	}
	buf := make([]byte, size)
	for {
		k, err := r.Read(buf)
		if _, werr := t.Write(buf[:k]); werr != nil {
			return "", werr
		}
		if err == io.EOF {
			return t.text(), nil
		}
		if err != nil {
			return "", Errorf(source, t.lineAt(buf[:0]), "read: %v", err)
		}
	}
}

// textReader gathers ReadText's text, checking each block it is given.
type textReader struct {
	source string
	sb     strings.Builder
	whole  string // the text, when it came as one string
	room   int    // the room to make for the text at the first block
	run    int    // the length of the last line so far
	err    error  // the refusal, for WriteTo's caller
}

func (t *textReader) Write(p []byte) (int, error) {
	if err := checkBlocks(t, p); err != nil {
		return 0, err
	}
	t.keep()
	t.sb.Grow(len(p)) // doubles the room when short: Write alone grows by a quarter
	t.sb.Write(p)
	return len(p), nil
}

func (t *textReader) WriteString(s string) (int, error) {
	if err := checkBlocks(t, s); err != nil {
		return 0, err
	}
	if t.sb.Len() == 0 && t.whole == "" {
		t.whole = s
		return len(s), nil
	}
	t.keep()
	t.sb.Grow(len(s))
	t.sb.WriteString(s)
	return len(s), nil
}

// keep readies the builder for more text: the room known, at first; a
// string kept as it is goes in first.
func (t *textReader) keep() {
	if t.room > 0 {
		t.sb.Grow(t.room)
		t.room = 0
	}
	if t.whole != "" {
		t.sb.WriteString(t.whole)
		t.whole = ""
	}
}

func (t *textReader) text() string {
	if t.whole != "" {
		return t.whole
	}
	return t.sb.String()
}

// failed is the refusal WriteTo stopped at, or its own error as a read's.
func (t *textReader) failed(err error) error {
	if t.err != nil {
		return t.err
	}
	return Errorf(t.source, lineAt(t, ""), "read: %v", err)
}

// lineAt is the number of the line that before, the start of what the
// reader handed over last, ends in: counted only for an error.
func lineAt[T ~string | ~[]byte](t *textReader, before T) int {
	return 1 + strings.Count(t.text(), "\n") + count(before, '\n')
}

func (t *textReader) lineAt(before []byte) int { return lineAt(t, before) }

// checkBlocks checks data, what the reader handed over, a block at a time,
// as ReadText reads them. The first problem in the text is the one told.
func checkBlocks[T ~string | ~[]byte](t *textReader, data T) error {
	for off := 0; off < len(data); off += textBlock {
		if err := checkBlock(t, data, off, min(off+textBlock, len(data))); err != nil {
			t.err = err
			return err
		}
	}
	return nil
}

// checkBlock checks data[off:end] after the text so far and data[:off]:
// one search of the block for a NUL, and its lines' lengths from where
// the first and last "\n" are: the lines between are shorter than the
// block, and so than MaxLine.
func checkBlock[T ~string | ~[]byte](t *textReader, data T, off, end int) error {
	block := data[off:end]
	k := len(block)
	if len(t.text())+end > MaxText {
		return Errorf(t.source, lineAt(t, data[:off]), "input longer than %d MiB; expected one output of a client or a server", MaxText>>20)
	}
	nul, first := index(block, 0), index(block, '\n')
	if first < 0 {
		first = k
	}
	if t.run+first > MaxLine && (nul < 0 || nul > first) {
		return lineTooLong(t.source, lineAt(t, data[:off]))
	}
	if nul >= 0 {
		start := lastIndex(block[:nul], '\n') + 1
		stop := index(block[nul:], '\n')
		if stop < 0 {
			stop = k - nul
		}
		return binary(t.source, lineAt(t, data[:off+nul]), []byte(block[start:nul+stop]))
	}
	if first == k {
		t.run += k
	} else {
		t.run = k - 1 - lastIndex(block, '\n')
	}
	return nil
}

// index, lastIndex and count are the bytes or strings functions for text
// of either kind, without a copy of a string.
func index[T ~string | ~[]byte](s T, c byte) int {
	if b, ok := asBytes(s); ok {
		return bytes.IndexByte(b, c)
	}
	return strings.IndexByte(string(s), c)
}

func lastIndex[T ~string | ~[]byte](s T, c byte) int {
	if b, ok := asBytes(s); ok {
		return bytes.LastIndexByte(b, c)
	}
	return strings.LastIndexByte(string(s), c)
}

func count[T ~string | ~[]byte](s T, c byte) int {
	if b, ok := asBytes(s); ok {
		return bytes.Count(b, []byte{c})
	}
	return strings.Count(string(s), string(rune(c)))
}

// asBytes is s itself when T is a slice of bytes (a conversion without a
// copy); ok is false for a string, which the caller converts for free.
func asBytes[T ~string | ~[]byte](s T) ([]byte, bool) {
	var zero T
	if _, ok := any(zero).([]byte); ok {
		return []byte(s), true
	}
	return nil, false
}
