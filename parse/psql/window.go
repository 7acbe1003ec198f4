package psql

import (
	"math"
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
// A line is a string made of its bytes where parse.Lines read them, in a
// buffer it never writes again (NewKeptLines), so that the values a record
// keeps (a table's cells, a tag, a message's text) are parts of the input
// as read rather than copies, as they were parts of the whole input read
// at once: no copy and no allocation a line or a value, and lines next to
// each other in a buffer joined without a copy (an echo, a message's Raw).
// A buffer is freed when no line or value refers to it.

type window struct {
	ls   *parse.Lines
	note func(i int, l string) // told of each line as it is read
	base int                   // the index in the input of all[0]
	all  []wline               // the lines held are all[from:]
	from int
	size int  // their bytes
	eof  bool // the input is read (or failed: ls.Err)
	// blocks[k] is where block blk0+k starts: the first byte of the
	// first line read from it. A block is a run of lines read one after
	// another from one buffer, told by the address where the buffer
	// ends (a number: a pointer there would point past it); the lines
	// hold offsets from its start, not pointers, so that reading a line
	// writes no pointer (a line a write barrier, while the collector
	// marks, cost a tenth of the parser's time). A block is dropped once
	// no line held is in it, and its buffer may go when no value refers
	// to it.
	blocks []*byte
	blk0   uint32
	end    uintptr
	// lost is the first line asked for after it was let go, plus one: a
	// fault of the parser's, which err reports rather than hand out "".
	lost int
}

// wline is a line held: its block (blk0 + k), its offset there and its
// length. blk is 0 for an empty last line at the very end of its buffer,
// where no byte is (blk0 is never 0).
type wline struct {
	blk uint32
	off uint32
	n   uint32
}

func newWindow(ls *parse.Lines, note func(int, string)) *window {
	return &window{ls: ls, note: note, blk0: 1}
}

// str is l's text.
func (w *window) str(l wline) string {
	if l.n == 0 {
		return ""
	}
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(w.blocks[l.blk-w.blk0]), l.off)), l.n)
}

// line is line i (from 0), which must have been read and not let go:
// the parser asks for a line a dozen times, so the line held is found
// inline, and any other the long way (lineAhead).
func (w *window) line(i int) string {
	if k, all := i-w.base, w.all; uint(k) < uint(len(all)) && k >= w.from {
		return w.str(all[k])
	}
	return w.lineAhead(i)
}

// lineAhead is line's way for a line not held: one let go (a fault,
// which err reports) or not read yet.
func (w *window) lineAhead(i int) string {
	if i-w.base < w.from && w.lost == 0 {
		w.lost = i + 1
	}
	if !w.has(i) || i-w.base < w.from {
		return ""
	}
	return w.str(w.all[i-w.base])
}

// held reports whether line i is read and not let go.
func (w *window) held(i int) bool {
	k := i - w.base
	return k >= w.from && k < len(w.all)
}

// has reports whether the input has a line i, reading up to it.
func (w *window) has(i int) bool {
	if i < w.base+len(w.all) {
		return true
	}
	return w.readTo(i)
}

// readTo reads up to line i, reporting whether the input has it.
func (w *window) readTo(i int) bool {
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
	b := w.ls.Bytes() // never written again
	l := wline{n: uint32(len(b))}
	var s string
	if cap(b) > 0 {
		p := unsafe.SliceData(b)
		at, end := uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(p))+uintptr(cap(b))
		start := uintptr(0)
		if k := len(w.blocks) - 1; k >= 0 {
			start = uintptr(unsafe.Pointer(w.blocks[k]))
		}
		if end != w.end || start == 0 || at < start || at-start > math.MaxUint32-uintptr(len(b)) {
			w.end = end
			w.blocks = append(w.blocks, p)
			start = at
		}
		l.blk = w.blk0 + uint32(len(w.blocks)-1)
		l.off = uint32(at - start)
		s = unsafe.String(p, len(b))
	}
	w.push(l)
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
	w.size += int(l.n)
}

// release lets go of the lines before line i, and of the blocks before
// the first line still held.
func (w *window) release(i int) {
	k := min(i-w.base, len(w.all))
	if k <= w.from {
		return
	}
	for j := w.from; j < k; j++ {
		w.size -= int(w.all[j].n)
	}
	w.from = k
	w.dropBlocks()
}

// dropBlocks lets go of the blocks no line held is in: before the first
// line held that has one, or all of them but the last when none has
// (whose start the next line may need).
func (w *window) dropBlocks() {
	first := w.blk0 + uint32(len(w.blocks)) - 1
	for _, l := range w.all[w.from:] {
		if l.blk != 0 {
			first = min(first, l.blk)
			break
		}
	}
	if first <= w.blk0 {
		return
	}
	d := int(first - w.blk0)
	n := copy(w.blocks, w.blocks[d:])
	clear(w.blocks[n:])
	w.blocks = w.blocks[:n]
	w.blk0 = first
}

// join is lines first to last joined with "\n": a part of their buffer
// when they lie there one after the other, a "\n" between them (not
// "\r\n").
func (w *window) join(first, last int) string {
	if first == last || first-w.base < w.from {
		return w.line(first) // "" and a fault, for the second
	}
	lines := w.all[first-w.base : last-w.base+1]
	next := true
	for k := 1; k < len(lines) && next; k++ {
		prev, l := lines[k-1], lines[k]
		next = l.blk == lines[0].blk && prev.blk != 0 && l.off == prev.off+prev.n+1
	}
	if a, z := lines[0], lines[len(lines)-1]; next && a.blk != 0 {
		return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(w.blocks[a.blk-w.blk0]), a.off)), int(z.off-a.off+z.n))
	}
	var b strings.Builder
	for k := range lines {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(w.str(lines[k]))
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
