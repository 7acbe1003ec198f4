package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// The fault tests run pgstudy as a process of its own against real
// servers and hurt it or its surroundings while it works. docs/RELIABILITY.md
// tables what each shows.

// hangLimit is how long a collect under a fault may go without printing
// (it prints a line as each run starts and ends) before the test calls it
// a hang.
const hangLimit = 2 * time.Minute

// output is a process's standard error, safe to read while it runs.
type output struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	last time.Time // of the last write, or the start
	// ends[i] is the length of buf after write i, at times[i].
	ends  []int
	times []time.Time
}

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.last = time.Now()
	n, err := o.buf.Write(b)
	o.ends, o.times = append(o.ends, o.buf.Len()), append(o.times, o.last)
	return n, err
}

// matchTimes is when each match of re was written.
func (o *output) matchTimes(re *regexp.Regexp) []time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []time.Time
	for _, m := range re.FindAllStringIndex(o.buf.String(), -1) {
		i, _ := slices.BinarySearch(o.ends, m[1])
		if i < len(o.times) {
			out = append(out, o.times[i])
		}
	}
	return out
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

func (o *output) idle() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return time.Since(o.last)
}

// collectProc is a `pgstudy collect` running as a process.
type collectProc struct {
	cmd    *exec.Cmd
	stderr *output
	exited chan error
}

func startCollect(t *testing.T, args ...string) *collectProc {
	t.Helper()
	p := &collectProc{cmd: pgstudy(append([]string{"collect"}, args...)...), stderr: &output{last: time.Now()}}
	p.cmd.Stderr = p.stderr
	p.exited = start(t, p.cmd)
	// A test that fails while it runs must not leave it restarting servers
	// into folders the cleanups remove.
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			select {
			case <-p.exited:
			case <-time.After(time.Minute):
			}
		}
	})
	return p
}

// wait waits for the process to end by itself and returns its exit code
// and what it printed; silent for hangLimit, it is killed and the test
// fails.
func (p *collectProc) wait(t *testing.T) (int, string) {
	t.Helper()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-p.exited:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			return p.cmd.ProcessState.ExitCode(), p.stderr.String()
		case <-tick.C:
			if p.stderr.idle() > hangLimit {
				p.cmd.Process.Kill()
				<-p.exited
				t.Fatalf("collect hung: silent for %s; it said:\n%s", hangLimit, p.stderr.String())
			}
		}
	}
}

// runStartRE matches the progress line of a run the collector starts:
// "run 7/40: round 4, sleep on a, position 1".
var runStartRE = regexp.MustCompile(`(?m)^run \d+/\d+: `)

// waitForLine waits until what the process printed holds n matches of re
// (n = 0 returns at once). A process that exits first, or that is silent
// for hangLimit, fails the test.
func (p *collectProc) waitForLine(t *testing.T, re *regexp.Regexp, n int) {
	t.Helper()
	for len(re.FindAllStringIndex(p.stderr.String(), -1)) < n {
		select {
		case err := <-p.exited:
			t.Fatalf("the collector exited (%v) before it printed %d lines like %q; it said:\n%s", err, n, re, p.stderr.String())
		case <-time.After(time.Millisecond):
		}
		if p.stderr.idle() > hangLimit {
			t.Fatalf("collect hung: silent for %s; it said:\n%s", hangLimit, p.stderr.String())
		}
	}
}

// reportedRE matches the progress line of a run the collector finished:
// "run 7/40 ok: ..." or "run 7/40 failed: ...", 7 runs being in the capture.
var reportedRE = regexp.MustCompile(`(?m)^run (\d+)/\d+ (ok|failed|timeout)`)

// reported is the number of runs the collector said were in the capture.
func reported(stderr string) int {
	n := 0
	for _, m := range reportedRE.FindAllStringSubmatch(stderr, -1) {
		v, _ := strconv.Atoi(m[1])
		n = max(n, v)
	}
	return n
}

// TestKill9Resume kills the collector with SIGKILL at random moments of a
// real study (starting, cleaning up after the last kill, in a cold step,
// in the timed statement, while writing parts) and resumes it each time.
// After every kill, the capture holds every run the collector had reported
// finished, each once, with all its rows; at the end it holds the whole
// schedule, and DuckDB reads every table with pgstudy's row counts.
//
// Each kill moment is relative to the collector's progress, not to the
// clock: after the collector has started its k-th run of this session (k
// from 0 to 3), a delay drawn over one run's period as measured (the
// median time between the starts of consecutive runs so far): the kill
// comes anywhere in run k, from its preparation through its statement to
// the writing of its parts, or at the start of run k+1. A session thus
// finishes about k+1 runs, at most 4 or 5: every kill lands while the
// study still runs, on a machine of any speed (and killing stops while
// fewer than 12 runs are left, should the machine speed up a lot).
func TestKill9Resume(t *testing.T) {
	pg := pgtest.Start(t, 17)
	const rounds, kills = 60, 24
	study := quickStudy(t, pg, rounds, "")
	out := filepath.Join(t.TempDir(), "capture")
	had := killRepeatedly(t, study, out, 2*rounds, kills)
	// A capture left incomplete says so.
	want := fmt.Sprintf("holds %d of the %d runs its study scheduled; missing: runs %d-%d", had, 2*rounds, had+1, 2*rounds)
	if _, out, _ := runInProcess("check", out); !strings.Contains(out, "warning incomplete: the capture") || !strings.Contains(out, want) {
		t.Errorf("check of the incomplete capture does not say %q:\n%s", want, out)
	}
	code, stderr := startCollect(t, study, "-o", out, "--resume").wait(t)
	if code != exitOK {
		t.Fatalf("final resume: exit %d: %s", code, stderr)
	}
	checkCapture(t, out, 2*rounds)
	checkReaders(t, out, kills+1)
}

// killRepeatedly runs the study into out, killing it up to kills times
// (TestKill9Resume says when) and checking the capture after each kill,
// and returns how many runs the capture holds after the last.
func killRepeatedly(t *testing.T, study, out string, total, kills int) int {
	t.Helper()
	const statement = 20 * time.Millisecond // quickStudy's pg_sleep(0.02)
	rng := rand.New(rand.NewPCG(1, 2))
	had, killed := 0, 0
	var gaps []time.Duration // between consecutive run starts
	for kill := range kills {
		if total-had < 12 {
			break
		}
		args := []string{study, "-o", out}
		if kill > 0 {
			args = append(args, "--resume")
		}
		p := startCollect(t, args...)
		if kill == 0 {
			// A capture must exist for --resume to carry on.
			waitForRuns(t, out, 1, p.exited, p.stderr)
		}
		k := rng.IntN(4)
		p.waitForLine(t, runStartRE, k)
		period := 2 * statement // until one is measured
		if len(gaps) > 0 {
			sorted := slices.Sorted(slices.Values(gaps))
			period = sorted[len(sorted)/2]
		}
		delay := time.Duration(rng.Int64N(int64(period)))
		select {
		case err := <-p.exited:
			t.Fatalf("kill %d: the collector ended (%v) before it was killed; it said:\n%s", kill+1, err, p.stderr.String())
		case <-time.After(delay):
		}
		p.cmd.Process.Kill()
		<-p.exited
		killed++
		starts := p.stderr.matchTimes(runStartRE)
		for i := 1; i < len(starts); i++ {
			gaps = append(gaps, starts[i].Sub(starts[i-1]))
		}
		ids := checkCapture(t, out, 0)
		if n := reported(p.stderr.String()); len(ids) < n {
			t.Errorf("kill %d after %s: the collector reported %d runs in the capture; it holds %d", kill+1, delay, n, len(ids))
		}
		if len(ids) < had {
			t.Fatalf("kill %d after %s: %d runs, fewer than the %d before it", kill+1, delay, len(ids), had)
		}
		// DuckDB reads every file of every table as the kill left it, and
		// its runs are pgstudy's (the runs part of a run is its last).
		if duck := pgtest.DuckDBCounts(t, out, tableNames()...); duck["runs"] != len(ids) {
			t.Errorf("kill %d: DuckDB reads %d runs, pgstudy %d", kill+1, duck["runs"], len(ids))
		}
		t.Logf("kill %d, %d runs started and %5.1f ms: %d runs durable (%d this session); it had said %q", kill+1, k, float64(delay.Microseconds())/1000, len(ids), len(ids)-had, lastLine(p.stderr.String()))
		had = len(ids)
	}
	if killed < 20 {
		t.Fatalf("only %d kills", killed)
	}
	return had
}

// checkReaders: DuckDB agrees with pgstudy on every table of the resumed
// capture, which holds from 2 to sessions sessions, and analyze and check
// read it whole.
func checkReaders(t *testing.T, out string, sessions int) {
	t.Helper()
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{
		"capture":   len(mustRead[samples.Capture](t, r)),
		"host":      len(mustRead[samples.Host](t, r)),
		"runs":      len(mustRead[samples.Run](t, r)),
		"steps":     len(mustRead[samples.Step](t, r)),
		"diskstats": len(mustRead[samples.Diskstats](t, r)),
		"stats":     len(mustRead[samples.Stat](t, r)),
		"settings":  len(mustRead[samples.Setting](t, r)),
	}
	duck := pgtest.DuckDBCounts(t, out, "capture", "host", "runs", "steps", "diskstats", "stats", "settings")
	for table, n := range rows {
		if duck[table] != n {
			t.Errorf("table %s: DuckDB reads %d rows, pgstudy %d", table, duck[table], n)
		}
	}
	if caps := rows["capture"]; caps < 2 || caps > sessions {
		t.Errorf("%d sessions recorded, want from 2 to %d", caps, sessions)
	}
	if code, _, stderr := runInProcess("analyze", out); code != exitOK {
		t.Errorf("analyze of the resumed capture: exit %d: %s", code, stderr)
	}
	if _, out, _ := runInProcess("check", out); strings.Contains(out, "incomplete") {
		t.Errorf("check of the whole capture calls it incomplete:\n%s", out)
	}
}

func tableNames() []string {
	var names []string
	for _, t := range samples.Tables {
		names = append(names, t.Name)
	}
	return names
}

func mustRead[T any](t *testing.T, r *samples.Reader) []T {
	t.Helper()
	rows, err := samples.Read[T](r)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestInterrupt: the first SIGINT or SIGTERM lets the run in progress
// finish and be written, then the collector exits 130 (143 for SIGTERM, as
// a shell reports a process the signal ended) with a valid
// capture; a second signal stops the run in progress at once, which is
// then not recorded; the rest can be resumed.
func TestInterrupt(t *testing.T) {
	pg := pgtest.Start(t, 17)
	study := quickStudy(t, pg, 30, "")
	out := filepath.Join(t.TempDir(), "capture")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		args := []string{study, "-o", out}
		if sig == syscall.SIGTERM {
			args = append(args, "--resume")
		}
		before, _ := filepath.Glob(filepath.Join(out, "runs", "*.parquet"))
		p := startCollect(t, args...)
		waitForRuns(t, out, len(before)+2, p.exited, p.stderr)
		p.cmd.Process.Signal(sig)
		code, stderr := p.wait(t)
		if want := 128 + int(sig); code != want {
			t.Fatalf("%v: exit %d, want %d\n%s", sig, code, want, stderr)
		}
		if !strings.Contains(stderr, "--resume") {
			t.Errorf("%v: the message does not say how to resume:\n%s", sig, stderr)
		}
		ids := checkCapture(t, out, 0)
		if len(ids) >= 60 {
			t.Fatalf("%v did not stop the study", sig)
		}
		if n := reported(stderr); len(ids) < n {
			t.Errorf("%v: the collector reported %d runs in the capture; it holds %d", sig, n, len(ids))
		}
	}

	// Twice, during a statement of 30 s: the collector stops within
	// seconds, and the run it was in is not in the capture.
	slow := quickStudy(t, pg, 1, "")
	text, _ := os.ReadFile(slow)
	os.WriteFile(slow, bytes.Replace(text, []byte("pg_sleep(0.02)"), []byte("pg_sleep(30)"), 1), 0o644)
	slowOut := filepath.Join(t.TempDir(), "slow")
	p := startCollect(t, slow, "-o", slowOut)
	waitForStatement(t, pg, "select pg_sleep(30)", p)
	begin := time.Now()
	p.cmd.Process.Signal(syscall.SIGINT)
	// Two signals sent before the first is taken would be one.
	p.waitForLine(t, regexp.MustCompile(`(?m)^pgstudy: stopping after the run in progress`), 1)
	p.cmd.Process.Signal(syscall.SIGINT)
	code, stderr := p.wait(t)
	// Well before the statement's 30 s, however busy the machine.
	if code != exitInterrupted || time.Since(begin) > 20*time.Second {
		t.Fatalf("SIGINT twice: exit %d after %s, want %d within 20 s\n%s", code, time.Since(begin), exitInterrupted, stderr)
	}
	if ids := checkCapture(t, slowOut, 0); len(ids) != 0 {
		t.Errorf("SIGINT twice: the interrupted run is in the capture: %v", ids)
	}
	// The cancel request reaches the server on a connection of its own:
	// the statement ends soon after, not necessarily before the exit.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		n := pg.SQL(t, "select count(*) from pg_stat_activity where query = 'select pg_sleep(30)' and state = 'active'")
		if n == "0" {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("SIGINT twice: the statement still runs on the server 10 s after the collector exited (%s sessions)", n)
			break
		}
	}

	if code, _, stderr := runInProcess("collect", study, "-o", out, "--resume", "--quiet"); code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	checkCapture(t, out, 60)
}

// waitForStatement waits until a session of the server runs sql.
func waitForStatement(t *testing.T, pg *pgtest.Cluster, sql string, p *collectProc) {
	t.Helper()
	// psql sends the statement as written, with a line break and the
	// semicolon that ends it.
	query := fmt.Sprintf("select count(*) from pg_stat_activity where state = 'active' and rtrim(query, E'\n;') = '%s'", strings.ReplaceAll(sql, "'", "''"))
	deadline := time.After(time.Minute)
	for pg.SQL(t, query) == "0" {
		select {
		case err := <-p.exited:
			t.Fatalf("the collector exited (%v) before it ran %q; it said:\n%s", err, sql, p.stderr.String())
		case <-deadline:
			t.Fatalf("no session ran %q within a minute; the collector said:\n%s", sql, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// smallDisk mounts a tmpfs of the size given on a temporary folder.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "pgstudy-test", dir).CombinedOutput(); err != nil {
		pgtest.Missing(t, "cannot mount a tmpfs (this needs root outside a container): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
