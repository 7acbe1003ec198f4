package diskstats

import (
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"math/bits"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// ParseSeq reads /proc/diskstats as Parse does, but yields each device
// line's counters as it reads them, as parse/vacuum's ParseSeq yields
// records, and holds one line: a long series of snapshots (a
// concatenation, as a run's samples make) reads in the memory of its
// longest line, not of the series. The Counters it yields are the
// caller's to keep. A line that is not a device line goes to warn (when
// not nil) as it comes; those before the first device line wait for it
// (the first parse.Judged of them, without a device line, refuse the
// input at once), so that input with no device line gives its warnings
// and then its error, the last pair, as Parse does. A consumer that
// stops ends the reading.
func ParseSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[Counters, error] {
	return parse.StepSeq(func() parse.Stepper[Counters] { return newReader(r, source) }, warn)
}

// namesChunk is the size of the chunks of the devices' names: a host's
// names are a few bytes each, most of them repeated in a series.
const namesChunk = 256

// reader reads /proc/diskstats a line at a time, by Parse's rules. Each
// next stops at a device line (cur) or at a line that is not one
// (warning); blank lines are skipped. Input without a device line is an
// error (err), at the end.
type reader struct {
	l      parse.Lines
	source string
	ln     deviceLine
	cur    Counters
	warn   parse.Warning
	isWarn bool
	first  parse.Warning // the first warning, for the error at the end
	lines  int           // the non-blank lines read
	found  int           // the device lines read
	recent [64]string    // names by device number (intern)
	names  batch.Text    // the names' bytes
	done   bool
	err    error
}

func newReader(r io.Reader, source string) *reader {
	rd := new(reader)
	rd.init(r, source)
	return rd
}

// init readies a reader, which Parse holds on its stack and the lines
// in it: two allocations fewer a snapshot.
func (r *reader) init(in io.Reader, source string) {
	r.l.Init(in, source)
	r.source, r.names = source, batch.NewText(namesChunk)
}

// Next advances to the next device line, its counters in cur, or
// warning; false at the end or on an error.
func (r *reader) Next() bool {
	if !r.step() {
		return false
	}
	if !r.isWarn {
		r.ln.fill(&r.cur, r.intern(r.ln.name))
	}
	return true
}

// step is Next without filling cur: the device line is left scanned in
// ln, for Parse to fill the record where it stays.
func (r *reader) step() bool {
	r.isWarn = false
	for !r.done && r.l.Next() {
		b := r.l.Bytes()
		r.ln.scan(b)
		if r.ln.n == 0 {
			continue
		}
		r.lines++
		msg := r.ln.problem()
		if msg == "" && r.l.Unended() {
			msg = unended
		}
		if msg != "" {
			r.warn = parse.Warning{Source: r.source, Line: r.l.Line(), Text: parse.Excerpt(b), Msg: msg}
			if r.first.Line == 0 {
				r.first = r.warn
			}
			r.isWarn = true
			return true
		}
		r.found++
		return true
	}
	if !r.done {
		r.done = true
		r.err = r.finish()
	}
	return false
}

// unended is the warning of a device line the input ends inside: its
// last counter may have lost digits (42 of 42318), and one cut after its
// 18th field reads as a 4.18 kernel's line.
const unended = "the input ends inside this line, without its newline: it may be cut short, so its counters are left out (/proc/diskstats ends every line)"

// finish is the error at the end: the reader's, or input without a
// device line.
func (r *reader) finish() error {
	if err := r.l.Err(); err != nil {
		return err
	}
	switch {
	case r.found > 0:
		return nil
	case r.lines == 0:
		return parse.Errorf(r.source, 0, "empty input; expected /proc/diskstats")
	}
	return r.Refuse(0)
}

// Refuse is the error of input whose lines read, or its first n not
// understood (parse.StepSeq), hold no device line.
func (r *reader) Refuse(n int) error {
	w := r.first
	return parse.Errorf(r.source, w.Line, "not /proc/diskstats (%s is a diskstats line): %s: %s", parse.NoLineOf(n), w.Msg, num.Quote(w.Text))
}

// warning is the line next stopped at when it is not a device line, or
// nil.
// Record, Started and End make the reader a parse.Stepper for ParseSeq.
func (r *reader) Record() Counters { return r.cur }
func (r *reader) Started() bool    { return r.found > 0 }
func (r *reader) End() error       { return r.err }

func (r *reader) Warning() *parse.Warning {
	if r.isWarn {
		return &r.warn
	}
	return nil
}

// problem says why the line is not a device line, as a warning's message,
// or returns "" for a good one.
func (ln *deviceLine) problem() string {
	switch {
	case ln.n != 14 && ln.n != 18 && ln.n != 20:
		return fmt.Sprintf("%d fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters)", ln.n)
	case ln.bad == 0 || ln.v[0] > math.MaxUint32:
		return fmt.Sprintf("major number %s is not an unsigned 32-bit number", num.Quote(ln.major))
	case ln.bad == 1 || ln.v[1] > math.MaxUint32:
		return fmt.Sprintf("minor number %s is not an unsigned 32-bit number", num.Quote(ln.minor))
	case ln.bad > 0:
		return fmt.Sprintf("field %d (%s) is not an unsigned number: %s", ln.bad+1, counterNames[ln.bad-3], num.Quote(ln.badText))
	case !ascii(ln.name) && !utf8.Valid(ln.name):
		// Written as JSON, two such names would be one: loop\xff and
		// loop\xfe both loop\ufffd.
		return fmt.Sprintf("device name %s is not UTF-8 text (the kernel's names are ASCII)", num.Quote(ln.name))
	}
	return ""
}

// ascii reports whether a name is ASCII, as the kernel's are: a loop the
// compiler inlines, where utf8.Valid's call cost 6% of ParseSeq.
func ascii(b []byte) bool {
	var or byte
	for _, c := range b {
		or |= c
	}
	return or < 0x80
}

// intern returns the name the line's device number had on the line
// before, if it is name's, or name as a new string: a series repeats its
// devices, and one string a device spares an allocation a line (a map
// look-up cost as much as the rest of the line but its numbers, and
// building the map more than a snapshot's parse). New names are parts of
// chunks (batch.Text), so that a snapshot's ten names cost one
// allocation, not ten (they were most of one snapshot's).
func (r *reader) intern(name []byte) string {
	slot := &r.recent[(r.ln.v[0]*31+r.ln.v[1])%uint64(len(r.recent))]
	if *slot != string(name) { // no allocation for the comparison
		*slot = batch.String(&r.names, name)
	}
	return *slot
}

// fill sets d to the counters of a good device line.
func (ln *deviceLine) fill(d *Counters, name string) {
	v := ln.v[2:]
	d.Major, d.Minor, d.Name, d.Fields = uint32(ln.v[0]), uint32(ln.v[1]), name, ln.n
	d.ReadsCompleted, d.ReadsMerged, d.ReadSectors, d.ReadTimeMs = v[0], v[1], v[2], v[3]
	d.WritesCompleted, d.WritesMerged, d.WriteSectors, d.WriteTimeMs = v[4], v[5], v[6], v[7]
	d.InFlight, d.IOTimeMs, d.WeightedIOTimeMs = v[8], v[9], v[10]
	// An absent group is the zero Opt, whatever an earlier line left in v.
	d.Discards, d.Flushes = parse.Opt[Discards]{}, parse.Opt[Flushes]{}
	if ln.n < 18 {
		return
	}
	d.Discards = parse.Some(Discards{Completed: v[11], Merged: v[12], Sectors: v[13], TimeMs: v[14]})
	if ln.n == 20 {
		d.Flushes = parse.Some(Flushes{Completed: v[15], TimeMs: v[16]})
	}
}

// deviceLine is one line split into fields, its numbers parsed in the
// same pass.
type deviceLine struct {
	n            int // the number of fields
	major, minor []byte
	name         []byte
	// v holds the numbers: major, minor, then the counters.
	v [19]uint64
	// bad is the index of the first field (other than the name) that is
	// not an unsigned number, or -1; badText is that field.
	bad     int
	badText []byte
}

// scan splits b at runs of spaces and tabs. Fields past the 20th are
// counted, not parsed.
func (ln *deviceLine) scan(b []byte) {
	if ln.kernel(b) {
		return
	}
	if i, ok := ln.head(b); ok {
		ln.countersSlow(b, i)
	}
}

// kernel reads b in one pass when it is a line as the kernel prints it:
// the device's numbers and name, then at most 17 counters, numbers of 1
// to 19 digits, between runs of blanks; false for any other line, which
// head and countersSlow read field by field (FuzzCounters checks that
// both read every line it takes the same). The padding before the
// device's numbers is skipped eight bytes at a time, a counter of one
// digit (most of an idle device's) is read as such, and a longer one
// eight digits at a time (number): a byte at a time cost a branch or
// two a byte.
func (ln *deviceLine) kernel(b []byte) bool {
	ln.bad, ln.badText = -1, nil
	i := skipBlanks(b, 0)
	major, j, ok := number(b, i)
	if !ok {
		return false
	}
	ln.major, ln.v[0] = b[i:j], major
	i = skipBlanks(b, j)
	minor, j, ok := number(b, i)
	if !ok {
		return false
	}
	ln.minor, ln.v[1] = b[i:j], minor
	i = skipBlanks(b, j)
	for j = i; j < len(b) && b[j] != ' ' && b[j] != '\t'; j++ {
	}
	if j == i {
		return false
	}
	ln.name = b[i:j]
	k := 0
	for i = skipBlanks(b, j); i < len(b); k++ {
		if k == 17 {
			return false
		}
		if k <= 13 && len(b)-i >= 8 && oneDigits(binary.LittleEndian.Uint64(b[i:])) {
			w := binary.LittleEndian.Uint64(b[i:])
			ln.v[2+k], ln.v[3+k], ln.v[4+k], ln.v[5+k] = w&0xf, w>>16&0xf, w>>32&0xf, w>>48&0xf
			for k, i = k+3, i+8; i < len(b) && (b[i] == ' ' || b[i] == '\t'); i++ {
			}
			continue
		}
		x := uint64(b[i] - '0')
		if j = i + 1; x > 9 {
			return false
		} else if j < len(b) && b[j] != ' ' && b[j] != '\t' { // more digits
			if x, j, ok = number(b, i); !ok {
				return false
			}
		}
		ln.v[2+k] = x
		// b[j] is a blank: the counters are mostly one apart.
		for i = j + 1; i < len(b) && (b[i] == ' ' || b[i] == '\t'); i++ {
		}
	}
	ln.n = 3 + k
	return true
}

// spaces is eight spaces, as a little-endian word.
const spaces = 0x2020202020202020

// oneDigits reports whether the eight bytes of w (little-endian) are
// four counters of one digit, each followed by a space ("0 0 0 0 "):
// most of an idle device's line, read four at a time.
func oneDigits(w uint64) bool {
	return w&0xff00ff00ff00ff00 == 0x2000200020002000 && w&0x00f000f000f000f0 == 0x0030003000300030 &&
		(w&0x000f000f000f000f+0x0006000600060006)&0x0010001000100010 == 0 // no digit over 9
}

// skipBlanks returns where the run of spaces and tabs at b[i:] ends,
// eight spaces at a time where b has them (the kernel pads the device's
// numbers to 4 and 8 columns).
func skipBlanks(b []byte, i int) int {
	for len(b)-i >= 8 {
		if x := binary.LittleEndian.Uint64(b[i:]) ^ spaces; x != 0 {
			i += bits.TrailingZeros64(x) >> 3
			break
		}
		i += 8
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// number reads the unsigned number at b[i:], returning its value and
// where it ends; false when it is not 1 to 19 digits (which cannot
// overflow) followed by a blank or the end of b. Eight digits at a time
// where b has eight bytes left: the bytes less '0' are digits up to the
// first whose high bit is set in t | t+0x76 (borrows and carries only go
// up, past it), and one word of digits is made a number by three
// multiplications (Lemire's).
func number(b []byte, i int) (uint64, int, bool) {
	var x uint64
	j := i
	if len(b)-i >= 8 {
		t := binary.LittleEndian.Uint64(b[i:]) - 0x3030303030303030
		if nd := (t | (t + 0x7676767676767676)) & 0x8080808080808080; nd != 0 {
			n := bits.TrailingZeros64(nd) >> 3 // the digits
			if c := b[i+n]; n == 0 || c != ' ' && c != '\t' {
				return 0, 0, false
			}
			return eight(t << (64 - 8*n)), i + n, true
		}
		x, j = eight(t), i+8
	}
	for ; j < len(b); j++ {
		d := b[j] - '0'
		if d > 9 {
			break
		}
		x = x*10 + uint64(d)
	}
	if j == i || j-i > 19 || j < len(b) && b[j] != ' ' && b[j] != '\t' {
		return 0, 0, false
	}
	return x, j, true
}

// eight is the number of the eight digits of t, a byte each (0 to 9),
// the first in the lowest byte.
func eight(t uint64) uint64 {
	t = t*10 + t>>8
	return ((t&0x000000FF000000FF)*(100+1000000<<32) + (t>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32
}

// head reads the major and minor numbers and the name, and returns where
// the counters start; false when the line ends before.
func (ln *deviceLine) head(b []byte) (int, bool) {
	ln.n, ln.bad, ln.badText = 0, -1, nil
	i := 0
	for ; ln.n < 3; ln.n++ { // major, minor, name
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == len(b) {
			return i, false
		}
		start := i
		for i < len(b) && b[i] != ' ' && b[i] != '\t' {
			i++
		}
		f := b[start:i]
		switch ln.n {
		case 0:
			ln.major = f
		case 1:
			ln.minor = f
		case 2:
			ln.name = f
			continue
		}
		x, ok := num.Uint(f)
		ln.v[ln.n] = x
		if !ok && ln.bad < 0 {
			ln.bad, ln.badText = ln.n, f
		}
	}
	return i, true
}

// countersSlow reads the counters of b[i:] field by field, each field
// checked on its own: a field that is not a number is the line's bad
// one, and fields past the 20th are counted, not parsed.
func (ln *deviceLine) countersSlow(b []byte, i int) {
	for ; ; ln.n++ { // the counters, in v[2:], then fields counted only
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == len(b) {
			return
		}
		// Digits up to the first other byte, which must end the field.
		// (Eight at a time, with bit operations, was slower on the
		// one-digit fields of idle devices.)
		start := i
		var x uint64
		for i < len(b) {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			x = x*10 + uint64(d)
			i++
		}
		ok := i > start && (i == len(b) || b[i] == ' ' || b[i] == '\t')
		if !ok {
			for i < len(b) && b[i] != ' ' && b[i] != '\t' {
				i++
			}
		} else if i-start > 19 { // may overflow: take the careful way
			x, ok = num.Uint(b[start:i])
		}
		if ln.n <= len(ln.v) {
			if ok {
				ln.v[ln.n-1] = x
			} else if ln.bad < 0 {
				ln.bad, ln.badText = ln.n, b[start:i]
			}
		}
	}
}
