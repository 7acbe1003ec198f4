package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/pgstudy/pgstudy/samples/outdir"
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
	const statement = 20 * time.Millisecond // quickStudy's pg_sleep(0.02)
	study := quickStudy(t, pg, rounds, "")
	out := filepath.Join(t.TempDir(), "capture")
	rng := rand.New(rand.NewPCG(1, 2))
	had, killed := 0, 0
	var gaps []time.Duration // between consecutive run starts
	for kill := range kills {
		if 2*rounds-had < 12 {
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

	// Another reader agrees on every table.
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
	if caps := rows["capture"]; caps < 2 || caps > kills+1 {
		t.Errorf("%d sessions recorded, want from 2 to %d", caps, kills+1)
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
// finish and be written, then the collector exits 130 with a valid
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
		if code != exitInterrupted {
			t.Fatalf("%v: exit %d, want %d\n%s", sig, code, exitInterrupted, stderr)
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

// faultStudy writes a study of one configuration and one test.
func faultStudy(t *testing.T, config, sql, protocol string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.yaml")
	text := fmt.Sprintf("configs:\n  - name: a\n%s\ntests:\n  - name: t\n    sql: %s\nprotocol: %s\n", config, sql, protocol)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runsOf returns the runs of a capture by id.
func runsOf(t *testing.T, dir string) []samples.Run {
	t.Helper()
	checkCapture(t, dir, 0)
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return mustRead[samples.Run](t, r)
}

// TestServerFaults hurts the server under test while a study runs: each
// fault gives a failed run that says what happened, the study goes on (or
// stops, as on_failure says), nothing hangs, and the runs before are
// intact.
func TestServerFaults(t *testing.T) {
	pg := pgtest.Start(t, 17)
	config := fmt.Sprintf("    dsn: %s\n    start: %s", pg.DSN(), pg.StartWhenGoneCmd())
	deadDSN := fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres connect_timeout=2", freePort(t))

	// expect checks a finished collect: its exit code, and each run's
	// status and a piece of its error, in run order.
	type want struct{ status, err string }
	expect := func(t *testing.T, code int, stderr, dir string, wantCode int, runs ...want) {
		t.Helper()
		if code != wantCode {
			t.Errorf("exit %d, want %d; it said:\n%s", code, wantCode, stderr)
		}
		got := runsOf(t, dir)
		if len(got) != len(runs) {
			t.Fatalf("%d runs in the capture, want %d; the collector said:\n%s", len(got), len(runs), stderr)
		}
		for i, run := range got {
			if run.RunID != int64(i+1) || run.Status != runs[i].status || !strings.Contains(run.Error, runs[i].err) {
				t.Errorf("run %d: %s %q, want run %d %s with %q", run.RunID, run.Status, run.Error, i+1, runs[i].status, runs[i].err)
			}
			if run.Status != "ok" && !strings.Contains(stderr, run.Error) {
				t.Errorf("run %d's error is not in what the collector said:\n%s", run.RunID, stderr)
			}
		}
	}

	// The first round's statement stalls for a minute, the second's takes
	// 20 ms: a fault the test causes lands in the first run's statement
	// however slow the machine is, and a statement the fault missed makes
	// the first run "ok" and the test fail.
	pg.SQL(t, "create table knob (s float8); insert into knob values (60)")
	const stall = "select pg_sleep(s) from knob"
	stalling := stall + "\n    before: \"update knob set s = {{if eq .Round 1}}60{{else}}0.02{{end}}\""

	// The server stopped with an immediate shutdown while the first run's
	// statement runs; the next run finds the server down and starts it.
	for _, client := range []struct{ name, config, err string }{
		{"pgx", "", "the connection to a was lost during the statement (unexpected EOF): the server stopped, crashed or closed the session"},
		{"psql", fmt.Sprintf("\n    client: psql\n    psql: %s -X", pg.Psql()), "exited with status 2: connection to server was lost"},
	} {
		t.Run("server stopped mid-statement, "+client.name, func(t *testing.T) {
			study := faultStudy(t, config+client.config, stalling, "{rounds: 2, ready_timeout: 60s}")
			out := filepath.Join(t.TempDir(), "capture")
			p := startCollect(t, study, "-o", out)
			waitForStatement(t, pg, stall, p)
			pg.Stop(t)
			code, stderr := p.wait(t)
			expect(t, code, stderr, out, exitRunsFailed, want{"failed", client.err}, want{"ok", ""})
			if client.name != "psql" {
				return
			}
			// What psql said is kept with the run.
			r, _ := samples.Open(out)
			var said string
			for _, o := range mustRead[samples.Output](t, r) {
				if o.RunID == 1 && o.Stream == "stderr" {
					said += o.Text
				}
			}
			if !strings.Contains(said, "server closed the connection unexpectedly") {
				t.Errorf("psql's stderr of the failed run: %q", said)
			}
		})
	}

	t.Run("connection dropped", func(t *testing.T) {
		study := faultStudy(t, config, stalling, "{rounds: 2}")
		out := filepath.Join(t.TempDir(), "capture")
		p := startCollect(t, study, "-o", out)
		waitForStatement(t, pg, stall, p)
		pg.SQL(t, "select pg_terminate_backend(pid) from pg_stat_activity where state = 'active' and query = '"+stall+"'")
		code, stderr := p.wait(t)
		expect(t, code, stderr, out, exitRunsFailed,
			want{"failed", "terminating connection due to administrator command (SQLSTATE 57P01)"}, want{"ok", ""})
	})

	t.Run("server never ready", func(t *testing.T) {
		// The start step succeeds, but nothing ever listens.
		dead := fmt.Sprintf("    dsn: %s\n    start: 'true'", deadDSN)
		for _, tc := range []struct {
			policy string
			runs   int
		}{{"continue", 3}, {"stop", 1}} {
			study := faultStudy(t, dead, "select 1", "{rounds: 3, ready_timeout: 1s, on_failure: "+tc.policy+"}")
			out := filepath.Join(t.TempDir(), "capture")
			code, stderr := startCollect(t, study, "-o", out).wait(t)
			runs := make([]want, tc.runs)
			for i := range runs {
				runs[i] = want{"failed", "a: the server did not accept a connection within 1s"}
			}
			expect(t, code, stderr, out, exitRunsFailed, runs...)
			if tc.policy == "stop" && !strings.Contains(stderr, "on_failure is stop") {
				t.Errorf("on_failure stop: the collector does not say why it stopped:\n%s", stderr)
			}
		}
	})

	t.Run("start step fails", func(t *testing.T) {
		failing := fmt.Sprintf("    dsn: %s\n    start: 'echo \"pg_ctl: could not start server (planted)\" >&2; exit 1'", deadDSN)
		study := faultStudy(t, failing, "select 1", "{rounds: 2}")
		out := filepath.Join(t.TempDir(), "capture")
		code, stderr := startCollect(t, study, "-o", out).wait(t)
		expect(t, code, stderr, out, exitRunsFailed, want{"failed", "start a: exited with status 1: pg_ctl: could not start server (planted)"}, want{"failed", "start a: exited with status 1"})
		r, _ := samples.Open(out)
		var starts int
		for _, st := range mustRead[samples.Step](t, r) {
			if st.Name == "start" {
				starts++
				if st.ExitCode == nil || *st.ExitCode != 1 || !strings.Contains(st.Output, "could not start server (planted)") {
					t.Errorf("the start step's record: exit %v, output %q", st.ExitCode, st.Output)
				}
			}
		}
		if starts != 2 {
			t.Errorf("%d start steps recorded, want 2", starts)
		}
	})
}

// TestDiskFull fills the capture's file system (a tmpfs of 4 MiB) after
// two runs: the collector stops at the run it cannot write, says so, and
// leaves a capture that reads as before; once there is room, --resume
// finishes the study.
func TestDiskFull(t *testing.T) {
	pg := pgtest.Start(t, 17)
	disk := smallDisk(t, "4m")
	out := filepath.Join(disk, "capture")
	filler := filepath.Join(disk, "filler")
	// The third run's cold step fills the disk: an event of the study, so
	// the disk is full when that run is written, on a machine of any speed.
	counter := filepath.Join(t.TempDir(), "n")
	script := filepath.Join(t.TempDir(), "fill.sh")
	os.WriteFile(script, []byte(fmt.Sprintf(`n=$(( $(cat %[1]s 2>/dev/null || echo 0) + 1 ))
echo $n > %[1]s
if [ $n -eq 3 ]; then dd if=/dev/zero of=%[2]s bs=4096 2>/dev/null; fi
exit 0
`, counter, filler)), 0o755)
	study := quickStudy(t, pg, 10, "")
	text, _ := os.ReadFile(study)
	text = bytes.Replace(text, []byte("protocol:\n"), []byte(fmt.Sprintf("protocol:\n  cold: [{sh: sh %s}]\n", script)), 1)
	os.WriteFile(study, text, 0o644)
	p := startCollect(t, study, "-o", out)
	code, stderr := p.wait(t)
	if code != exitError || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "make room, then carry on with --resume") {
		t.Fatalf("disk full: exit %d, want %d and \"no space left on device\"; it said:\n%s", code, exitError, stderr)
	}
	ids := checkCapture(t, out, 0)
	if len(ids) != 2 {
		t.Fatalf("disk full: %d runs in the capture, want the 2 before the disk was full", len(ids))
	}
	if n := reported(stderr); len(ids) < n {
		t.Errorf("disk full: the collector reported %d runs in the capture; it holds %d", n, len(ids))
	}
	t.Logf("disk full after %d runs: %s", len(ids), lastLine(stderr))

	// Still full, resume refuses or fails cleanly and loses nothing.
	code, stderr = startCollect(t, study, "-o", out, "--resume").wait(t)
	if code == exitOK {
		t.Fatalf("resume on a full disk succeeded?\n%s", stderr)
	}
	if again := checkCapture(t, out, 0); len(again) < len(ids) {
		t.Fatalf("resume on a full disk: %d runs, fewer than %d", len(again), len(ids))
	}
	t.Logf("resume on a full disk: exit %d: %s", code, lastLine(stderr))

	os.Remove(filler)
	if code, stderr = startCollect(t, study, "-o", out, "--resume").wait(t); code != exitOK {
		t.Fatalf("resume with room: exit %d: %s", code, stderr)
	}
	checkCapture(t, out, 20)
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

// importFolder writes n files of size bytes of text that does not
// compress (psql outputs, to an import), with their manifest.
func importFolder(t *testing.T, n, size int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	manifest := []string{"round,position,config,test,kind,path"}
	buf := make([]byte, size)
	for i := range n {
		for j := range buf {
			buf[j] = byte('a' + rng.IntN(26))
		}
		name := fmt.Sprintf("r%d.out", i+1)
		if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
			t.Fatal(err)
		}
		manifest = append(manifest, fmt.Sprintf("%d,,a,t,psql,%s", i+1, name))
	}
	m := filepath.Join(dir, "manifest.csv")
	os.WriteFile(m, []byte(strings.Join(manifest, "\n")+"\n"), 0o644)
	return m
}

// TestImportFaults: an import that fails on a full disk, or is killed,
// leaves no capture behind (not one that lacks runs); run again, it
// imports everything, and names (never removes) the temporary folders the
// killed imports left.
func TestImportFaults(t *testing.T) {
	t.Run("disk full", func(t *testing.T) {
		disk := smallDisk(t, "2m")
		manifest := importFolder(t, 40, 64<<10)
		out := filepath.Join(disk, "capture")
		code, stdout, stderr := runInProcess("import", manifest, "-o", out)
		if code != exitError || !strings.Contains(stderr, "no space left on device") {
			t.Fatalf("import on a full disk: exit %d, want %d and \"no space left on device\":\n%s%s", code, exitError, stdout, stderr)
		}
		if entries, _ := os.ReadDir(disk); len(entries) != 0 {
			t.Errorf("a failed import left %v on the disk", entries)
		}
		t.Logf("disk full: %s", lastLine(stderr))
	})
	t.Run("kill -9", func(t *testing.T) {
		manifest := importFolder(t, 300, 128<<10)
		out := filepath.Join(t.TempDir(), "capture")
		// Each kill comes a moment after the import has made its temporary
		// folder (an event, not a time): while it writes the capture.
		for _, delay := range []time.Duration{0, 20 * time.Millisecond, 200 * time.Millisecond} {
			before := len(outdir.Leftovers(out))
			cmd := pgstudy("import", manifest, "-o", out)
			exited := start(t, cmd)
			for len(outdir.Leftovers(out)) == before {
				select {
				case <-exited:
					t.Fatalf("the import ended before it made its temporary folder")
				case <-time.After(time.Millisecond):
				}
			}
			time.Sleep(delay)
			cmd.Process.Kill()
			<-exited
			if _, err := os.Stat(out); err == nil {
				// It finished before the kill: then it is whole.
				checkImported(t, out, 300)
				os.RemoveAll(out)
				t.Logf("killed after %s: the import had finished", delay)
				continue
			}
			t.Logf("killed after %s: no capture", delay)
		}
		// Into an empty folder made beforehand, as users do.
		os.MkdirAll(out, 0o755)
		left := outdir.Leftovers(out)
		if len(left) == 0 {
			t.Fatal("no kill landed while the import wrote its capture")
		}
		code, _, stderr := runInProcess("import", manifest, "-o", out)
		if code != exitOK {
			t.Fatalf("import after the kills: exit %d: %s", code, stderr)
		}
		checkImported(t, out, 300)
		for _, l := range left {
			if _, err := os.Stat(l); err != nil || !strings.Contains(stderr, l+" is left from an earlier pgstudy that was stopped") {
				t.Errorf("the leftover %s of a killed import: %v; the import said:\n%s", l, err, stderr)
			}
		}
		entries, _ := os.ReadDir(filepath.Dir(out))
		if len(entries) != 1+len(left) {
			t.Errorf("beside the capture: %v; want it and the %d leftovers", entries, len(left))
		}
	})
}

// importWriting starts an import of 3,000 runs and returns once it has
// made its temporary folder (an event, not a time): while it writes.
func importWriting(t *testing.T) (manifest, out string, cmd *exec.Cmd, stderr *bytes.Buffer, exited chan error) {
	t.Helper()
	manifest = importFolder(t, 3000, 4<<10)
	out = filepath.Join(t.TempDir(), "capture")
	cmd = pgstudy("import", manifest, "-o", out)
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	exited = start(t, cmd)
	for len(outdir.Leftovers(out)) == 0 {
		select {
		case <-exited:
			t.Fatalf("the import ended before it made its temporary folder: %s", stderr.String())
		case <-time.After(time.Millisecond):
		}
	}
	return manifest, out, cmd, stderr, exited
}

// TestImportStops: an import that is interrupted (SIGINT once it made its
// temporary folder), or meets a FIFO put in a file's place after its
// checks, stops at once, exit non-zero, and leaves nothing: before, it
// ignored both signals and finished, and a FIFO hung it for good.
func TestImportStops(t *testing.T) {
	t.Run("SIGINT", func(t *testing.T) {
		_, out, cmd, stderr, exited := importWriting(t)
		cmd.Process.Signal(os.Interrupt)
		<-exited
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(stderr.String(), "nothing is left at") {
			t.Errorf("exit %d, want %d: %s", code, exitInterrupted, stderr.String())
		}
		if _, err := os.Stat(out); err == nil || len(outdir.Leftovers(out)) != 0 {
			t.Errorf("an interrupted import left %s or %v", out, outdir.Leftovers(out))
		}
	})
	t.Run("FIFO swapped in", func(t *testing.T) {
		manifest, out, cmd, stderr, exited := importWriting(t)
		dir := filepath.Dir(manifest)
		last := filepath.Join(dir, "r3000.out")
		os.Remove(last)
		if err := syscall.Mkfifo(last, 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatal("the import hung on a FIFO")
		}
		if code := cmd.ProcessState.ExitCode(); code != exitError || !strings.Contains(stderr.String(), "manifest line 3001: r3000.out is a FIFO") {
			t.Errorf("exit %d, want %d naming the FIFO: %s", code, exitError, stderr.String())
		}
		if _, err := os.Stat(out); err == nil || len(outdir.Leftovers(out)) != 0 {
			t.Errorf("the import left %s or %v", out, outdir.Leftovers(out))
		}
	})
}

// TestImportFileTooLarge: an imported file over 64 MiB is refused naming it
// and its manifest line (a 2 GiB one made the Parquet writer panic, a
// 300 MB one took 3 GB).
func TestImportFileTooLarge(t *testing.T) {
	manifest := importFolder(t, 3, 1<<10)
	big := filepath.Join(filepath.Dir(manifest), "r2.out")
	if err := os.Truncate(big, 65<<20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	code, _, stderr := runInProcess("import", manifest, "-o", out)
	if code != exitError || !strings.Contains(stderr, "manifest line 3: r2.out is larger than 64 MiB, the most pgstudy reads of an imported file") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused import left %s", out)
	}
}

// checkImported: the capture holds runs 1..n.
func checkImported(t *testing.T, dir string, n int) {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runs := mustRead[samples.Run](t, r); len(runs) != n {
		t.Errorf("%s: %d runs, want %d", dir, len(runs), n)
	}
}

// TestOutputFolders: report and analyze -o replace their folder whole. A
// second report leaves no figure of the first that it does not have; a
// folder holding someone else's file is refused untouched; a full disk
// leaves nothing behind, and an earlier report as it was.
func TestOutputFolders(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report")
	if code, _, stderr := runInProcess("report", "-o", report, "--quiet"); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	before, _ := filepath.Glob(filepath.Join(report, "figures", "*-bitmap.svg"))
	if len(before) == 0 {
		t.Fatal("the sample's report has no figure of the bitmap test")
	}
	if code, _, stderr := runInProcess("report", "-o", report, "--quiet", "--exclude", "test=bitmap"); code != exitOK {
		t.Fatalf("report without bitmap: exit %d: %s", code, stderr)
	}
	if after, _ := filepath.Glob(filepath.Join(report, "figures", "*-bitmap.*")); len(after) != 0 {
		t.Errorf("figures of an excluded test left from the report before: %v", after)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("beside the report: %v", entries)
	}

	// Someone else's folder.
	mine := filepath.Join(dir, "mine")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "post.md"), []byte("my post\n"), 0o644)
	for _, args := range [][]string{{"report", "-o", mine}, {"analyze", "../../samples/example/capture", "-o", mine}} {
		code, _, stderr := runInProcess(args...)
		if code == exitOK || !strings.Contains(stderr, "holds post.md and no record of what pgstudy wrote there") {
			t.Errorf("%s into a folder of someone else's: exit %d: %s", args[0], code, stderr)
		}
		if entries, _ := os.ReadDir(mine); len(entries) != 1 {
			t.Errorf("%s changed a folder it refused: %v", args[0], entries)
		}
	}

	// A full disk: room for one report (about 600 KiB) and not two. The
	// second fails, leaves nothing half-written, and the first as it was.
	disk := smallDisk(t, "900k")
	small := filepath.Join(disk, "report")
	if code, _, stderr := runInProcess("report", "-o", small, "--quiet"); code != exitOK {
		t.Fatalf("first report on the small disk: exit %d: %s", code, stderr)
	}
	first := treeHash(t, small)
	code, _, stderr := runInProcess("report", "-o", small, "--quiet")
	if code != exitError || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("report on a full disk: exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(disk); len(entries) != 1 {
		t.Errorf("a report that failed left %v", entries)
	}
	if treeHash(t, small) != first {
		t.Error("a report that failed changed the report before it")
	}
	t.Logf("report on a full disk: %s", lastLine(stderr))
}

// treeHash is a hash of every file's path and bytes under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		n++
		return err
	})
	if err != nil || n == 0 {
		t.Fatalf("hash %s: %v (%d files)", dir, err, n)
	}
	return hex.EncodeToString(h.Sum(nil))
}
