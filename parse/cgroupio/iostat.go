package cgroupio

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// ParseIOStat parses a cgroup v2 io.stat read from r; source names it in
// errors and warnings. Every line is a device number and key=value pairs;
// the six counters are kept by name, other keys in Other. An empty file
// (a group that has done no I/O) is no devices, not an error.
func ParseIOStat(r io.Reader, source string) (IOStat, []parse.Warning, error) {
	var (
		warns []parse.Warning
		devs  batch.Rows[IOStatLine]
		seen  devSet
	)
	var rd ioReader
	rd.init(r, source)
	rd.limit, rd.size = maxLines, parse.Size(r)
	for rd.Next() {
		if !rd.isWarn && seen.add(rd.cur.Major, rd.cur.Minor) {
			// The kernel prints a device once (IOStatSeq reads
			// snapshots one after the other, where it comes again).
			rd.warn(fmt.Sprintf("device %d:%d again; an io.stat has a line per device: left out", rd.cur.Major, rd.cur.Minor))
			rd.isWarn = true
		}
		if rd.isWarn {
			if warns = append(warns, rd.w); len(warns) == parse.Judged && !rd.Started() {
				return IOStat{}, warns, rd.Refuse(parse.Judged) // another kind of file
			}
			continue
		}
		if devs.Len() == 0 {
			devs.Expect(rd.size, int(rd.perRow)) // room for all at once
		}
		devs.Add(rd.cur)
	}
	switch err := rd.End(); {
	case rd.over:
		return IOStat{}, nil, err
	case err != nil:
		return IOStat{}, warns, err
	}
	st := IOStat{Devices: devs.All()}
	if st.Devices == nil {
		// An empty io.stat is a group that has done no I/O: no devices,
		// written [], not null (unknown).
		st.Devices = []IOStatLine{}
	}
	return st, warns, nil
}

// IOStatSeq reads io.stat as ParseIOStat does, but yields each device's
// line as it reads it, and holds one line: a concatenation of snapshots
// reads in the memory of its longest line, with no bound on their
// number. The lines it yields, their counters included, are the caller's
// to keep. Lines of another shape go to warn (when not nil) as they
// come, those before the first device line waiting for it; input of no
// device line gives its warnings and then its error, the last pair. A
// consumer that stops ends the reading.
func IOStatSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[IOStatLine, error] {
	return parse.StepSeq(func() parse.Stepper[IOStatLine] {
		rd := new(ioReader)
		rd.init(r, source)
		return rd
	}, warn)
}

// ioReader reads io.stat a line at a time: each next stops at a device
// line (cur) or at a line of another shape (a warning, w).
type ioReader struct {
	lineReader
	cur    IOStatLine
	isWarn bool
}

func (r *ioReader) Next() bool {
	b, ok := r.line()
	if !ok {
		return false
	}
	if r.good == 0 { // the first line tells how many an input of known size has
		r.reserve(r.l.Offset(), bytes.Count(b, []byte("=")))
	}
	if r.l.Unended() {
		r.warn(unended)
		r.isWarn = true
		return true
	}
	line, ok := fastIOStat(b, &r.counts)
	if !ok {
		var msg string
		if line, msg = ioStatLine(b, &r.counts); msg != "" {
			r.warn(msg)
			r.isWarn = true
			return true
		}
	}
	r.cur, r.isWarn = line, false
	r.good++
	return true
}

func (r *ioReader) Warning() *parse.Warning {
	if r.isWarn {
		return &r.w
	}
	return nil
}

func (r *ioReader) Record() IOStatLine { return r.cur }
func (r *ioReader) Started() bool      { return r.good > 0 }

// end is the error of the input, once it is read: the line reader's, too
// many lines, or lines none of which is an io.stat line.
func (r *ioReader) End() error {
	if r.over {
		return parse.Errorf(r.source, r.l.Line(), "more than %d lines; an io.stat has one per device", maxLines)
	}
	if err := r.l.Err(); err != nil {
		return err
	}
	if r.good == 0 && r.lines > 0 {
		return r.Refuse(0)
	}
	return nil
}

// fastIOStat reads an io.stat line of the kernel's own shape: a device
// number, then the six counters or some of them, each once, as key=N,
// and no other key. false for any other line.
func fastIOStat(b []byte, counts *batch.Of[uint64]) (IOStatLine, bool) {
	maj, min, i, ok := fastDev(b)
	if !ok {
		return IOStatLine{}, false
	}
	var v [ioCounters]uint64
	var seen uint
	for i = skipBlank(b, i); i < len(b); i = skipBlank(b, i) {
		k := i
		for i < len(b) && b[i] >= 'a' && b[i] <= 'z' {
			i++
		}
		if i == len(b) || b[i] != '=' {
			return IOStatLine{}, false
		}
		c := ioCounter(b[k:i])
		if c < 0 || seen&(1<<c) != 0 {
			return IOStatLine{}, false
		}
		x, end, ok := digits(b, i+1)
		if !ok || !endsField(b, end) {
			return IOStatLine{}, false
		}
		v[c], seen, i = x, seen|1<<c, end
	}
	if seen&0b1111 == 0 { // none of rbytes, wbytes, rios and wios
		return IOStatLine{}, false
	}
	line := IOStatLine{Major: maj, Minor: min}
	for c := range v {
		if seen&(1<<c) != 0 {
			*line.counterAt(c) = counts.New(v[c])
		}
	}
	return line, true
}

// ioStatLine reads any line of io.stat, or says why it is not one; its
// counters come from counts.
func ioStatLine(b []byte, counts *batch.Of[uint64]) (IOStatLine, string) {
	var room [32][]byte // more keys than io policies print
	f := room[:]
	if n := parse.Fields(b, f); n <= len(f) {
		f = f[:n]
	} else {
		f = bytes.Fields(b)
	}
	var line IOStatLine
	var ok bool
	if line.Major, line.Minor, ok = devNum(f[0]); !ok {
		return IOStatLine{}, "the line does not start with a device number MAJ:MIN"
	}
	if len(f) == 1 {
		return IOStatLine{}, "a device number without counters"
	}
	for i, kv := range f[1:] {
		k, v, found := bytes.Cut(kv, []byte("="))
		if !found || len(k) == 0 {
			return IOStatLine{}, fmt.Sprintf("%s is not key=value", num.Quote(kv))
		}
		if givenBefore(k, f[1:1+i]) {
			return IOStatLine{}, fmt.Sprintf("%s is given twice", k)
		}
		c := ioCounter(k)
		if c < 0 {
			line.Other = append(line.Other, Pair{Key: string(k), Value: string(v)})
			continue
		}
		n, ok := num.Uint(v)
		if !ok {
			return IOStatLine{}, fmt.Sprintf("%s=%s is not a whole number", k, num.Quote(v))
		}
		*line.counterAt(c) = counts.New(n)
	}
	if line.RBytes == nil && line.WBytes == nil && line.RIOs == nil && line.WIOs == nil {
		return IOStatLine{}, "none of rbytes, wbytes, rios and wios"
	}
	return line, ""
}

// givenBefore reports whether key is the key of one of the pairs before
// it (a line has a dozen at most: no map).
func givenBefore(key []byte, before [][]byte) bool {
	for _, kv := range before {
		if k, _, _ := bytes.Cut(kv, []byte("=")); bytes.Equal(k, key) {
			return true
		}
	}
	return false
}

// ioCounters is the number of counters IOStatLine has fields for.
const ioCounters = 6

// ioCounter is the index of a counter's key among IOStatLine's counters
// (rbytes 0 to dios 5), or -1.
func ioCounter(key []byte) int {
	switch string(key) {
	case "rbytes":
		return 0
	case "wbytes":
		return 1
	case "rios":
		return 2
	case "wios":
		return 3
	case "dbytes":
		return 4
	case "dios":
		return 5
	}
	return -1
}

// counterAt is the counter of index c (see ioCounter).
func (l *IOStatLine) counterAt(c int) **uint64 {
	switch c {
	case 0:
		return &l.RBytes
	case 1:
		return &l.WBytes
	case 2:
		return &l.RIOs
	case 3:
		return &l.WIOs
	case 4:
		return &l.DBytes
	}
	return &l.DIOs
}

// Refuse is the error of input whose lines read, or its first n not
// understood (parse.StepSeq), hold no io.stat line.
func (r *ioReader) Refuse(n int) error {
	w := r.first
	return parse.Errorf(r.source, w.Line, "not a cgroup io.stat (%s is MAJ:MIN rbytes=N ...): %s: %s", parse.NoLineOf(n), w.Msg, num.Quote(w.Text))
}
