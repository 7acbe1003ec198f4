package cgroupio

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/pgstudy/pgstudy/parse"
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
		line, msg := ioStatLine(b)
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

// ioStatLine reads one line of io.stat, or says why it is not one.
func ioStatLine(b []byte) (IOStatLine, string) {
	f := bytes.Fields(b)
	var line IOStatLine
	var ok bool
	if line.Major, line.Minor, ok = devNum(f[0]); !ok {
		return IOStatLine{}, "the line does not start with a device number MAJ:MIN"
	}
	if len(f) == 1 {
		return IOStatLine{}, "a device number without counters"
	}
	seen := map[string]bool{}
	for _, kv := range f[1:] {
		k, v, found := bytes.Cut(kv, []byte("="))
		if !found || len(k) == 0 {
			return IOStatLine{}, fmt.Sprintf("%s is not key=value", num.Quote(kv))
		}
		if seen[string(k)] {
			return IOStatLine{}, fmt.Sprintf("%s is given twice", k)
		}
		seen[string(k)] = true
		p := line.counter(string(k))
		if p == nil {
			line.Other = append(line.Other, Pair{Key: string(k), Value: string(v)})
			continue
		}
		n, ok := num.Uint(v)
		if !ok {
			return IOStatLine{}, fmt.Sprintf("%s=%s is not a whole number", k, num.Quote(v))
		}
		*p = &n
	}
	if line.RBytes == nil && line.WBytes == nil && line.RIOs == nil && line.WIOs == nil {
		return IOStatLine{}, "none of rbytes, wbytes, rios and wios"
	}
	return line, ""
}

func (l *IOStatLine) counter(key string) **uint64 {
	switch key {
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
		if msg := st.add(bytes.Fields(b)); msg != "" {
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

// add reads one line of an RWStat file into st, or says why it is not one.
func (st *RWStat) add(f [][]byte) string {
	if len(f) == 2 && string(f[0]) == "Total" {
		n, ok := num.Uint(f[1])
		switch {
		case !ok:
			return fmt.Sprintf("the total %s is not a whole number", num.Quote(f[1]))
		case st.Total != nil:
			return "a second Total line"
		}
		st.Total = &n
		return ""
	}
	if len(f) != 3 {
		return fmt.Sprintf("%d fields; want 3 (MAJ:MIN, an operation and a count) or 2 (Total and a count)", len(f))
	}
	maj, min, ok := devNum(f[0])
	if !ok {
		return "the line does not start with a device number MAJ:MIN"
	}
	n, ok := num.Uint(f[2])
	if !ok {
		return fmt.Sprintf("the count %s is not a whole number", num.Quote(f[2]))
	}
	if len(st.Devices) == 0 || st.Devices[len(st.Devices)-1].Major != maj || st.Devices[len(st.Devices)-1].Minor != min {
		for _, d := range st.Devices {
			if d.Major == maj && d.Minor == min {
				return fmt.Sprintf("device %d:%d again, after other devices' lines", maj, min)
			}
		}
		st.Devices = append(st.Devices, RWStatLine{Major: maj, Minor: min})
	}
	d := &st.Devices[len(st.Devices)-1]
	p := d.op(string(f[1]))
	switch {
	case p == nil:
		return fmt.Sprintf("unknown operation %s; expected Read, Write, Sync, Async, Discard or Total", num.Quote(f[1]))
	case *p != nil:
		return fmt.Sprintf("%s of %d:%d is given twice", f[1], maj, min)
	}
	*p = &n
	return ""
}

func (d *RWStatLine) op(name string) **uint64 {
	switch name {
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
