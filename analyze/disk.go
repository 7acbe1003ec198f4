package analyze

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"unsafe"

	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
)

// DiskGroup is the medians over rounds of a test and configuration's disk
// figures, each run's taken over its timed statement.
type DiskGroup struct {
	Host, Test, Config, Device string
	N                          int
	// Median holds the median over the runs of each of iostat's figures.
	Median iostat.Stats
	// Bounded counts the runs whose throughput came within 10% of the
	// device's limit; nil when no limit of the device is known (unknown,
	// not none).
	Bounded *int
	// ServerRead and ServerWritten are the medians of the server's own
	// bytes (its cgroup's), over the runs that have them; nil when none
	// has.
	ServerRead, ServerWritten *float64
}

const mib = 1 << 20

// boundedShare is how close to a device's limit a run must come to be
// called bounded by it.
const boundedShare = 0.9

// diskFields are the disk table's columns: the group, then the medians
// shown, with iostat -x's names.
var diskFields = []table.Field[DiskGroup]{
	table.On(table.Text("test", "test"), func(d DiskGroup) any { return d.Test }),
	table.On(table.Text("config", "config"), func(d DiskGroup) any { return d.Config }),
	table.On(table.Text("device", "device"), func(d DiskGroup) any { return table.Maybe(d.Device) }),
	table.On(table.Int("n", "n", ""), func(d DiskGroup) any { return int64(d.N) }),
	diskNum("reads", "reads", "", func(s *iostat.Stats) float64 { return s.Reads }),
	diskNum("reads_merged", "merged", "", func(s *iostat.Stats) float64 { return s.ReadsMerged }),
	diskBytes("read_bytes", "read", "MiB", func(s *iostat.Stats) float64 { return s.ReadBytes }),
	diskBytes("rareq_sz_bytes", "rareq-sz", "KiB", func(s *iostat.Stats) float64 { return s.RAreqSzKiB * 1024 }),
	diskNum("r_per_s", "r/s", "", func(s *iostat.Stats) float64 { return s.RPerS }),
	diskBytes("read_bytes_per_s", "read", "MiB/s", func(s *iostat.Stats) float64 { return s.RKiBPerS * 1024 }),
	diskNum("r_await_ms", "r_await", "ms", func(s *iostat.Stats) float64 { return s.RAwaitMs }),
	diskNum("writes", "writes", "", func(s *iostat.Stats) float64 { return s.Writes }),
	diskNum("writes_merged", "merged", "", func(s *iostat.Stats) float64 { return s.WritesMerged }),
	diskBytes("written_bytes", "written", "MiB", func(s *iostat.Stats) float64 { return s.WriteBytes }),
	diskBytes("wareq_sz_bytes", "wareq-sz", "KiB", func(s *iostat.Stats) float64 { return s.WAreqSzKiB * 1024 }),
	diskNum("w_per_s", "w/s", "", func(s *iostat.Stats) float64 { return s.WPerS }),
	diskBytes("write_bytes_per_s", "write", "MiB/s", func(s *iostat.Stats) float64 { return s.WKiBPerS * 1024 }),
	diskNum("w_await_ms", "w_await", "ms", func(s *iostat.Stats) float64 { return s.WAwaitMs }),
	diskNum("discards", "discards", "", func(s *iostat.Stats) float64 { return s.Discards }),
	diskNum("flushes", "flushes", "", func(s *iostat.Stats) float64 { return s.Flushes }),
	diskNum("aqu_sz", "aqu-sz", "", func(s *iostat.Stats) float64 { return s.AquSz }),
	table.On(table.Fixed("util_pct", "util", "%", 1), func(d DiskGroup) any { return d.Median.UtilPct }),
	table.On(table.Bytes("server_read_bytes", "server read", "MiB"), func(d DiskGroup) any { return optBytes(d.ServerRead) }),
	table.On(table.Bytes("server_written_bytes", "server written", "MiB"), func(d DiskGroup) any { return optBytes(d.ServerWritten) }),
	table.On(table.Int("bounded", "bounded", ""), func(d DiskGroup) any {
		if d.Bounded == nil {
			return nil
		}
		return int64(*d.Bounded)
	}),
}

func diskNum(key, title, unit string, f func(*iostat.Stats) float64) table.Field[DiskGroup] {
	return table.On(table.Num(key, title, unit), func(d DiskGroup) any { return f(&d.Median) })
}

// diskBytes is a median in bytes (or bytes per second), shown in unit.
func diskBytes(key, title, unit string, f func(*iostat.Stats) float64) table.Field[DiskGroup] {
	return table.On(table.Bytes(key, title, unit), func(d DiskGroup) any { return f(&d.Median) })
}

func (a *Analysis) disks() {
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && r.Disk != nil })
	for _, k := range keys {
		runs := groups[k]
		g := DiskGroup{Host: k.Host, Test: k.Test, Config: k.Config, Device: runs[0].Device, N: len(runs), Median: medianStats(runs),
			ServerRead: medianServer(runs, func(s *ServerIO) float64 { return s.ReadBytes }), ServerWritten: medianServer(runs, func(s *ServerIO) float64 { return s.WriteBytes })}
		if a.hasLimit(k.Host, g.Device) {
			n := 0
			for _, r := range runs {
				if bounded, _ := a.boundedBy(r); len(bounded) > 0 {
					n++
				}
			}
			g.Bounded = &n
		}
		a.Disks = append(a.Disks, g)
	}
}

// medianStats is the median over the runs of each float figure of their
// statistics: iostat.Stats's fields are the one list of them.
func medianStats(runs []*Run) iostat.Stats {
	var m iostat.Stats
	xs := make([]float64, 0, len(runs))
	for _, off := range statsFloats {
		xs = xs[:0]
		for _, r := range runs {
			// An unknown rate (NaN) is left out; none known is unknown.
			if x := *(*float64)(unsafe.Add(unsafe.Pointer(r.Disk), off)); !math.IsNaN(x) {
				xs = append(xs, x)
			}
		}
		v := math.NaN()
		if len(xs) > 0 {
			v = stats.MedianInPlace(xs)
		}
		*(*float64)(unsafe.Add(unsafe.Pointer(&m), off)) = v
	}
	m.Device = runs[0].Device
	return m
}

// statsFloats are the offsets of iostat.Stats's float64 fields, which
// medianStats takes the median of one by one: read through reflect, a
// field of a run at a time, they were a third of the disk table's time.
var statsFloats = func() []uintptr {
	var offs []uintptr
	t := reflect.TypeFor[iostat.Stats]()
	for i := range t.NumField() {
		if f := t.Field(i); f.Type.Kind() == reflect.Float64 {
			offs = append(offs, f.Offset)
		}
	}
	return offs
}()

// boundedBy lists the limits of the run's device that its throughput came
// within 10% of, over the whole statement or in its median interval; and
// those it went more than 10% above, which says the limit is not the
// device's (or that something else used the device). The limit is the
// study's where it declares one, else the ceiling pgstudy measured nearest
// the run (runLimit); each text says which.
func (a *Analysis) boundedBy(r *Run) (bounded, above []string) {
	l, source, ok := a.runLimit(r)
	if !ok || r.Disk == nil {
		return nil, nil
	}
	figures := []*iostat.Stats{r.Disk}
	if len(r.Series) > 0 {
		// The median interval by total throughput, so that the statement's
		// ramp up and tail do not hide a plateau at the limit.
		s := slices.Clone(r.Series)
		slices.SortFunc(s, func(x, y DiskInterval) int {
			return cmpFloat(x.Stats.RKiBPerS+x.Stats.WKiBPerS, y.Stats.RKiBPerS+y.Stats.WKiBPerS)
		})
		m := s[len(s)/2].Stats
		figures = append(figures, &iostat.Stats{RPerS: m.RPerS, WPerS: m.WPerS, RKiBPerS: m.RKiBPerS, WKiBPerS: m.WKiBPerS})
	}
	check := func(what string, limit float64, f func(s *iostat.Stats) float64, unit string) {
		if limit <= 0 {
			return
		}
		// Bounded when any figure is within 10% of the limit; above it only
		// when every figure is more than 10% over (a throttled device's
		// bursts can lift one interval over its limit).
		in, over, lowest := -1.0, true, math.Inf(1)
		for _, s := range figures {
			v := f(s)
			lowest = min(lowest, v)
			if v >= boundedShare*limit && v <= limit/boundedShare {
				in = max(in, v)
			}
			over = over && v > limit/boundedShare
		}
		switch {
		case in >= 0:
			bounded = append(bounded, fmt.Sprintf("%s %.1f %s against %s, %.4g", what, in, unit, source, limit))
		case over:
			above = append(above, fmt.Sprintf("%s %.1f %s against %s, %.4g", what, lowest, unit, source, limit))
		}
	}
	check("read", l.ReadMiBs, func(s *iostat.Stats) float64 { return s.RKiBPerS / 1024 }, "MiB/s")
	check("write", l.WriteMiBs, func(s *iostat.Stats) float64 { return s.WKiBPerS / 1024 }, "MiB/s")
	check("read+write", l.MiBs, func(s *iostat.Stats) float64 { return (s.RKiBPerS + s.WKiBPerS) / 1024 }, "MiB/s")
	check("requests", l.IOPS, func(s *iostat.Stats) float64 { return s.RPerS + s.WPerS }, "IOPS")
	return bounded, above
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
