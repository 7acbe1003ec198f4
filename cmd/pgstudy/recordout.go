package main

import (
	"io"
	"os"
	"sync"
	"time"
)

// recordOut is parse's standard output. Records are appended to a buffer
// whole, and the buffer is written out only between two records, once it
// holds 64 KiB (a write of 4 KiB, bufio's default, took a tenth of the
// time of a streamed log). So
//   - a parse stopped by a signal leaves whole lines of jsonl: the
//     signal's exit waits for the write in progress (gate), and no write
//     holds part of a record;
//   - a write error (a full disk, a closed pipe) is seen at the record
//     that met it and stops the reading, not after the whole input;
//   - records read from a pipe are written before the next read of it
//     waits (flushing), so that tail -f | pgstudy parse shows each one.
//
// A document (--format json) is one value, not lines: it is written 64 KiB
// at a time within records too (anywhere), so that a record written whole
// (a psql output's) is not held a second time, indented, in the buffer.
type recordOut struct {
	w        io.Writer
	buf      []byte
	err      error       // the first write error, which every later call returns
	gate     *sync.Mutex // held during each write; nil: none
	anywhere bool        // written once full even within a record
	floor    *heapFloor  // adjusted at each write; nil: none
}

// recordOutSize is how much the buffer holds before it is written.
const recordOutSize = 64 << 10

func (o *recordOut) Write(p []byte) (int, error) {
	o.buf = append(o.buf, p...)
	o.full()
	return len(p), nil
}

func (o *recordOut) WriteByte(c byte) error {
	o.buf = append(o.buf, c)
	o.full()
	return nil
}

func (o *recordOut) WriteString(s string) (int, error) {
	o.buf = append(o.buf, s...)
	o.full()
	return len(s), nil
}

// full writes a document's full buffer.
func (o *recordOut) full() {
	if o.anywhere && len(o.buf) >= recordOutSize {
		o.flush()
	}
}

// end marks the end of a record: the buffer is written once it is full.
// It returns the first write error.
func (o *recordOut) end() error {
	if len(o.buf) >= recordOutSize {
		return o.flush()
	}
	return o.err
}

// flush writes what the buffer holds, holding the gate.
func (o *recordOut) flush() error {
	if o.err != nil || len(o.buf) == 0 {
		return o.err
	}
	if o.gate != nil {
		o.gate.Lock()
		defer o.gate.Unlock()
	}
	_, o.err = o.w.Write(o.buf)
	o.floor.adjust()
	if cap(o.buf) > 4*recordOutSize { // a huge record's buffer is not kept
		o.buf = nil
	}
	o.buf = o.buf[:0]
	return o.err
}

// flushing is an input that may wait for more (standard input from a
// pipe or a terminal): what parse has written is flushed before each read
// of it, which is also between two records.
type flushing struct {
	r   io.Reader
	out *recordOut
}

func (f flushing) Read(p []byte) (int, error) {
	f.out.flush()
	return f.r.Read(p)
}

// mayWait tells an input that can wait for more data from one that
// cannot (a regular file).
func mayWait(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return true
	}
	st, err := f.Stat()
	return err != nil || !st.Mode().IsRegular()
}

// exitBetweenWrites ends the process with code once no write of parse's
// output is in progress, waiting at most a second for one (a write to a
// pipe nobody reads may never end).
func exitBetweenWrites(gate *sync.Mutex, code int) {
	deadline := time.Now().Add(time.Second)
	for !gate.TryLock() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	os.Exit(code)
}
