// Package procstat reads /proc/stat: the machine's CPU time by kind, in
// USER_HZ ticks, and its counters (context switches, processes forked).
//
// Parse reads one snapshot, line by line:
//
//  1. the "cpu" line (all CPUs together) gives CPU; its field count is
//     recorded, as kernels before 2.6.33 print fewer kinds;
//  2. "cpuN" lines are counted, not kept;
//  3. "ctxt", "btime", "processes", "procs_running" and "procs_blocked"
//     give their counters; a counter the kernel did not print is nil;
//  4. other lines ("intr", "softirq") are skipped; a line that is none of
//     these, or a number that is not one, is a warning.
//
// Input without a "cpu" line is not /proc/stat: an error.
package procstat

import (
	"fmt"
	"io"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// Stat is one snapshot of /proc/stat.
type Stat struct {
	CPU  CPU `json:"cpu"`
	CPUs int `json:"cpus"` // the cpuN lines

	ContextSwitches *uint64 `json:"ctxt,omitempty"`
	BootTimeS       *uint64 `json:"btime,omitempty"`
	Processes       *uint64 `json:"processes,omitempty"` // forked since boot
	ProcsRunning    *uint64 `json:"procs_running,omitempty"`
	ProcsBlocked    *uint64 `json:"procs_blocked,omitempty"`
}

// CPU is the time all CPUs spent in each kind of work, in USER_HZ ticks.
// Fields is how many the kernel printed (10 since 2.6.33); the kinds past
// it are zero, and kinds past the tenth (a later kernel's) are not read.
type CPU struct {
	Fields    int    `json:"fields"`
	User      uint64 `json:"user"`
	Nice      uint64 `json:"nice"`
	System    uint64 `json:"system"`
	Idle      uint64 `json:"idle"`
	IOWait    uint64 `json:"iowait"`
	IRQ       uint64 `json:"irq"`
	SoftIRQ   uint64 `json:"softirq"`
	Steal     uint64 `json:"steal"`
	Guest     uint64 `json:"guest"`
	GuestNice uint64 `json:"guest_nice"`
}

// maxLines bounds the lines read: a host has a line per CPU, and a
// thousand times the largest machines is not /proc/stat.
const maxLines = 1 << 20

// Parse reads a copy of /proc/stat.
func Parse(r io.Reader, source string) (Stat, []parse.Warning, error) {
	var (
		st     Stat
		warns  []parse.Warning
		sawCPU bool
	)
	l := parse.NewLines(r, source)
	for l.Next() {
		if l.Line() > maxLines {
			return Stat{}, nil, parse.Errorf(source, l.Line(), "more than %d lines; a /proc/stat has one per CPU and a few more", maxLines)
		}
		if msg := st.line(l.Bytes(), &sawCPU); msg != "" {
			warns = append(warns, parse.Warning{Source: source, Line: l.Line(), Text: parse.Excerpt(l.Bytes()), Msg: msg})
		}
	}
	if err := l.Err(); err != nil {
		return Stat{}, nil, err
	}
	if !sawCPU {
		if l.Line() == 0 {
			return Stat{}, nil, parse.Errorf(source, 0, "empty input; expected /proc/stat")
		}
		return Stat{}, warns, parse.Errorf(source, 0, "not /proc/stat: no \"cpu\" line")
	}
	return st, warns, nil
}

// line reads one line, returning why it was not understood, or "". It
// goes by the line's first field: the "intr" line (thousands of numbers
// on a large host) and the cpuN lines are not split.
func (st *Stat) line(b []byte, sawCPU *bool) string {
	var f [12][]byte // the cpu line's name and times, or a counter's
	if parse.Head(b, f[:1]) == 0 {
		return ""
	}
	switch name := f[0]; {
	case string(name) == "intr" || string(name) == "softirq":
	case len(name) > 3 && string(name[:3]) == "cpu" && isDigits(name[3:]):
		st.CPUs++
	case string(name) == "cpu":
		if *sawCPU {
			return "a second \"cpu\" line"
		}
		n := parse.Fields(b, f[:])
		c, msg := cpu(f[1:min(n, len(f))], n-1)
		if msg != "" {
			return msg
		}
		st.CPU, *sawCPU = c, true
	default:
		p := st.counter(name)
		if p == nil {
			return "unknown line"
		}
		if n := parse.Fields(b, f[:2]); n != 2 {
			return fmt.Sprintf("%s: want one number, found %d fields", name, n-1)
		}
		n, ok := num.Uint(f[1])
		if !ok {
			return fmt.Sprintf("%s: not a number: %s", name, num.Quote(f[1]))
		}
		*p = &n
	}
	return ""
}

// counter is where the counter line name goes, or nil.
func (st *Stat) counter(name []byte) **uint64 {
	switch string(name) {
	case "ctxt":
		return &st.ContextSwitches
	case "btime":
		return &st.BootTimeS
	case "processes":
		return &st.Processes
	case "procs_running":
		return &st.ProcsRunning
	case "procs_blocked":
		return &st.ProcsBlocked
	}
	return nil
}

// cpu reads the "cpu" line's times, the first of its n: at least user,
// nice, system and idle.
func cpu(f [][]byte, n int) (CPU, string) {
	c := CPU{Fields: n}
	kinds := []*uint64{&c.User, &c.Nice, &c.System, &c.Idle, &c.IOWait, &c.IRQ, &c.SoftIRQ, &c.Steal, &c.Guest, &c.GuestNice}
	if n < 4 {
		return CPU{}, fmt.Sprintf("cpu: want at least 4 times (user, nice, system, idle), found %d", n)
	}
	for i, v := range f[:min(len(f), len(kinds))] {
		n, ok := num.Uint(v)
		if !ok {
			return CPU{}, fmt.Sprintf("cpu: time %d is not a number: %s", i+1, num.Quote(v))
		}
		*kinds[i] = n
	}
	return c, ""
}

func isDigits(s []byte) bool {
	_, ok := num.Uint(s)
	return ok
}
