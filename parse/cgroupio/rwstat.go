package cgroupio

import (
	"fmt"
	"io"
	"iter"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// ParseRWStat parses one of cgroup v1 blkio's per-operation files read
// from r; source names it in errors and warnings. Every line is "MAJ:MIN
// Op N" (Op one of Read, Write, Sync, Async, Discard, Total) or the
// group's "Total N"; a device's lines come together.
func ParseRWStat(r io.Reader, source string) (RWStat, []parse.Warning, error) {
	var (
		st    RWStat
		warns []parse.Warning
		devs  batch.Rows[RWStatLine]
	)
	var rd rwReader
	rd.init(r, source)
	rd.limit, rd.size = maxLines, parse.Size(r)
	for rd.Next() {
		switch {
		case rd.isWarn:
			if warns = append(warns, rd.w); len(warns) == parse.Judged && !rd.Started() {
				return RWStat{}, warns, rd.Refuse(parse.Judged) // another kind of file
			}
		case rd.cur.Group:
			st.Total = rd.cur.Total
		default:
			if devs.Len() == 0 {
				devs.Expect(rd.size, int(rd.perRow)) // room for all at once
			}
			devs.Add(rd.cur.RWStatLine)
		}
	}
	switch err := rd.End(); {
	case rd.over:
		return RWStat{}, nil, err
	case err != nil:
		return RWStat{}, warns, err
	}
	st.Devices = devs.All()
	return st, warns, nil
}

// RWStatEntry is what RWStatSeq yields: a device's block, or (Group) the
// group's "Total N" line, N in Total.
type RWStatEntry struct {
	RWStatLine
	Group bool `json:"group,omitempty"`
}

// RWStatSeq reads a v1 blkio file as ParseRWStat does, but yields each
// device's block once it is read (at the next device's first line, or at
// the end), and the group's Total line as it comes, which is before the
// block it follows, since a device's line after it would still be that
// block's. It holds one block, and the device numbers seen, to tell a
// device that comes again (up to maxLines of them: more is an error).
// The entries it yields, their counters included, are the caller's to
// keep. Lines of another shape go to warn (when not nil) as they come,
// those before the first good line waiting for it; input of no good line
// gives its warnings and then its error, the last pair. A consumer that
// stops ends the reading.
func RWStatSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[RWStatEntry, error] {
	return parse.StepSeq(func() parse.Stepper[RWStatEntry] {
		rd := new(rwReader)
		rd.init(r, source)
		return rd
	}, warn)
}

// rwOps is the number of operations RWStatLine has fields for.
const rwOps = 6

// rwReader reads a v1 file a line at a time: each next stops at a block
// read (cur, at the next device's line or the end), at the group's Total
// (cur, Group set) or at a line of another shape (a warning, w; after
// the block when the line that ended it is one).
type rwReader struct {
	lineReader
	cur     RWStatEntry
	isWarn  bool
	closed  bool // the line read ended a block, now in cur
	pending bool // w is the warning of the line that ended cur's block
	total   bool // the group's Total was read
	// The block being read: its device, counts and operations read.
	open     bool
	maj, min uint32
	v        [rwOps]uint64
	ops      uint
	devs     devSet
	devsOver bool // more than maxLines devices
	// The devices' Totals summed, which the group's Total is, unless a
	// device's line was warned of (devWarned: then nothing is checked).
	sumTotal  uint64
	devWarned bool
}

func (r *rwReader) Next() bool {
	r.isWarn = false
	if r.pending {
		r.pending, r.isWarn = false, true
		return true
	}
	r.cur.Group = false
	for {
		b, ok := r.line()
		if !ok {
			break
		}
		msg := unended
		if !r.l.Unended() {
			msg = r.read(b)
		}
		if msg != "" {
			r.warn(msg)
			r.devWarned = true
		}
		switch {
		case r.closed:
			r.closed, r.pending = false, msg != ""
			return true
		case msg != "":
			r.isWarn = true
			return true
		case r.cur.Group:
			return true
		}
	}
	if r.open && !r.devsOver {
		r.close()
		r.closed = false
		return true
	}
	return false
}

func (r *rwReader) Warning() *parse.Warning {
	if r.isWarn {
		return &r.w
	}
	return nil
}

func (r *rwReader) Record() RWStatEntry { return r.cur }
func (r *rwReader) Started() bool       { return r.good > 0 }

// end is the error of the input, once it is read: the line reader's, too
// many lines or devices, empty input, or lines none of which is a blkio
// file's.
func (r *rwReader) End() error {
	switch {
	case r.over:
		return parse.Errorf(r.source, r.l.Line(), "more than %d lines; a blkio file has six per device", maxLines)
	case r.devsOver:
		return parse.Errorf(r.source, r.l.Line(), "more than %d devices; a blkio file has a block per device of the host", maxLines)
	}
	if err := r.l.Err(); err != nil {
		return err
	}
	switch {
	case r.lines == 0:
		return parse.Errorf(r.source, 0, "empty input; expected a cgroup v1 blkio file, which prints at least its Total line")
	case r.good == 0:
		return r.Refuse(0)
	}
	return nil
}

// Refuse is the error of input whose lines read, or its first n not
// understood (parse.StepSeq), hold no blkio line.
func (r *rwReader) Refuse(n int) error {
	w := r.first
	return parse.Errorf(r.source, w.Line, "not a cgroup v1 blkio file (%s is MAJ:MIN Op N or Total N): %s: %s", parse.NoLineOf(n), w.Msg, num.Quote(w.Text))
}

// rwLine is a line of a v1 file as the general path reads it: a
// device's count of an operation (op its index, see rwOp; name as
// printed), or the group's Total.
type rwLine struct {
	maj, min uint32
	op       int
	name     []byte
	count    uint64
	group    bool // the group's "Total N"
}

// read reads a line into the block being read or the group's total, or
// says why it is not a line of the file.
func (r *rwReader) read(b []byte) string {
	if maj, min, op, c, ok := fastRW(b); ok {
		return r.count(maj, min, op, nil, c)
	}
	ln, msg := anyRW(b)
	switch {
	case msg != "":
		return msg
	case !ln.group:
		return r.count(ln.maj, ln.min, ln.op, ln.name, ln.count)
	case r.total:
		return "a second Total line"
	case !r.devWarned && ln.count != r.sumTotal:
		return fmt.Sprintf("the group's Total is not its devices' Totals summed (%d), as the kernel prints it: left out", r.sumTotal)
	}
	r.total = true
	r.good++
	r.cur = RWStatEntry{RWStatLine: RWStatLine{Total: r.counts.New(ln.count)}, Group: true}
	return ""
}

// count reads a device's count of an operation (op, -1 for an unknown
// name, as printed) into the block being read: a line of another device
// ends it and begins the next.
func (r *rwReader) count(maj, min uint32, op int, name []byte, c uint64) string {
	if !r.open || r.maj != maj || r.min != min {
		if r.devs.add(maj, min) {
			return fmt.Sprintf("device %d:%d again, after other devices' lines", maj, min)
		}
		if r.devs.n > maxLines {
			r.done, r.devsOver = true, true
			return ""
		}
		if r.open {
			if r.devs.n == 2 {
				// The first block tells how many an input of known size
				// has, give or take: taken as a third longer than the
				// others, as a busy disk's counts are (254:0's in the
				// fixture, before the loop devices').
				r.devs.expect = r.reserve(r.l.Offset()*2/3, rwOps)
			}
			r.close()
		}
		r.open, r.maj, r.min, r.ops = true, maj, min, 0
	}
	switch {
	case op < 0:
		return fmt.Sprintf("unknown operation %s; expected Read, Write, Sync, Async, Discard or Total", num.Quote(name))
	case r.ops&(1<<op) != 0:
		return fmt.Sprintf("%s of %d:%d is given twice", rwOpNames[op], maj, min)
	}
	if op == rwTotal && !r.devWarned {
		if msg := r.checkTotal(maj, min, c); msg != "" {
			return msg
		}
	}
	r.v[op], r.ops = c, r.ops|1<<op
	if op == rwTotal {
		r.sumTotal += c // as the kernel sums them, wrapping
	}
	r.good++
	return ""
}

// rwTotal is the index of a device's Total among the operations.
const rwTotal = 5

// checkTotal says why a device's Total, c, is not the one the kernel
// prints (__blkg_prfill_rwstat: the sum of its Read, Write and, from
// Linux 4.19, Discard, all read from one copy of the counters), or "".
// A block without its Read or Write is not checked.
func (r *rwReader) checkTotal(maj, min uint32, c uint64) string {
	const read, write, discard = 1 << 0, 1 << 1, 1 << 4
	if r.ops&(read|write) != read|write {
		return ""
	}
	sum := r.v[0] + r.v[1]
	if r.ops&discard != 0 {
		sum += r.v[4]
	}
	if c == sum {
		return ""
	}
	return fmt.Sprintf("Total of %d:%d is not its Read, Write and Discard summed (%d), as the kernel prints it: left out", maj, min, sum)
}

// close puts the block read in cur, its counters from counts.
func (r *rwReader) close() {
	var p [rwOps]*uint64
	for op := range r.v {
		if r.ops&(1<<op) != 0 {
			p[op] = r.counts.New(r.v[op])
		}
	}
	r.cur = RWStatEntry{RWStatLine: RWStatLine{Major: r.maj, Minor: r.min,
		Read: p[0], Write: p[1], Sync: p[2], Async: p[3], Discard: p[4], Total: p[5]}}
	r.open, r.closed = false, true
}

// fastRW reads a device's line of the kernel's own shape, "MAJ:MIN Op
// N", Op one of the six; false for any other line.
func fastRW(b []byte) (maj, min uint32, op int, c uint64, ok bool) {
	maj, min, i, ok := fastDev(b)
	if !ok {
		return 0, 0, 0, 0, false
	}
	i = skipBlank(b, i)
	k := i
	for i < len(b) && b[i] >= 'A' && b[i] <= 'z' {
		i++
	}
	if op = rwOp(b[k:i]); op < 0 || i == len(b) || b[i] != ' ' && b[i] != '\t' {
		return 0, 0, 0, 0, false
	}
	c, end, ok := digits(b, skipBlank(b, i))
	return maj, min, op, c, ok && end == len(b)
}

// anyRW reads any line of a v1 file, or says why it is not one; an
// operation of another name is read, with op -1.
func anyRW(b []byte) (rwLine, string) {
	var f [3][]byte
	n := parse.Fields(b, f[:])
	if n == 2 && string(f[0]) == "Total" {
		t, ok := num.Uint(f[1])
		if !ok {
			return rwLine{}, fmt.Sprintf("the total %s is not a whole number", num.Quote(f[1]))
		}
		return rwLine{count: t, group: true}, ""
	}
	if n != 3 {
		return rwLine{}, fmt.Sprintf("%d fields; want 3 (MAJ:MIN, an operation and a count) or 2 (Total and a count)", n)
	}
	maj, min, ok := devNum(f[0])
	if !ok {
		return rwLine{}, "the line does not start with a device number MAJ:MIN"
	}
	c, ok := num.Uint(f[2])
	if !ok {
		return rwLine{}, fmt.Sprintf("the count %s is not a whole number", num.Quote(f[2]))
	}
	return rwLine{maj: maj, min: min, op: rwOp(f[1]), name: f[1], count: c}, ""
}

// devSet is the devices whose block came: a scan while there are few,
// then a table of their numbers, open addressed (a scan at each of 256
// devices was a fifth of the parse, a Go map a quarter).
type devSet struct {
	few    [16]uint64
	n      int
	table  []uint64 // a device's number + 1, 0 for an empty slot
	expect int      // how many devices a parse expects, to size the table once
	last   bool     // the number 2^64-1 (4294967295:4294967295), which has no +1
}

// add adds a device, and tells whether it was there already.
func (s *devSet) add(major, minor uint32) bool {
	k := uint64(major)<<32 | uint64(minor)
	if s.n < len(s.few) {
		for _, d := range s.few[:s.n] {
			if d == k {
				return true
			}
		}
		s.few[s.n] = k
		s.n++
		return false
	}
	if s.table == nil {
		size := 4 * len(s.few)
		for size < 2*s.expect {
			size *= 2
		}
		s.table = make([]uint64, size)
		for _, d := range s.few {
			s.put(d)
		}
	}
	if !s.put(k) {
		return true
	}
	if s.n++; 2*s.n > len(s.table) { // at most half full
		old := s.table
		s.table = make([]uint64, 2*len(old))
		for _, d := range old {
			if d != 0 {
				s.put(d - 1)
			}
		}
	}
	return false
}

// put puts k in the table, and tells whether it was not there.
func (s *devSet) put(k uint64) bool {
	if k == 1<<64-1 {
		was := s.last
		s.last = true
		return !was
	}
	mask := uint64(len(s.table) - 1)
	for i := (k * 0x9e3779b97f4a7c15) >> 32 & mask; ; i = (i + 1) & mask {
		switch s.table[i] {
		case 0:
			s.table[i] = k + 1
			return true
		case k + 1:
			return false
		}
	}
}

// rwOp is the index of an operation's name among RWStatLine's (Read 0 to
// Total 5), or -1.
func rwOp(name []byte) int {
	switch string(name) {
	case "Read":
		return 0
	case "Write":
		return 1
	case "Sync":
		return 2
	case "Async":
		return 3
	case "Discard":
		return 4
	case "Total":
		return 5
	}
	return -1
}

// rwOpNames are the operations' names, by index (see rwOp).
var rwOpNames = [rwOps]string{"Read", "Write", "Sync", "Async", "Discard", "Total"}
