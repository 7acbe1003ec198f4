package cgroupio

import (
	"bytes"
	"io"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
)

// lineReader is what the readers of io.stat and of v1's files share: the
// lines, with their count and bound, the warning a reader stopped at and
// the first of them (which input of no good line names in its error),
// and the batches its records' counters come from.
type lineReader struct {
	l      parse.Lines
	source string
	counts batch.Of[uint64] // the records' counters: the caller's to keep
	w      parse.Warning
	first  parse.Warning
	lines  int   // the non-blank lines read
	good   int   // the lines of the file's kind
	limit  int   // a bound on lines, 0 for none
	size   int64 // the input's size when known and its records kept (a parse, not a sequence), or -1
	perRow int64 // the bytes reserve expects a record to take
	over   bool  // the limit was passed (err says so)
	done   bool
	err    error
}

func (lr *lineReader) init(r io.Reader, source string) {
	lr.l.Init(r, source)
	lr.source, lr.size = source, -1
}

// reserve makes room at once for the counters of all the records of an
// input of known size, a record taking about perRow bytes and up to n
// counters, before the first is allocated: one batch, where batches of 8
// to 256 are 6 allocations for 256 devices and a second one for 4. It
// returns the number of records it expects (0 when the size is not
// known), which perRow keeps for the records' own room.
func (lr *lineReader) reserve(perRow int64, n int) int {
	if lr.size <= perRow || perRow <= 0 {
		return 0
	}
	lr.perRow = perRow
	rows := int(lr.size/perRow*11/10 + 1)
	lr.counts.Reserve(rows*n + 1)
	return rows
}

// line is the next non-blank line, trimmed of white space; false at the
// end, on a read error, or past the limit.
func (lr *lineReader) line() ([]byte, bool) {
	for !lr.done && lr.l.Next() {
		b := lr.l.Bytes()
		// Most lines start with a device's digits: no trimming to do.
		if len(b) == 0 || b[0]-'0' > 9 || b[len(b)-1] <= ' ' || b[len(b)-1] >= 0x80 {
			if b = bytes.TrimSpace(b); len(b) == 0 {
				continue
			}
		}
		if lr.lines++; lr.limit > 0 && lr.lines > lr.limit {
			lr.done, lr.over = true, true
			return nil, false
		}
		return b, true
	}
	lr.done = true
	return nil, false
}

// unended is the warning of a line the input ends inside: its last
// number may have lost digits (Total 1 of Total 17027072), so it is left
// out.
const unended = "the input ends inside this line, without its newline: it may be cut short, so it is left out (the kernel ends every line)"

// warn sets w to a warning about the current line.
func (lr *lineReader) warn(msg string) {
	lr.w = parse.Warning{Source: lr.source, Line: lr.l.Line(), Text: parse.Excerpt(lr.l.Bytes()), Msg: msg}
	if lr.first.Line == 0 {
		lr.first = lr.w
	}
}

// The fast paths read the lines the kernel prints, of ASCII digits,
// names, blanks and tabs: a line they do not read goes to the general
// path, which reads every line by the same rules (FuzzFastPaths checks
// that the two agree). They are the parse's speed: the general path
// splits a line into fields first, and reads each twice.

// skipBlank is the index of the first byte at or after i that is not a
// blank or a tab.
func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// endsField tells whether the byte at i ends a field: the end of the
// line, a blank or a tab.
func endsField(b []byte, i int) bool {
	return i == len(b) || b[i] == ' ' || b[i] == '\t'
}

// digits reads the decimal number at b[i:] and returns it with the index
// after its digits; ok is false when there is no digit, or more than 19
// (which may overflow: the general path reads them).
func digits(b []byte, i int) (x uint64, end int, ok bool) {
	start := i
	for i < len(b) {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		x = x*10 + uint64(d)
		i++
	}
	return x, i, i > start && i-start <= 19
}

// fastDev reads the device number "MAJ:MIN" at the start of a trimmed
// line, followed by a blank, and returns the index after it.
func fastDev(b []byte) (maj, min uint32, end int, ok bool) {
	x, i, ok1 := digits(b, 0)
	if !ok1 || i == len(b) || b[i] != ':' || x > 1<<32-1 {
		return 0, 0, 0, false
	}
	y, i, ok2 := digits(b, i+1)
	if !ok2 || i == len(b) || b[i] != ' ' && b[i] != '\t' || y > 1<<32-1 {
		return 0, 0, 0, false
	}
	return uint32(x), uint32(y), i, true
}
