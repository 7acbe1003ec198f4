package iostat

// delta side by side with sysstat's iostat on a disk of the test's own (a
// loop device, where the test is root; this machine's disk otherwise): a
// steady, paced O_DIRECT read workload runs while `iostat -dxk -t 1` and
// the test (reading /proc/diskstats each second, as iostat reads its
// counters) measure the same device over the same seconds. Needs Linux,
// iostat (Debian's sysstat), stdbuf (coreutils) and, without root, a
// temporary folder on a block device (not tmpfs; the package's own folder
// is used then). Root is not needed for O_DIRECT or /proc/diskstats; it
// gives the test its own disk, and lets the workload and
// both samplers run at real-time priority, which keeps their timing on a
// busy machine (without it the test says so and carries on).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/parse/diskstats"
)

const (
	peerFileSize  = 512 << 20
	peerBlock     = 64 << 10               // bytes per read: one request (below any max_sectors_kb)
	peerPeriod    = time.Millisecond       // a read every millisecond: 1000 r/s, 62.5 MiB/s
	peerIntervals = 12                     // iostat reports, 1 s each
	peerSettle    = 500 * time.Millisecond // the workload running before measuring
	peerGuard     = 2 * time.Millisecond   // how long before a cut the sampler reads too
)

// TestIostatPeer compares delta with iostat interval by interval, the
// first and last left out (partial seconds of the workload): r/s, rkB/s
// and rareq-sz within 2%, and every other column iostat prints within
// bounds that only a definition different from sysstat's would break (see
// peerColumns), all of them logged. Other processes' I/O on the disk does
// not matter: the test reads the counters right after iostat does, and
// allows for what completed within peerGuard before.
func TestIostatPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the peer check reads the disk for about 15 s")
	}
	iostat := peerTool(t, "iostat", "sysstat")
	stdbuf := peerTool(t, "stdbuf", "coreutils")
	dir, disk := peerDir(t)
	path := filepath.Join(dir, "peer.data")
	start := time.Now()
	if err := writeRandomFile(path, peerFileSize); err != nil {
		t.Fatal(err)
	}
	t.Logf("disk %s; wrote %d MiB in %s in %s", disk, peerFileSize>>20, dir, time.Since(start).Round(time.Millisecond))

	// The workload and the sampler run on real-time threads, but after
	// each system call their goroutines need one of Go's Ps; with spare
	// Ps they never wait for one held by a thread the busy machine has
	// descheduled.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(8, 4*runtime.NumCPU())))
	ctx, cancel := context.WithCancel(t.Context())
	var (
		wg       sync.WaitGroup
		workload pacing
	)
	ready := make(chan error, 1)
	wg.Go(func() { workload = pacedReads(ctx, path, ready) })
	defer func() { cancel(); wg.Wait() }()
	if err := <-ready; err != nil {
		if errors.Is(err, unix.EINVAL) {
			pgtest.Missing(t, "O_DIRECT is not supported on %s: %v", dir, err)
		}
		t.Fatal(err)
	}
	time.Sleep(peerSettle)

	measured := make(chan measurement, 1)
	go func() { measured <- measure(ctx, stdbuf, iostat, disk) }()
	m := <-measured
	cancel()
	wg.Wait()
	for _, err := range []error{workload.rt, m.rt} {
		if err != nil {
			t.Logf("not real-time, so the pacing and sampling may be late when the machine is busy: %v", err)
		}
	}
	if m.err != nil {
		t.Fatal(m.err)
	}
	if workload.err != nil {
		t.Fatalf("paced reads: %v", workload.err)
	}
	t.Logf("workload: %d reads of %d KiB, paced at %.0f/s; %d dropped, the latest started %s late",
		workload.reads, peerBlock>>10, float64(time.Second)/float64(peerPeriod), workload.dropped, workload.late)

	reports, err := parseIostat(m.stdout, disk)
	if err != nil {
		t.Fatalf("%v\niostat printed:\n%s", err, m.stdout)
	}
	if len(reports) != peerIntervals+1 {
		t.Fatalf("iostat printed %d reports for %s, want %d:\n%s", len(reports), disk, peerIntervals+1, m.stdout)
	}
	reports = reports[1:] // the first is since boot
	samples := m.samples
	worst := map[string]float64{}
	for i := 1; i < peerIntervals-1; i++ {
		t.Log(compareInterval(t, i, reports[i], samples[i], samples[i+1], worst))
	}
	for _, c := range peerColumns {
		t.Logf("worst %-8s %7.3f%% apart (bound %g + %g%%)", c.name, worst[c.name]*100, c.abs, c.rel*100)
	}
	// The figures are of our workload, not of an idle disk (a busy machine
	// may make it drop some of its paced reads).
	if r := reports[peerIntervals/2].values["r/s"]; r < 0.5*float64(time.Second/peerPeriod) {
		t.Errorf("iostat saw %.0f r/s mid-run; the workload reads up to %d/s", r, time.Second/peerPeriod)
	}
}

// compareInterval compares delta over one interval, between samples b
// and a, with iostat's report rep, records the worst relative difference
// per column, and returns the interval's line for the log.
func compareInterval(t *testing.T, i int, rep iostatReport, b, a diskSample, worst map[string]float64) string {
	t.Helper()
	seconds := (a.at - b.at).Seconds()
	s := delta(&b.counters, &a.counters, seconds)
	// iostat read the counters at each end between our reads before
	// and at the cut: its figures are within those of the corners.
	var corners []Stats
	for _, x := range b.cut() {
		for _, y := range a.cut() {
			corners = append(corners, delta(&x, &y, seconds))
		}
	}
	var line strings.Builder
	fmt.Fprintf(&line, "interval %2d (iostat %s; ours %.4f s) ours/iostat:", i+1, rep.time, seconds)
	for _, c := range peerColumns {
		theirs, ok := rep.values[c.name]
		if !ok {
			t.Errorf("iostat printed no %s column", c.name)
			continue
		}
		mine := c.get(s)
		lo, hi := mine, mine
		for _, x := range corners {
			lo, hi = math.Min(lo, c.get(x)), math.Max(hi, c.get(x))
		}
		fmt.Fprintf(&line, " %s %.2f/%.2f", c.name, mine, theirs)
		if lo != hi {
			fmt.Fprintf(&line, " [%.2f..%.2f]", lo, hi)
		}
		if diff := math.Abs(mine - theirs); diff > 0 {
			worst[c.name] = math.Max(worst[c.name], diff/math.Max(math.Abs(theirs), 0.01))
		}
		margin := c.abs + c.rel*math.Abs(theirs)
		if theirs < lo-margin || theirs > hi+margin {
			t.Errorf("interval %d: %s = %.4f (%.4f to %.4f with iostat's cuts anywhere near ours), iostat %.2f: more than %.4f apart",
				i+1, c.name, mine, lo, hi, theirs, margin)
		}
	}
	return line.String()
}

// peerColumns are the columns of iostat -dxk and how far delta's figure
// may be from iostat's: abs plus rel times iostat's value, beyond the
// range the figure spans when iostat's cuts move within peerGuard before
// ours (see diskSample).
//
// The rates are within 2%, as iostat measures its interval in hundredths
// of a second (/proc/uptime), up to 1% off a 1-second interval; the
// others within iostat's printing to 2 decimals too; %util within 2
// points, as the kernel counts I/O time in jiffies (4 ms at HZ=250) and
// one may fall on either side of a cut. A definition off by a unit
// (sectors for kB, s for ms, a factor of 100) or counting merged requests
// as completed ones is far outside these.
var peerColumns = []struct {
	name     string
	get      func(Stats) float64
	abs, rel float64
}{
	{"r/s", func(s Stats) float64 { return s.RPerS }, 0, 0.02},
	{"rkB/s", func(s Stats) float64 { return s.RKiBPerS }, 0, 0.02},
	{"rareq-sz", func(s Stats) float64 { return s.RAreqSzKiB }, 0, 0.02},
	{"rrqm/s", func(s Stats) float64 { return s.RMergedPerS }, 0.02, 0.02},
	{"%rrqm", func(s Stats) float64 { return s.RMergedPct }, 0.02, 0.02},
	{"r_await", func(s Stats) float64 { return s.RAwaitMs }, 0.02, 0.02},
	{"w/s", func(s Stats) float64 { return s.WPerS }, 0.02, 0.02},
	{"wkB/s", func(s Stats) float64 { return s.WKiBPerS }, 0.02, 0.02},
	{"wrqm/s", func(s Stats) float64 { return s.WMergedPerS }, 0.02, 0.02},
	{"%wrqm", func(s Stats) float64 { return s.WMergedPct }, 0.02, 0.02},
	{"w_await", func(s Stats) float64 { return s.WAwaitMs }, 0.02, 0.02},
	{"wareq-sz", func(s Stats) float64 { return s.WAreqSzKiB }, 0.02, 0.02},
	{"d/s", func(s Stats) float64 { return s.DPerS }, 0.02, 0.02},
	{"dkB/s", func(s Stats) float64 { return s.DKiBPerS }, 0.02, 0.02},
	{"drqm/s", func(s Stats) float64 { return s.DMergedPerS }, 0.02, 0.02},
	{"%drqm", func(s Stats) float64 { return s.DMergedPct }, 0.02, 0.02},
	{"d_await", func(s Stats) float64 { return s.DAwaitMs }, 0.02, 0.02},
	{"dareq-sz", func(s Stats) float64 { return s.DAreqSzKiB }, 0.02, 0.02},
	{"f/s", func(s Stats) float64 { return s.FPerS }, 0.02, 0.02},
	{"f_await", func(s Stats) float64 { return s.FAwaitMs }, 0.02, 0.02},
	{"aqu-sz", func(s Stats) float64 { return s.AquSz }, 0.02, 0.02},
	{"%util", func(s Stats) float64 { return s.UtilPct }, 2, 0.02},
}

// measurement is what measure saw: iostat's output and our samples.
type measurement struct {
	stdout  []byte
	samples []diskSample
	rt      error // why the sampling thread is not real-time
	err     error
}

// measure runs `iostat -dxk -t disk 1 N+1` and reads /proc/diskstats each
// time iostat has read the disk's counters: iostat prints a report's
// timestamp line right after reading them, and stdbuf -oL makes it write
// each line as it is printed, so the sampler, blocked on the pipe, reads
// within a fraction of a millisecond. So both cut the workload at nearly
// the same moments, whatever iostat's start-up time and alarm(1)'s drift,
// and other processes reading the same counters do not matter. The
// first report (since boot, which -y would skip) marks the first cut and
// is dropped. The sampler runs at real-time priority, and iostat inherits
// it from the thread that starts it, so that a busy machine delays
// neither.
func measure(ctx context.Context, stdbuf, iostat, disk string) measurement {
	var m measurement
	m.rt = realtime()
	r, w, err := os.Pipe()
	if err != nil {
		m.err = err
		return m
	}
	defer r.Close()
	cmd := exec.CommandContext(ctx, stdbuf, "-oL", iostat, "-d", "-x", "-k", "-t", disk, "1", strconv.Itoa(peerIntervals+1))
	cmd.Env = append(os.Environ(), "LC_ALL=C", "S_TIME_FORMAT=ISO", "S_COLORS=never")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		m.err = fmt.Errorf("%s: %w", stdbuf, err)
		return m
	}
	// Fd puts the pipe in blocking mode: the sampler's thread reads it
	// with plain system calls, not through Go's poller.
	out := &reportStream{fd: int(r.Fd())}
	m.samples, m.err = sampleDiskstats(disk, out)
	if m.err != nil {
		cmd.Process.Kill()
	}
	// The rest of the output, up to iostat's exit.
	for deadline := monotonic() + 10*time.Second; !out.eof && monotonic() < deadline; {
		if err := out.fill(time.Second); err != nil {
			break
		}
	}
	if !out.eof {
		cmd.Process.Kill()
	}
	if err := cmd.Wait(); err != nil && m.err == nil {
		m.err = fmt.Errorf("%s: %w\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	m.stdout = out.all
	return m
}

// realtime locks the calling goroutine to its thread for good (the thread
// ends with the goroutine, so its policy does not leak into Go's pool)
// and gives that thread SCHED_FIFO priority, which needs root or
// CAP_SYS_NICE.
func realtime() error {
	runtime.LockOSThread()
	err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 10}, 0)
	if err != nil {
		return fmt.Errorf("SCHED_FIFO (needs root or CAP_SYS_NICE): %w", err)
	}
	return nil
}

// peerTool finds a program the peer check runs, from a Debian package.
func peerTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		pgtest.Missing(t, "%s is not installed (Debian package %s): run scripts/install-deps", name, pkg)
	}
	return p
}

// monotonic is CLOCK_MONOTONIC, the clock of the paced sleeps.
func monotonic() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err) // cannot fail on Linux
	}
	return time.Duration(ts.Nano())
}

// sleepUntil sleeps on CLOCK_MONOTONIC until the absolute time at, with
// the kernel's high-resolution timers (Go's own timers may round a short
// sleep up to a millisecond).
func sleepUntil(at time.Duration) {
	ts := unix.NsecToTimespec(int64(at))
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}

// pacing is what pacedReads did.
type pacing struct {
	reads, dropped int
	late           time.Duration // the latest read, after its time
	rt             error         // why the reading thread is not real-time
	err            error
}

// pacedReads reads path with O_DIRECT, a peerBlock-sized read at a random
// aligned offset every peerPeriod, on absolute deadlines, from a
// real-time thread. A read more than two periods late (the thread or the
// disk stalled) drops the reads it missed rather than catching up in a
// burst: either way the second holding the stall is short of reads, but a
// burst would crowd reads near iostat's cut and ours. It reports on ready
// whether the file opened and the first read worked, then reads until ctx
// ends.
func pacedReads(ctx context.Context, path string, ready chan<- error) (p pacing) {
	p.rt = realtime()
	fail := func(err error) pacing {
		p.err = err
		ready <- err
		return p
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("open %s with O_DIRECT: %w", path, err))
	}
	defer unix.Close(fd)
	// Anonymous memory is page-aligned, as O_DIRECT needs.
	buf, err := unix.Mmap(-1, 0, peerBlock, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return fail(fmt.Errorf("mmap: %w", err))
	}
	defer unix.Munmap(buf)
	rng := rand.New(rand.NewPCG(1, 2))
	blocks := int64(peerFileSize / peerBlock)
	read := func() error {
		off := rng.Int64N(blocks) * peerBlock
		n, err := unix.Pread(fd, buf, off)
		if err == nil && n != peerBlock {
			err = fmt.Errorf("short read: %d bytes at %d", n, off)
		}
		if err != nil {
			return fmt.Errorf("O_DIRECT read of %s: %w", path, err)
		}
		return nil
	}
	if err := read(); err != nil {
		return fail(err)
	}
	ready <- nil
	start := monotonic()
	for i := 1; ctx.Err() == nil; i++ {
		at := start + time.Duration(i)*peerPeriod
		now := monotonic()
		if now < at {
			sleepUntil(at)
		} else if late := now - at; late > 2*peerPeriod {
			missed := int(late / peerPeriod)
			i += missed
			p.dropped += missed
			p.late = max(p.late, late)
		}
		if err := read(); err != nil {
			p.err = err
			return p
		}
		p.reads++
	}
	return p
}

// reportStream reads iostat's output as it comes and counts the reports
// begun: a report starts with its timestamp line (-t).
type reportStream struct {
	fd      int
	all     []byte // the output so far
	scanned int    // bytes of all looked at for lines
	stamps  int    // timestamp lines seen
	used    int    // of which wait has returned
	eof     bool
}

// fill waits up to timeout for output and reads what there is.
func (o *reportStream) fill(timeout time.Duration) error {
	p := []unix.PollFd{{Fd: int32(o.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(p, int((timeout+time.Millisecond-1)/time.Millisecond))
	if err == unix.EINTR || n == 0 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("poll iostat's output: %w", err)
	}
	var buf [4096]byte
	k, err := unix.Read(o.fd, buf[:])
	if err != nil {
		return fmt.Errorf("read iostat's output: %w", err)
	}
	if k == 0 {
		o.eof = true
	}
	o.all = append(o.all, buf[:k]...)
	for {
		i := bytes.IndexByte(o.all[o.scanned:], '\n')
		if i < 0 {
			return nil
		}
		if isStamp(o.all[o.scanned : o.scanned+i]) {
			o.stamps++
		}
		o.scanned += i + 1
	}
}

// isStamp says whether line is a timestamp of S_TIME_FORMAT=ISO.
func isStamp(line []byte) bool {
	_, err := time.Parse("2006-01-02T15:04:05-0700", string(bytes.TrimSpace(line)))
	return err == nil
}

// pending says whether iostat has begun a report that wait has not
// returned yet.
func (o *reportStream) pending() bool {
	o.fill(0)
	return o.stamps > o.used
}

// wait waits up to timeout for iostat to begin its next report, and
// reports whether it did.
func (o *reportStream) wait(timeout time.Duration) (bool, error) {
	deadline := monotonic() + timeout
	for o.stamps <= o.used {
		left := deadline - monotonic()
		if left <= 0 || o.eof {
			return false, nil
		}
		if err := o.fill(left); err != nil {
			return false, err
		}
	}
	o.used++
	return true, nil
}

// diskSample is one device's counters read at a time on the monotonic
// clock, at one of iostat's cuts, just after iostat read them. pre, when
// known, is the counters peerGuard earlier, just before iostat read them
// (unknown for the first and last cuts, and when iostat was early).
type diskSample struct {
	at       time.Duration
	counters diskstats.Counters
	pre      *diskstats.Counters
}

// cut is the counters iostat may have read at this cut: the ends of the
// range, or ours alone.
func (s diskSample) cut() []diskstats.Counters {
	if s.pre == nil {
		return []diskstats.Counters{s.counters}
	}
	return []diskstats.Counters{*s.pre, s.counters}
}

// sampleDiskstats reads dev's line of /proc/diskstats peerIntervals+1
// times, as iostat begins each report (on w). Before each cut but the
// first and last it reads it also peerGuard before the cut is due (a
// second after the last), unless iostat is already there.
func sampleDiskstats(dev string, w *reportStream) ([]diskSample, error) {
	read := func() (diskstats.Counters, error) {
		b, err := os.ReadFile("/proc/diskstats")
		if err != nil {
			return diskstats.Counters{}, err
		}
		snap, _, err := diskstats.Parse(bytes.NewReader(b), "/proc/diskstats")
		if err != nil {
			return diskstats.Counters{}, err
		}
		d, ok := snap.Device(dev)
		if !ok {
			return d, fmt.Errorf("%s is not in /proc/diskstats", dev)
		}
		return d, nil
	}
	n := peerIntervals + 1
	var samples []diskSample
	for i := range n {
		var pre *diskstats.Counters
		if i > 0 && i < n-1 {
			// iostat's alarm(1) rings a second after the last.
			sleepUntil(samples[i-1].at + time.Second - peerGuard)
			if !w.pending() {
				d, err := read()
				if err != nil {
					return nil, err
				}
				if !w.pending() { // else iostat may have read first
					pre = &d
				}
			}
		}
		timeout := 5 * time.Second // start-up
		if i > 0 {
			timeout = 1500 * time.Millisecond
		}
		ok, err := w.wait(timeout)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("iostat printed no report %d within %s", i, timeout)
		}
		s := diskSample{at: monotonic(), pre: pre}
		if s.counters, err = read(); err != nil {
			return nil, err
		}
		samples = append(samples, s)
	}
	return samples, nil
}

// iostatReport is one report of iostat -x for one device: its timestamp
// and each column's value by the column's name.
type iostatReport struct {
	time   string
	values map[string]float64
}

// parseIostat reads iostat -dx -t output: a timestamp line, a header line
// starting with "Device" that names the columns, and a line per device.
// Columns are found by name, so that a sysstat that adds or moves one is
// still read right.
func parseIostat(out []byte, dev string) ([]iostatReport, error) {
	var (
		reports []iostatReport
		header  []string
		stamp   string
	)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0:
		case f[0] == "Device" || f[0] == "Device:":
			header = f[1:]
		case f[0] == dev:
			if header == nil {
				return nil, fmt.Errorf("iostat line %d: a line for %s before any header", n, dev)
			}
			if len(f)-1 != len(header) {
				return nil, fmt.Errorf("iostat line %d: %d values for %d columns", n, len(f)-1, len(header))
			}
			r := iostatReport{time: stamp, values: map[string]float64{}}
			for i, col := range header {
				v, err := strconv.ParseFloat(f[i+1], 64)
				if err != nil {
					return nil, fmt.Errorf("iostat line %d, column %s: %w", n, col, err)
				}
				r.values[col] = v
			}
			reports = append(reports, r)
		case len(f) == 1 && strings.Contains(f[0], "T"):
			stamp = f[0] // S_TIME_FORMAT=ISO: 2025-01-02T15:04:05+0000
		}
	}
	return reports, sc.Err()
}
