package parse

import (
	"bytes"
	"io"
)

// MaxLine bounds one line of any input: an EXPLAIN (FORMAT JSON) of a large
// plan printed unaligned, or a long statement echoed by psql, is a long line,
// and 64 MiB is a thousand times the longest seen in real outputs. A longer
// line is refused with its number rather than held in memory: what makes a
// line that long is a file that is not the output it is said to be.
const MaxLine = 64 << 20

// MaxText bounds the inputs the parsers hold whole (EXPLAIN, and the
// records of pgbench's and sysbench's outputs): 256 MiB, a thousand times
// a study run's output. (psql's parser held its output whole too, and what
// it made of it, about 16 times its size, until it read a record at a
// time.)
const MaxText = 256 << 20

// Lines reads input a line at a time, counting lines for errors and
// refusing binary input and lines longer than MaxLine. A trailing "\r" is
// dropped. Its cost is linear in the input, however long the lines: a line
// that fits the reader's buffer is not copied, a longer one is gathered
// once. It looks for a NUL once in each block read, not in each line: the
// search per line cost as much as finding the line's end.
type Lines struct {
	r      io.Reader
	buf    []byte
	rd, wr int    // the unread bytes are buf[rd:wr]
	nul    int    // the offset in buf of the first NUL read, or -1
	long   []byte // the current line when it spans more than one buffer
	isNul  bool   // a NUL was gathered into long
	// The current line: buf[lo:hi] when it lies in the buffer (most
	// lines), else cur. Offsets, not a slice, so that handing out a line
	// writes no pointer into the Lines (a write barrier a line, while
	// the collector marks, was a tenth of a short line's time).
	cur    []byte
	lo, hi int
	inBuf  bool
	source string
	n      int
	off    int64 // the bytes up to the end of the current line
	rerr   error // the reader's error (io.EOF at the end), for after the lines read before it
	done   bool  // the last line was handed out
	// unended: the last line handed out had no "\n" after it (the
	// input ended inside it).
	unended bool
	err     error
	// keep: the bytes handed out are never written again (NewKeptLines).
	keep bool
	// skip, when set (Skip), is told of what is left out; discard: the
	// rest of an over-long line is being dropped; dropped: the bytes of
	// the current line left out so far; nulLine: some of them were binary.
	skip    func(line int, text, why string)
	ok      func() bool // whether a line may be left out now
	head    string      // the start of the line being dropped, for skip
	discard bool
	dropped int64
	nulLine bool
	before  int64 // of a line with NULs, the bytes of text before the first
}

func NewLines(r io.Reader, source string) *Lines {
	l := new(Lines)
	l.Init(r, source)
	return l
}

// Init makes l read r as NewLines' Lines do: a parser that holds its
// Lines in its own state, rather than a pointer to them, spares an
// allocation a parse, which a file of a few lines read by the thousand
// (a cgroup's snapshot) notices.
func (l *Lines) Init(r io.Reader, source string) {
	size := 64 << 10
	if n, ok := r.(interface{ Len() int }); ok && n.Len() < size {
		// A short text in memory (one /proc/diskstats snapshot of many)
		// needs no more than itself.
		size = n.Len() + 1
	}
	*l = Lines{r: r, buf: make([]byte, size), nul: -1, source: source}
}

// NewKeptLines is NewLines whose lines' bytes are never written again:
// Bytes stays valid for good, so that a parser that keeps parts of its
// lines (psql's cells, tags and messages) may make strings of them without
// a copy (unsafe.String). The price is a new buffer each time one is used
// up, rather than its unread bytes moved to its front. Lines next to each
// other in a buffer lie there as read, with their "\n" (or "\r\n") between
// them; a line longer than the buffer is gathered on its own.
func NewKeptLines(r io.Reader, source string) *Lines {
	l := NewLines(r, source)
	l.keep = true
	return l
}

// Skip makes l leave out, rather than refuse, a line longer than MaxLine
// and the binary bytes (NULs) of a line, telling skipped the line's number
// and what was left out, and read on. A server log is read so: a
// statement of 100 MiB logged whole, or the block of NULs a file system
// leaves where a crash cut the log, should not lose the entries after
// it. Of a line that holds NULs, the text after the last is kept as the
// line (where the server went on writing after its restart). An
// over-long line is dropped as it is read: the memory stays that of
// MaxLine. skipped gets an excerpt of the line too: the start of one
// too long, what follows the NULs of one that holds some. ok, when not
// nil, is asked before a line is left out: false refuses it as Lines
// without Skip do (a file that is binary from its start is not a log).
func (l *Lines) Skip(ok func() bool, skipped func(line int, text, why string)) {
	l.ok, l.skip = ok, skipped
}

// skipping reports whether a line may be left out now.
func (l *Lines) skipping() bool { return l.skip != nil && (l.ok == nil || l.ok()) }

// leadingNULs reports whether b, what is about to be left out of line
// n (up to its last NUL), is a block of NULs alone at the start of the
// input, fewer than MaxLine bytes of them: with Skip, they are left out
// even where ok refuses, as a crash just after a log was rotated leaves
// them before the lines the restarted server wrote. Binary data that
// merely starts with a NUL is not such a block, and input of NULs alone
// (/dev/zero) is still refused, after MaxLine of them.
func (l *Lines) leadingNULs(n int, b []byte) bool {
	if l.skip == nil || n != 1 || !allNUL(b) {
		return false
	}
	if l.nulLine {
		return l.before == 0 && l.dropped+int64(len(b)) <= MaxLine
	}
	return int64(len(b)) <= MaxLine
}

// allNUL reports whether b holds NULs alone.
func allNUL(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Next advances to the next line; false at the end or on an error.
func (l *Lines) Next() bool {
	if l.err != nil || l.done {
		return false
	}
	for {
		l.isNul = false
		switch {
		case l.keep && l.long != nil:
			l.long = nil // the last long line was handed out
		case len(l.long) > 0:
			l.long = l.long[:0]
		}
		// A line in the buffer is handed out here, without next's call:
		// most lines are, and the call cost a tenth of their time.
		if i := bytes.IndexByte(l.buf[l.rd:l.wr], '\n'); i >= 0 {
			if l.line(l.take(l.rd + i + 1)) {
				return true
			}
		} else if l.next() {
			return true
		}
		if l.err != nil || l.done {
			return false
		}
		// A line left out (Skip): the next one.
	}
}

// next reads the next line: false at the end, on an error, or when the
// line was left out (Skip).
func (l *Lines) next() bool {
	for {
		if i := bytes.IndexByte(l.buf[l.rd:l.wr], '\n'); i >= 0 {
			return l.line(l.take(l.rd + i + 1))
		}
		switch {
		case l.rerr != nil && l.rerr != io.EOF:
			l.err = Errorf(l.source, l.n+1, "read: %v", l.rerr)
			return false
		case l.rerr != nil:
			l.done = true
			if l.rd == l.wr && len(l.long) == 0 && l.dropped == 0 && !l.discard {
				return false
			}
			l.unended = true
			return l.line(l.take(l.wr))
		case l.rd == 0 && l.wr == len(l.buf):
			// A line longer than the buffer: gathered, or left out.
			if !l.overflow() {
				return false
			}
		}
		if !l.fill() {
			return false
		}
	}
}

// overflow deals with a full buffer that holds no line's end, the
// middle of a line (rd is 0: the buffer holds none of the lines handed
// out, so it is reused, kept or not): binary data is refused at once (a
// stream of NULs is not read to MaxLine to be called too long), or left
// out up to its last NUL (Skip); a line longer than MaxLine is refused or
// dropped; the rest is gathered. False on an error.
func (l *Lines) overflow() bool {
	switch {
	case l.discard:
		l.dropped += int64(l.wr)
	case l.nul >= 0 && !l.skipping() && (len(l.long) > 0 || !l.leadingNULs(l.n+1, l.buf[:bytes.LastIndexByte(l.buf[:l.wr], 0)+1])):
		start := l.long
		if len(start) == 0 {
			start = l.buf[:l.wr]
		}
		l.err = binary(l.source, l.n+1, start)
		return false
	case l.nul >= 0:
		if !l.nulLine {
			l.before = int64(len(l.long) + bytes.IndexByte(l.buf[:l.wr], 0))
		}
		j := bytes.LastIndexByte(l.buf[:l.wr], 0) + 1
		l.dropped += int64(len(l.long) + j)
		l.long, l.nulLine, l.nul = l.long[:0], true, -1
		l.wr = copy(l.buf, l.buf[j:l.wr])
		return true
	case len(l.long)+l.wr > MaxLine+2: // the line, "\r\n"
		if !l.skipping() {
			l.err = lineTooLong(l.source, l.n+1)
			return false
		}
		start := l.long
		if len(start) == 0 {
			start = l.buf[:l.wr]
		}
		l.head = startOf(start)
		l.dropped += int64(len(l.long) + l.wr)
		l.long, l.discard = nil, true
	default:
		l.gather(l.take(l.wr))
	}
	l.rd, l.wr, l.nul = 0, 0, -1
	return true
}

// take is the buffer up to end, from the unread start, and marks it read.
func (l *Lines) take(end int) []byte {
	b := l.buf[l.rd:end]
	if l.nul >= l.rd && l.nul < end {
		l.isNul = true
	}
	l.rd = end
	return b
}

// fill moves the unread bytes to the front of the buffer (to a new one
// when kept, once it is full) and reads more after them, looking for a
// NUL in what it read; false when the reader makes no progress.
func (l *Lines) fill() bool {
	switch {
	case l.keep && l.wr == len(l.buf):
		// A new buffer, where the old one's bytes stay as they are.
		buf := make([]byte, len(l.buf))
		copy(buf, l.buf[l.rd:l.wr])
		l.buf = buf
		if l.nul >= 0 {
			l.nul -= l.rd
		}
		l.wr -= l.rd
		l.rd = 0
	case !l.keep && l.rd > 0:
		copy(l.buf, l.buf[l.rd:l.wr])
		if l.nul >= 0 {
			l.nul -= l.rd
		}
		l.wr -= l.rd
		l.rd = 0
	}
	for empty := 0; ; empty++ {
		k, err := l.r.Read(l.buf[l.wr:])
		if k > 0 && l.nul < 0 {
			if i := bytes.IndexByte(l.buf[l.wr:l.wr+k], 0); i >= 0 {
				l.nul = l.wr + i
			}
		}
		l.wr += k
		switch {
		case err != nil:
			l.rerr = err
			return true
		case k > 0:
			return true
		case empty == 100:
			l.err = Errorf(l.source, l.n+1, "read: %v", io.ErrNoProgress)
			return false
		}
	}
}

// line hands out b, the next line with its "\n", or refuses it.
func (l *Lines) line(b []byte) bool {
	start := -1 // where b starts in buf; -1 for a line gathered in long
	if len(l.long) > 0 {
		l.gather(b)
		b = l.long
	} else {
		start = l.rd - len(b) // take's
	}
	l.n++
	l.off += int64(len(b))
	// The ends are cut by hand: bytes.TrimSuffix compares through a call
	// that took most of the time of a short line.
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	cur := b
	if n := len(cur); n > 0 && cur[n-1] == '\r' {
		cur = cur[:n-1]
	}
	if l.discard || l.isNul || l.nulLine || len(cur) > MaxLine {
		return l.unusual(b, cur)
	}
	if l.n == 1 {
		if len(cur) >= 3 && cur[0] == 0xef && cur[1] == 0xbb && cur[2] == 0xbf {
			cur = cur[3:] // a UTF-8 byte order mark, as some editors write
			if start >= 0 {
				start += 3
			}
		}
		if crOnly(cur) {
			l.err = Errorf(l.source, 1, "lines that end with a carriage return alone (classic Mac OS line ends): the input reads as one line; convert them first (tr '\\r' '\\n')")
			return false
		}
	}
	if start < 0 {
		l.cur, l.inBuf = cur, false
		return true
	}
	if l.cur != nil {
		l.cur = nil // let a long line go
	}
	l.lo, l.hi, l.inBuf = start, start+len(cur), true
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

// Bytes is the current line, valid until the next call to Next (for good
// with NewKeptLines).
func (l *Lines) Bytes() []byte {
	if l.inBuf {
		return l.buf[l.lo:l.hi]
	}
	return l.cur
}

// Text is the current line as a string.
func (l *Lines) Text() string { return string(l.Bytes()) }

// Unended reports whether the current line is the input's last and no
// newline ended it: a file cut short (a copy interrupted, a truncated
// capture) ends so, where /proc files and the outputs pgstudy reads end
// every line. A parser of numbers whose last field may have lost digits
// leaves such a line out rather than read a wrong number.
func (l *Lines) Unended() bool { return l.unended }

// Line is the current line's number, from 1.
func (l *Lines) Line() int { return l.n }

// Offset is the number of bytes read up to the end of the current line,
// its "\n" included: what a parser holding its records bounds.
func (l *Lines) Offset() int64 { return l.off }

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
		if utf16(line) {
			return Errorf(source, n, "UTF-16 text (a NUL every other byte); expected UTF-8: convert it first (iconv -f UTF-16 -t UTF-8)")
		}
	}
	return Errorf(source, n, "binary data (a NUL byte); expected text")
}

// utf16 reports whether line starts as UTF-16 text does: a byte order
// mark, or ASCII letters with a NUL after (little-endian, as Windows
// writes it) or before (big-endian) each.
func utf16(line []byte) bool {
	if bytes.HasPrefix(line, []byte{0xff, 0xfe}) || bytes.HasPrefix(line, []byte{0xfe, 0xff}) {
		return true
	}
	if len(line) < 8 {
		return false
	}
	le, be := true, true
	for i := 0; i < 8; i += 2 {
		le = le && line[i] >= 0x20 && line[i] < 0x7f && line[i+1] == 0
		be = be && line[i] == 0 && line[i+1] >= 0x20 && line[i+1] < 0x7f
	}
	return le || be
}

func lineTooLong(source string, n int) error {
	return Errorf(source, n, "a line longer than %d MiB; expected lines of text output", MaxLine>>20)
}

// Fields splits s around runs of white space as bytes.Fields does, into
// out, and returns how many fields s has (more than len(out) are counted,
// not kept), without allocating: the split of the lines a parser reads
// by the thousand (pgbench's progress, sysbench's intervals). Text with
// bytes outside ASCII goes through bytes.Fields, which knows Unicode's
// spaces.
func Fields(s []byte, out [][]byte) int { return fields(s, out, false) }

// Head is Fields that stops when out is full: it returns how many fields
// it put there, and reads no further into s (the name of a line of
// thousands of numbers).
func Head(s []byte, out [][]byte) int { return fields(s, out, true) }

func fields(s []byte, out [][]byte, head bool) int {
	n := 0
	for i := 0; i < len(s) && !(head && n == len(out)); {
		for i < len(s) && byteClass[s[i]] == spaceByte {
			i++
		}
		if i == len(s) {
			break
		}
		start := i
		for i < len(s) && byteClass[s[i]] == otherByte {
			i++
		}
		if i < len(s) && byteClass[s[i]] == wideByte {
			all := bytes.Fields(s)
			copy(out, all)
			if head {
				return min(len(all), len(out))
			}
			return len(all)
		}
		if n < len(out) {
			out[n] = s[start:i]
		}
		n++
	}
	return n
}

// byteClass tells Fields' bytes apart in one look-up: bytes.Fields' white
// space among ASCII bytes, bytes outside ASCII, and the others.
var byteClass = func() (c [256]uint8) {
	for _, b := range []byte(" \t\n\v\f\r") {
		c[b] = spaceByte
	}
	for b := 0x80; b < 0x100; b++ {
		c[b] = wideByte
	}
	return c
}()

const (
	otherByte = iota
	spaceByte
	wideByte
)
