package main

import (
	"bytes"
	"io"
)

// endable is parse's input from a pipe or a terminal, which may wait for
// more for ever (tail -f FILE | pgstudy parse KIND -): a signal ends it
// rather than the process. Once end is closed, Read reports io.EOF, at a
// line's end, so that the parser ends as at the end of a file: it hands
// out the records it still held (a record whose last line the text cannot
// tell, say 14's VACUUM VERBOSE until its next message), which a signal
// that ended the process lost, and none is read from a line cut short.
// The reading itself goes on in a goroutine, which a blocked read leaves
// behind when the process ends.
//
// It hands out whole lines only, while more may come: the bytes after a
// buffer's last newline wait for the next read (all of them at the input's
// end, or once they fill the buffer: a line that long is handed out in
// parts, and may be cut by a signal).
type endable struct {
	r       io.Reader
	end     <-chan struct{}
	buf     []byte
	rd, wr  int // buf[rd:wr] are read and not handed out
	err     error
	pending chan readResult // the read in progress, or nil
	mid     bool            // the bytes handed out end within a line
}

type readResult struct {
	n   int
	err error
}

// endableSize is the buffer of an endable: a 64 KiB read, as parse.Lines
// makes, and the line it may have to keep.
const endableSize = 128 << 10

func newEndable(r io.Reader, end <-chan struct{}) *endable {
	return &endable{r: r, end: end, buf: make([]byte, endableSize)}
}

func (e *endable) Read(p []byte) (int, error) {
	for {
		if e.ended() {
			// Up to the end of the line handed out in part, if it is
			// read, else nothing more.
			if i := bytes.IndexByte(e.buf[e.rd:e.wr], '\n'); e.mid && i >= 0 {
				return e.hand(p, e.rd+i+1), nil
			}
			return 0, io.EOF
		}
		if n := e.whole(); n > e.rd {
			return e.hand(p, n), nil
		}
		if e.err != nil {
			return 0, e.err
		}
		e.fill()
	}
}

func (e *endable) ended() bool {
	select {
	case <-e.end:
		return true
	default:
		return false
	}
}

// whole is where the bytes that may be handed out end: after the last
// newline read, or all of them at the input's end or when they fill the
// buffer.
func (e *endable) whole() int {
	if e.err != nil || e.rd == 0 && e.wr == len(e.buf) {
		return e.wr
	}
	return e.rd + bytes.LastIndexByte(e.buf[e.rd:e.wr], '\n') + 1
}

// hand copies the bytes read up to upTo into p, as many as fit.
func (e *endable) hand(p []byte, upTo int) int {
	n := copy(p, e.buf[e.rd:upTo])
	e.rd += n
	e.mid = e.buf[e.rd-1] != '\n'
	return n
}

// fill waits for the next read of the input, or for the end.
func (e *endable) fill() {
	if e.pending == nil {
		if e.rd > 0 { // the line kept moves to the front
			e.wr = copy(e.buf, e.buf[e.rd:e.wr])
			e.rd = 0
		}
		ch := make(chan readResult, 1)
		room := e.buf[e.wr:]
		go func() {
			n, err := e.r.Read(room)
			ch <- readResult{n, err}
		}()
		e.pending = ch
	}
	select {
	case res := <-e.pending:
		e.pending = nil
		e.wr += res.n
		e.err = res.err
	case <-e.end:
	}
}
