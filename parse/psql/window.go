package psql

import (
	"strings"
	"unsafe"

	"github.com/pgstudy/pgstudy/parse"
)

// The window of lines the parser (parser.go) looks at: psql's output is
// read a line at a time as the parser asks for lines, ahead of the line it
// reads (a table's header and separator, a statement's semicolon a few
// lines on), and a line is let go once the parser is past it and neither
// the echo nor the message being read reaches back to it. What is held is
// the lines from the oldest still needed to the furthest looked at, never
// the whole input.
//
// A line is a string cut from a block of the input, 64 KiB of lines
// copied one after the other with "\n" between them, so that the values a
// record keeps (a table's cells, a tag, a message's text) are parts of
// the block rather than copies, as they were parts of the whole input
// read at once: one allocation a block, not one a line or a value, and
// lines next to each other in a block joined without a copy (an echo, a
// message's Raw). A block is never written where a line was cut from it,
// which is what lets its bytes be strings; it is freed when no line or
// value refers to it.

// blockSize is the size of the blocks lines are copied into (a variable
// for the tests, which make lines cross blocks).
var blockSize = 64 << 10

type window struct {
	ls   *parse.Lines
	note func(i int, l string) // told of each line as it is read
	base int                   // the index in the input of all[0]
	all  []wline               // the lines held are all[start:]
	from int                   // start
	size int                   // their bytes
	blk  []byte                // the block being filled
	next int                   // the size of the next block
	eof  bool                  // the input is read (or failed: ls.Err)
	// lost is the first line asked for after it was let go, plus one: a
	// fault of the parser's, which err reports rather than hand out "".
	lost int
}

// wline is a line held, with where it lies in its block.
type wline struct {
	s   string
	blk *byte // the block's first byte
	off int   // the line's offset in the block
}

// newWindow reads ls, whose input is of size bytes when known (else
// -1): a short input (one run's psql output, of which the analysis reads
// thousands) gets a block its size, and the blocks of one of unknown size
// grow from 4 KiB to blockSize.
func newWindow(ls *parse.Lines, note func(int, string), size int) *window {
	next := 4 << 10
	if size >= 0 {
		next = size + 1
	}
	return &window{ls: ls, note: note, next: min(next, blockSize)}
}

// line is line i (from 0), which must have been read and not let go.
func (w *window) line(i int) string {
	if k := i - w.base; k >= w.from && k < len(w.all) {
		return w.all[k].s
	} else if k < w.from && w.lost == 0 {
		w.lost = i + 1
	}
	if !w.has(i) {
		return ""
	}
	return w.all[i-w.base].s
}

// has reports whether the input has a line i, reading up to it.
func (w *window) has(i int) bool {
	for i-w.base >= len(w.all) {
		if !w.read() {
			return false
		}
	}
	return true
}

// read reads the next line into the window; false at the end of the
// input or on an error (ls.Err).
func (w *window) read() bool {
	if w.eof {
		return false
	}
	if !w.ls.Next() {
		w.eof = true
		return false
	}
	b := w.ls.Bytes()
	if cap(w.blk)-len(w.blk) < len(b)+1 {
		w.blk = make([]byte, 0, max(w.next, len(b)+1))
		w.next = min(2*w.next, blockSize)
	}
	off := len(w.blk)
	w.blk = append(w.blk, b...)
	w.blk = append(w.blk, '\n')
	var s string
	if len(b) > 0 {
		s = unsafe.String(&w.blk[off], len(b)) // bytes never written again
	}
	w.push(wline{s: s, blk: unsafe.SliceData(w.blk), off: off})
	w.note(w.base+len(w.all)-1, s)
	return true
}

// push appends l, moving the lines held to the front of all when at least
// half of it is free, else growing it.
func (w *window) push(l wline) {
	if len(w.all) == cap(w.all) {
		n := len(w.all) - w.from
		if w.from > 0 && n <= cap(w.all)/2 {
			copy(w.all, w.all[w.from:])
			clear(w.all[n:])
			w.all = w.all[:n]
		} else {
			all := make([]wline, n, max(16, 2*n))
			copy(all, w.all[w.from:])
			w.all = all
		}
		w.base += w.from
		w.from = 0
	}
	w.all = append(w.all, l)
	w.size += len(l.s)
}

// release lets go of the lines before line i.
func (w *window) release(i int) {
	k := min(i-w.base, len(w.all))
	if k <= w.from {
		return
	}
	for j := w.from; j < k; j++ {
		w.size -= len(w.all[j].s)
		w.all[j] = wline{} // its block may go
	}
	w.from = k
}

// join is lines first to last joined with "\n": a part of their block
// when they are in one.
func (w *window) join(first, last int) string {
	if first == last || first-w.base < w.from {
		return w.line(first) // "" and a fault, for the second
	}
	a, z := &w.all[first-w.base], &w.all[last-w.base]
	if a.blk == z.blk {
		return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(a.blk), a.off)), z.off+len(z.s)-a.off)
	}
	var b strings.Builder
	for i := first; i <= last; i++ {
		if i > first {
			b.WriteByte('\n')
		}
		b.WriteString(w.all[i-w.base].s)
	}
	return b.String()
}

// err is the input's error, once the window has read to its end: a read
// error, binary data, a line too long; or the parser's fault of reading a
// line it had let go.
func (w *window) err(source string) error {
	if w.lost > 0 {
		return parse.Errorf(source, w.lost, "internal error: the psql parser read this line after letting it go")
	}
	if !w.eof {
		return nil
	}
	return w.ls.Err()
}
