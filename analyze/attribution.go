package analyze

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/parse/cgroupio"
	"github.com/pgstudy/pgstudy/samples"
)

// The server's I/O beside the device's: /proc/diskstats counts every
// process of the machine; the server's cgroup, when collect recorded its
// counters next to the diskstats snapshots before and after a run, counts
// the server's alone. Others is the difference.

// Probe names as collect records them (collect/cgroup.go).
const (
	probeCgroupV2      = "cgroup io.stat"
	probeCgroupBytes   = "cgroup blkio.throttle.io_service_bytes"
	probeCgroupIOs     = "cgroup blkio.throttle.io_serviced"
	probeCgroupMissing = "cgroup io"
)

// ServerIO is what the server's cgroup did on the run's device over the
// run's window (its counters read just before the diskstats snapshot
// before the statement and just after the one after it). The I/Os are
// the block layer's as the cgroup counts them, before the I/O scheduler
// merges them, so they are not comparable with the device's completed
// requests; the bytes are.
type ServerIO struct {
	Source                            string // "cgroup v2 io.stat" or "cgroup v1 blkio.throttle"
	Group                             string // the counters' folder
	ReadBytes, WriteBytes             float64
	Reads, Writes                     *float64
	OthersReadBytes, OthersWriteBytes float64 // the device's bytes less the server's, never below 0
}

// cgroupReading is one phase's counter files of a run.
type cgroupReading struct {
	v2, bytes, ios samples.Probe
	has            map[string]bool
}

// cgroupRuns gathers the cgroup probes of each run while the capture is
// read, and why a run has none.
type cgroupRuns struct {
	mu      sync.Mutex
	reading map[int64]map[string]*cgroupReading // run, phase
	missing map[int64]string                    // run: why there are no counters
}

// readDisk reads the server's share of each run's disk figures (the
// cgroup probes), once the facts gave each run its device.
func readDisk(r *samples.Reader, byID map[int64]*Run) error {
	cg := &cgroupRuns{}
	if err := readCgroupIO(r, byID, cg); err != nil {
		return err
	}
	cg.attribute(byID)
	return nil
}

// readCgroupIO reads the cgroup probe rows of every run.
func readCgroupIO(r *samples.Reader, byID map[int64]*Run, cg *cgroupRuns) error {
	cg.reading, cg.missing = map[int64]map[string]*cgroupReading{}, map[int64]string{}
	return eachPart(r, func(rows []samples.Probe) error {
		cg.mu.Lock()
		defer cg.mu.Unlock()
		for _, p := range rows {
			if byID[p.RunID] == nil || !strings.HasPrefix(p.Name, "cgroup ") {
				continue
			}
			if p.Name == probeCgroupMissing {
				cg.missing[p.RunID] = p.Error
				continue
			}
			if cg.reading[p.RunID] == nil {
				cg.reading[p.RunID] = map[string]*cgroupReading{}
			}
			rd := cg.reading[p.RunID][p.Phase]
			if rd == nil {
				rd = &cgroupReading{has: map[string]bool{}}
				cg.reading[p.RunID][p.Phase] = rd
			}
			switch {
			case p.Name == probeCgroupV2:
				rd.v2 = p
			case strings.HasPrefix(p.Name, probeCgroupBytes):
				rd.bytes = p
			case strings.HasPrefix(p.Name, probeCgroupIOs):
				rd.ios = p
			default:
				continue
			}
			rd.has[p.Name] = true
		}
		return nil
	}, "run_id", "phase", "name", "command", "stdout", "error")
}

// attribute sets each run's server I/O from its cgroup counters, once
// its device (and its device number) is known from diskstats.
func (cg *cgroupRuns) attribute(byID map[int64]*Run) {
	for id, phases := range cg.reading {
		run := byID[id]
		if run == nil || run.Disk == nil || run.DeviceNum == "" {
			continue
		}
		before, after := phases["before"], phases["after"]
		if before == nil || after == nil {
			continue
		}
		b, okB := run.cgroupCounters(before)
		a, okA := run.cgroupCounters(after)
		if !okB || !okA {
			continue
		}
		run.serverIO(b[run.DeviceNum], a[run.DeviceNum], before)
	}
	for id, why := range cg.missing {
		if run := byID[id]; run != nil && run.Server == nil {
			run.ServerMissing = why
		}
	}
}

// cgroupCounters parses one phase's counter files; false when they
// could not be read, which is said.
func (run *Run) cgroupCounters(rd *cgroupReading) (map[string]cgroupio.Counters, bool) {
	source := func(p samples.Probe) string { return fmt.Sprintf("run %d %s (%s)", run.RunID, p.Command, p.Phase) }
	bad := func(p samples.Probe) bool {
		if p.Error != "" {
			run.warnf("%s: %s: the server's I/O is unknown", source(p), p.Error)
			return true
		}
		return false
	}
	if rd.v2.Name != "" {
		if bad(rd.v2) {
			return nil, false
		}
		st, warns, err := cgroupio.ParseIOStat(strings.NewReader(rd.v2.Stdout), source(rd.v2))
		run.warnParse("cgroup io.stat", warns)
		if err != nil {
			run.warnf("cgroup io.stat: %v", err)
			return nil, false
		}
		return st.Counters(), true
	}
	if rd.bytes.Name == "" || bad(rd.bytes) || (rd.ios.Name != "" && bad(rd.ios)) {
		return nil, false
	}
	var files [2]cgroupio.RWStat
	for i, p := range []samples.Probe{rd.bytes, rd.ios} {
		if p.Name == "" {
			continue
		}
		st, warns, err := cgroupio.ParseRWStat(strings.NewReader(p.Stdout), source(p))
		run.warnParse("cgroup blkio", warns)
		if err != nil {
			run.warnf("cgroup blkio: %v", err)
			return nil, false
		}
		files[i] = st
	}
	return cgroupio.V1Counters(files[0], files[1]), true
}

// serverIO is the server's I/O on the run's device from its counters
// before and after (a device the group never used has no line: zero).
func (run *Run) serverIO(b, a cgroupio.Counters, rd *cgroupReading) {
	s := &ServerIO{Source: "cgroup v1 blkio.throttle", Group: rd.bytes.Command}
	if rd.v2.Name != "" {
		s.Source, s.Group = "cgroup v2 io.stat", rd.v2.Command
	}
	delta := func(x, y *uint64) (float64, bool) {
		var bx, ay uint64
		if x != nil {
			bx = *x
		}
		if y != nil {
			ay = *y
		}
		if ay < bx {
			return 0, false
		}
		return float64(ay - bx), true
	}
	var ok1, ok2 bool
	s.ReadBytes, ok1 = delta(b.ReadBytes, a.ReadBytes)
	s.WriteBytes, ok2 = delta(b.WriteBytes, a.WriteBytes)
	if !ok1 || !ok2 {
		run.warnf("the counters of the server's cgroup %s went backwards during the run (the group was made again?): the server's I/O is unknown", s.Group)
		return
	}
	if rd.v2.Name != "" || rd.ios.Name != "" {
		if n, ok := delta(b.Reads, a.Reads); ok {
			s.Reads = &n
		}
		if n, ok := delta(b.Writes, a.Writes); ok {
			s.Writes = &n
		}
	}
	s.OthersReadBytes = math.Max(0, run.Disk.ReadBytes-s.ReadBytes)
	s.OthersWriteBytes = math.Max(0, run.Disk.WriteBytes-s.WriteBytes)
	run.Server = s
}

// othersFloor is the least other processes must move for the others
// guard to name a run: below it a share is of a few pages.
const othersFloor = 1 << 20

// othersBy lists what other processes did beyond the share of the run's
// device I/O the study allows, read and write apart.
func (a *Analysis) othersBy(r *Run) []string {
	if r.Server == nil || r.Disk == nil {
		return nil
	}
	share := a.study[r.Host].Others()
	var out []string
	check := func(what string, device, others float64, note string) {
		if device > 0 && others > share*device && others >= othersFloor {
			out = append(out, fmt.Sprintf("%s %.1f of the device's %.1f MiB %s (%.0f%%)%s", what, others/mib, device/mib, what, 100*others/device, note))
		}
	}
	check("read", r.Disk.ReadBytes, r.Server.OthersReadBytes, "")
	note := ""
	if strings.Contains(r.Server.Source, "v1") {
		note = ", some of it perhaps the server's own dirty pages written back by the kernel's flusher threads, which cgroup v1 counts as theirs"
	}
	check("written", r.Disk.WriteBytes, r.Server.OthersWriteBytes, note)
	return out
}

// guardOthers names the runs in which other processes than the server's
// cgroup did more than the study's share of the device's I/O.
func (a *Analysis) guardOthers() {
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && len(a.othersBy(r)) > 0 })
	for _, k := range keys {
		runs := groups[k]
		var what []string
		for _, r := range runs {
			what = append(what, fmt.Sprintf("run %d: %s", r.RunID, strings.Join(a.othersBy(r), "; ")))
		}
		r := runs[0]
		a.add(Finding{Guard: "others-io", Severity: Warning, Host: k.Host, Test: k.Test, Config: k.Config, Runs: runIDs(runs),
			Message: fmt.Sprintf("in %d run(s) of %s on %s, processes other than the server did more than %.0f%% of %s's I/O between the diskstats snapshots before and after the run "+
				"(the device from /proc/diskstats, the server from its %s counters in %s): %s; the device's figures of these runs are not the server's alone",
				len(runs), k.Test, k.Config, 100*a.study[k.Host].Others(), r.Device, r.Server.Source, r.Server.Group, strings.Join(what, "; "))})
	}
}

// medianServer is the median over the runs that have it of one figure
// of the server's I/O; nil when none has it.
func medianServer(runs []*Run, f func(*ServerIO) float64) *float64 {
	var xs []float64
	for _, r := range runs {
		if r.Server != nil {
			xs = append(xs, f(r.Server))
		}
	}
	if len(xs) == 0 {
		return nil
	}
	m := stats.Median(xs)
	return &m
}

// serverReadAmp is the median of the server's reads, and of its reads ÷
// PostgreSQL's, over the runs that have them (nil when none has).
func serverReadAmp(runs []*Run) (bytes, ratio *float64) {
	var ratios []float64
	for _, r := range runs {
		if r.Server != nil && r.PGReads != nil && *r.PGReads > 0 {
			ratios = append(ratios, r.Server.ReadBytes / *r.PGReads)
		}
	}
	if len(ratios) > 0 {
		m := stats.Median(ratios)
		ratio = &m
	}
	return medianServer(runs, func(s *ServerIO) float64 { return s.ReadBytes }), ratio
}

// serverNote says where the server's figures come from, and why they are
// blank where they are.
func (a *Analysis) serverNote() string {
	sources, why := map[string]bool{}, ""
	for _, r := range a.Runs {
		if r.Server != nil {
			sources[r.Server.Source] = true
		} else if why == "" && r.ServerMissing != "" {
			why = r.ServerMissing
		}
	}
	var b strings.Builder
	b.WriteString(" server = the server's own I/O on the device, from its cgroup's counters read beside the diskstats snapshots")
	for _, s := range []string{"cgroup v2 io.stat", "cgroup v1 blkio.throttle"} {
		if sources[s] {
			b.WriteString(" (" + s + ")")
		}
	}
	b.WriteString("; blank where no cgroup was recorded (unknown, not zero)")
	if why != "" {
		b.WriteString(": " + strings.TrimSuffix(why, "."))
	}
	b.WriteString(".")
	return b.String()
}
