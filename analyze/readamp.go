package analyze

import (
	"fmt"
	"slices"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// Read amplification is what the device read for a run against what
// PostgreSQL read from the kernel: above 1 when the kernel's read-ahead (or
// another process) read more than the server asked for, below 1 when the
// page cache served part of it. The device's bytes are diskstats' over the
// run's window (the whole device); PostgreSQL's are pg_stat_io's read bytes
// after minus before (16+, the whole server's: read_bytes from 18, reads
// times op_bytes before). EXPLAIN ANALYZE's shared read blocks are not
// used: its run comes after the timed one, on a cache the timed run
// warmed.

// ReadAmpGroup is a test and configuration's device reads against
// PostgreSQL's, medians over the runs that have both.
type ReadAmpGroup struct {
	Host, Test, Config, Device string
	N                          int
	DeviceBytes, PGBytes       float64 // medians
	// Ratio is the median of the runs' device ÷ PostgreSQL bytes, Min and
	// Max its range; nil when PostgreSQL read nothing in some run (the
	// ratio has no value: the two byte counts say it).
	Ratio, Min, Max *float64
	ReadAheadKB     *int64 // the device's queue/read_ahead_kb when recorded, or nil
	// ServerBytes is the median of the server's own reads (its cgroup's)
	// and ServerRatio of its reads ÷ PostgreSQL's, over the runs that
	// have them: the read-ahead without other processes' reads; nil
	// without a cgroup.
	ServerBytes, ServerRatio *float64
}

// readAmp is a run's device ÷ PostgreSQL bytes read, and whether the run
// has both figures.
func readAmp(r *Run) (ratio float64, defined, ok bool) {
	if r.Disk == nil || r.Disk.Reset || r.PGReads == nil {
		return 0, false, false
	}
	if *r.PGReads <= 0 {
		return 0, false, true
	}
	return r.Disk.ReadBytes / *r.PGReads, true, true
}

// readAmps groups every ok run's read amplification.
func (a *Analysis) readAmps() {
	groups, keys := a.groupRuns(okRun)
	for _, k := range keys {
		var dev, pg, ratios []float64
		device, undefined := "", false
		for _, r := range groups[k] {
			ratio, defined, ok := readAmp(r)
			if !ok {
				continue
			}
			device = r.Device
			dev, pg = append(dev, r.Disk.ReadBytes), append(pg, *r.PGReads)
			if defined {
				ratios = append(ratios, ratio)
			} else {
				undefined = true
			}
		}
		if len(dev) == 0 {
			continue
		}
		g := ReadAmpGroup{Host: k.Host, Test: k.Test, Config: k.Config, Device: device, N: len(dev),
			DeviceBytes: *median(dev), PGBytes: *median(pg), ReadAheadKB: a.readAhead(k.Host, device)}
		g.ServerBytes, g.ServerRatio = serverReadAmp(groups[k])
		if !undefined {
			lo, hi := slices.Min(ratios), slices.Max(ratios)
			g.Ratio, g.Min, g.Max = median(ratios), &lo, &hi
		}
		a.ReadAmps = append(a.ReadAmps, g)
	}
}

// readAhead is host's device's read_ahead_kb as its capture recorded it,
// or nil.
func (a *Analysis) readAhead(host, device string) *int64 {
	for _, s := range a.Setups {
		if s.Host != host {
			continue
		}
		for _, d := range s.Devices {
			if d.Name == device {
				return d.ReadAheadKB
			}
		}
	}
	return nil
}

func (a *Analysis) readAmpTable() table.Table {
	t := table.Table{Name: "read_amplification", Title: "Read amplification",
		Note: "What the device read over each run's timed statement (diskstats: the whole device, every process's reads) against what PostgreSQL read from the kernel " +
			"(pg_stat_io after minus before: 16+, the whole server's), medians over rounds; ratio = device ÷ PostgreSQL per run, median, min and max. " +
			"Above 1: the kernel's read-ahead or another process read more than the server asked for; below 1: the page cache served part of it. " +
			"Blank ratio: PostgreSQL read nothing in some run. read_ahead_kb is the device's, as recorded at the start of the capture. " +
			"server read = the server's own reads (its cgroup's counters), server ratio = server ÷ PostgreSQL, medians: the read-ahead without other processes' reads; blank where no cgroup was recorded."}
	return build(a, t, func(g ReadAmpGroup) string { return g.Host }, []table.Field[ReadAmpGroup]{
		table.On(table.Text("test", "test"), func(g ReadAmpGroup) any { return g.Test }),
		table.On(table.Text("config", "config"), func(g ReadAmpGroup) any { return g.Config }),
		table.On(table.Text("device", "device"), func(g ReadAmpGroup) any { return g.Device }),
		table.On(table.Int("n", "n", ""), func(g ReadAmpGroup) any { return int64(g.N) }),
		table.On(table.Bytes("device_read_bytes", "device read", "MiB"), func(g ReadAmpGroup) any { return g.DeviceBytes }),
		table.On(table.Bytes("postgres_read_bytes", "PostgreSQL read", "MiB"), func(g ReadAmpGroup) any { return g.PGBytes }),
		table.On(table.Fixed("ratio", "ratio", "", 2), func(g ReadAmpGroup) any { return opt(g.Ratio) }),
		table.On(table.Fixed("ratio_min", "min", "", 2), func(g ReadAmpGroup) any { return opt(g.Min) }),
		table.On(table.Fixed("ratio_max", "max", "", 2), func(g ReadAmpGroup) any { return opt(g.Max) }),
		table.On(table.Bytes("server_read_bytes", "server read", "MiB"), func(g ReadAmpGroup) any { return optBytes(g.ServerBytes) }),
		table.On(table.Fixed("server_ratio", "server ratio", "", 2), func(g ReadAmpGroup) any { return opt(g.ServerRatio) }),
		table.On(table.Bytes("read_ahead_bytes", "read ahead", "KiB"), func(g ReadAmpGroup) any {
			if g.ReadAheadKB == nil {
				return nil
			}
			return float64(*g.ReadAheadKB) * 1024
		}),
	}, a.ReadAmps)
}

// ampShown is how far from 1 a median ratio must be for the report's
// text to mention it.
const ampShown = 1.25

// ampMinBytes is the fewest bytes, read by the device and by PostgreSQL,
// for the text to give a ratio: below it a few catalog pages make any
// ratio (the table still lists both values).
const ampMinBytes = 1 << 20

// ReadAmpText is a sentence for each test and configuration whose device
// read notably more (or less) than PostgreSQL did.
func (a *Analysis) ReadAmpText() []string {
	var out []string
	for _, g := range a.ReadAmps {
		if g.Ratio == nil || (*g.Ratio < ampShown && *g.Ratio > 1/ampShown) || g.DeviceBytes < ampMinBytes || g.PGBytes < ampMinBytes {
			continue // within noise, or too few bytes for a ratio to mean much
		}
		s := fmt.Sprintf("%s: %s's device read %s what PostgreSQL read from the kernel (%.0f MiB against %.0f MiB, medians over %d runs; device ÷ PostgreSQL %s to %s",
			g.Test, g.Config, times2(*g.Ratio), g.DeviceBytes/mib, g.PGBytes/mib, g.N, times2(*g.Min), times2(*g.Max))
		if g.ReadAheadKB != nil {
			s += fmt.Sprintf("; %s read_ahead_kb %d", g.Device, *g.ReadAheadKB)
		}
		if len(a.Hosts) > 1 {
			s = g.Host + ": " + s
		}
		out = append(out, s+").")
	}
	return out
}
