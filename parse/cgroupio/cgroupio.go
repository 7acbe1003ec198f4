package cgroupio

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// maxLines bounds the lines read: a cgroup file has a few lines per
// device the group has used.
const maxLines = 100_000

// IOStat is a cgroup v2 io.stat file: a line per device the group has
// done I/O on, in the kernel's order.
type IOStat struct {
	Devices []IOStatLine `json:"devices"`
}

// IOStatLine is one device's line of io.stat.
type IOStatLine struct {
	Major  uint32  `json:"major"`
	Minor  uint32  `json:"minor"`
	RBytes *uint64 `json:"rbytes,omitempty"`
	WBytes *uint64 `json:"wbytes,omitempty"`
	RIOs   *uint64 `json:"rios,omitempty"`
	WIOs   *uint64 `json:"wios,omitempty"`
	DBytes *uint64 `json:"dbytes,omitempty"`
	DIOs   *uint64 `json:"dios,omitempty"`
	// Other are the further keys other io policies add to the line
	// (io.cost's cost.usage, io.latency's avg_lat), as printed.
	Other []Pair `json:"other,omitempty"`
}

// Pair is a key and its value as io.stat printed them.
type Pair struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// RWStat is one of cgroup v1 blkio's per-operation files
// (blkio.throttle.io_service_bytes, blkio.throttle.io_serviced and their
// _recursive forms): a block of lines per device, then the group's total.
type RWStat struct {
	Devices []RWStatLine `json:"devices"`
	Total   *uint64      `json:"total,omitempty"`
}

// RWStatLine is one device's block of an RWStat file.
type RWStatLine struct {
	Major   uint32  `json:"major"`
	Minor   uint32  `json:"minor"`
	Read    *uint64 `json:"read,omitempty"`
	Write   *uint64 `json:"write,omitempty"`
	Sync    *uint64 `json:"sync,omitempty"`
	Async   *uint64 `json:"async,omitempty"`
	Discard *uint64 `json:"discard,omitempty"`
	Total   *uint64 `json:"total,omitempty"`
}

// ParseIOStat parses a cgroup v2 io.stat read from r; source names it in
// errors and warnings. Every line is a device number and key=value pairs;
// the six counters are kept by name, other keys in Other. An empty file
// (a group that has done no I/O) is no devices, not an error.
func ParseIOStat(r io.Reader, source string) (IOStat, []parse.Warning, error) {
	var (
		st       IOStat
		warns    []parse.Warning
		nonBlank int
		counts   batch.Of[uint64]
	)
	l := parse.NewLines(r, source)
	for l.Next() {
		b := bytes.TrimSpace(l.Bytes())
		if len(b) == 0 {
			continue
		}
		if nonBlank++; nonBlank > maxLines {
			return IOStat{}, nil, parse.Errorf(source, l.Line(), "more than %d lines; an io.stat has one per device", maxLines)
		}
		line, msg := ioStatLine(b, &counts)
		if msg != "" {
			warns = append(warns, parse.Warning{Source: source, Line: l.Line(), Text: string(l.Bytes()), Msg: msg})
			continue
		}
		st.Devices = append(st.Devices, line)
	}
	if err := l.Err(); err != nil {
		return IOStat{}, warns, err
	}
	if len(st.Devices) == 0 && nonBlank > 0 {
		w := warns[0]
		return IOStat{}, warns, parse.Errorf(source, w.Line, "not a cgroup io.stat (no line of it is MAJ:MIN rbytes=N ...): %s: %s", w.Msg, num.Quote(w.Text))
	}
	return st, warns, nil
}

// ioStatLine reads one line of io.stat, or says why it is not one; its
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
		p := line.counter(k)
		if p == nil {
			line.Other = append(line.Other, Pair{Key: string(k), Value: string(v)})
			continue
		}
		n, ok := num.Uint(v)
		if !ok {
			return IOStatLine{}, fmt.Sprintf("%s=%s is not a whole number", k, num.Quote(v))
		}
		*p = counts.New(n)
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

func (l *IOStatLine) counter(key []byte) **uint64 {
	switch string(key) {
	case "rbytes":
		return &l.RBytes
	case "wbytes":
		return &l.WBytes
	case "rios":
		return &l.RIOs
	case "wios":
		return &l.WIOs
	case "dbytes":
		return &l.DBytes
	case "dios":
		return &l.DIOs
	}
	return nil
}

// ParseRWStat parses one of cgroup v1 blkio's per-operation files read
// from r; source names it in errors and warnings. Every line is "MAJ:MIN
// Op N" (Op one of Read, Write, Sync, Async, Discard, Total) or the
// group's "Total N"; a device's lines come together.
func ParseRWStat(r io.Reader, source string) (RWStat, []parse.Warning, error) {
	var (
		st       RWStat
		warns    []parse.Warning
		nonBlank int
		good     int
		counts   batch.Of[uint64]
		devs     devices
	)
	l := parse.NewLines(r, source)
	for l.Next() {
		b := bytes.TrimSpace(l.Bytes())
		if len(b) == 0 {
			continue
		}
		if nonBlank++; nonBlank > maxLines {
			return RWStat{}, nil, parse.Errorf(source, l.Line(), "more than %d lines; a blkio file has six per device", maxLines)
		}
		var f [3][]byte
		n := parse.Fields(b, f[:])
		if msg := st.add(f[:min(n, len(f))], n, &counts, &devs); msg != "" {
			warns = append(warns, parse.Warning{Source: source, Line: l.Line(), Text: string(l.Bytes()), Msg: msg})
			continue
		}
		good++
	}
	if err := l.Err(); err != nil {
		return RWStat{}, warns, err
	}
	switch {
	case nonBlank == 0:
		return RWStat{}, nil, parse.Errorf(source, 0, "empty input; expected a cgroup v1 blkio file, which prints at least its Total line")
	case good == 0:
		w := warns[0]
		return RWStat{}, warns, parse.Errorf(source, w.Line, "not a cgroup v1 blkio file (no line of it is MAJ:MIN Op N or Total N): %s: %s", w.Msg, num.Quote(w.Text))
	}
	return st, warns, nil
}

// add reads one line of an RWStat file, of n fields (f the first ones),
// into st, or says why it is not one; its counts come from counts, and
// devs knows the devices before.
func (st *RWStat) add(f [][]byte, n int, counts *batch.Of[uint64], devs *devices) string {
	if n == 2 && string(f[0]) == "Total" {
		t, ok := num.Uint(f[1])
		switch {
		case !ok:
			return fmt.Sprintf("the total %s is not a whole number", num.Quote(f[1]))
		case st.Total != nil:
			return "a second Total line"
		}
		st.Total = counts.New(t)
		return ""
	}
	if n != 3 {
		return fmt.Sprintf("%d fields; want 3 (MAJ:MIN, an operation and a count) or 2 (Total and a count)", n)
	}
	maj, min, ok := devNum(f[0])
	if !ok {
		return "the line does not start with a device number MAJ:MIN"
	}
	c, ok := num.Uint(f[2])
	if !ok {
		return fmt.Sprintf("the count %s is not a whole number", num.Quote(f[2]))
	}
	if len(st.Devices) == 0 || st.Devices[len(st.Devices)-1].Major != maj || st.Devices[len(st.Devices)-1].Minor != min {
		if devs.seen(st.Devices, maj, min) {
			return fmt.Sprintf("device %d:%d again, after other devices' lines", maj, min)
		}
		st.Devices = append(st.Devices, RWStatLine{Major: maj, Minor: min})
	}
	d := &st.Devices[len(st.Devices)-1]
	p := d.op(f[1])
	switch {
	case p == nil:
		return fmt.Sprintf("unknown operation %s; expected Read, Write, Sync, Async, Discard or Total", num.Quote(f[1]))
	case *p != nil:
		return fmt.Sprintf("%s of %d:%d is given twice", f[1], maj, min)
	}
	*p = counts.New(c)
	return ""
}

// devices tells whether a device's block came before: by a scan of the
// blocks while there are few, by a map of their numbers when there are
// many (a scan at each of 256 devices was a fifth of the parse).
type devices map[[2]uint32]bool

func (m *devices) seen(blocks []RWStatLine, major, minor uint32) bool {
	if len(blocks) < 16 {
		for _, d := range blocks {
			if d.Major == major && d.Minor == minor {
				return true
			}
		}
		return false
	}
	if *m == nil {
		*m = make(devices, 2*len(blocks))
		for _, d := range blocks {
			(*m)[[2]uint32{d.Major, d.Minor}] = true
		}
	}
	k := [2]uint32{major, minor}
	if (*m)[k] {
		return true
	}
	(*m)[k] = true
	return false
}

func (d *RWStatLine) op(name []byte) **uint64 {
	switch string(name) {
	case "Read":
		return &d.Read
	case "Write":
		return &d.Write
	case "Sync":
		return &d.Sync
	case "Async":
		return &d.Async
	case "Discard":
		return &d.Discard
	case "Total":
		return &d.Total
	}
	return nil
}

// devNum reads a device number "MAJ:MIN".
func devNum(b []byte) (maj, min uint32, ok bool) {
	a, c, found := bytes.Cut(b, []byte(":"))
	if !found {
		return 0, 0, false
	}
	x, ok1 := num.Uint(a)
	y, ok2 := num.Uint(c)
	if !ok1 || !ok2 || x > 1<<32-1 || y > 1<<32-1 {
		return 0, 0, false
	}
	return uint32(x), uint32(y), true
}

// Counters are a device's I/O as a cgroup counted it: bytes and I/Os
// read and written. A counter the file does not have is nil.
type Counters struct {
	ReadBytes  *uint64 `json:"read_bytes,omitempty"`
	WriteBytes *uint64 `json:"write_bytes,omitempty"`
	Reads      *uint64 `json:"reads,omitempty"`
	Writes     *uint64 `json:"writes,omitempty"`
}

// DevKey is how Counters are keyed: "MAJ:MIN", as cgroup files and
// /sys/block/NAME/dev write a device number.
func DevKey(major, minor uint32) string {
	return strconv.FormatUint(uint64(major), 10) + ":" + strconv.FormatUint(uint64(minor), 10)
}

// Counters is the file's counters by device number.
func (s IOStat) Counters() map[string]Counters {
	out := make(map[string]Counters, len(s.Devices))
	for _, d := range s.Devices {
		out[DevKey(d.Major, d.Minor)] = Counters{ReadBytes: d.RBytes, WriteBytes: d.WBytes, Reads: d.RIOs, Writes: d.WIOs}
	}
	return out
}

// V1Counters joins v1's bytes file (io_service_bytes) and I/Os file
// (io_serviced) of one group into counters by device number; either may
// be empty (RWStat{}) when it was not read.
func V1Counters(byteFile, ioFile RWStat) map[string]Counters {
	out := map[string]Counters{}
	for _, d := range byteFile.Devices {
		k := DevKey(d.Major, d.Minor)
		c := out[k]
		c.ReadBytes, c.WriteBytes = d.Read, d.Write
		out[k] = c
	}
	for _, d := range ioFile.Devices {
		k := DevKey(d.Major, d.Minor)
		c := out[k]
		c.Reads, c.Writes = d.Read, d.Write
		out[k] = c
	}
	return out
}
