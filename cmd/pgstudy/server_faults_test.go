package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

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

	// The first round's statement stalls for a minute, the second's takes
	// 20 ms: a fault the test causes lands in the first run's statement
	// however slow the machine is, and a statement the fault missed makes
	// the first run "ok" and the test fail.
	pg.SQL(t, "create table knob (s float8); insert into knob values (60)")

	// The server stopped with an immediate shutdown while the first run's
	// statement runs; the next run finds the server down and starts it.
	for _, client := range []struct{ name, config, err string }{
		{"pgx", "", "the connection to a was lost during the statement (unexpected EOF): the server stopped, crashed or closed the session"},
		{"psql", fmt.Sprintf("\n    client: psql\n    psql: %s -X", pg.Psql()), "psql stopped during the statement (exit status 2): psql:<stdin>:10: error: connection to server was lost"},
	} {
		t.Run("server stopped mid-statement, "+client.name, func(t *testing.T) {
			serverStopped(t, pg, config+client.config, client.name == "psql", client.err)
		})
	}
	t.Run("connection dropped", func(t *testing.T) { connectionDropped(t, pg, config) })
	t.Run("server never ready", func(t *testing.T) { serverNeverReady(t, deadDSN) })
	t.Run("start step fails", func(t *testing.T) { startStepFails(t, deadDSN) })
}

// stall is the statement of a fault: stalling makes it stall in round 1.
const (
	stall    = "select pg_sleep(s) from knob"
	stalling = stall + "\n    before: \"update knob set s = {{if eq .Round 1}}60{{else}}0.02{{end}}\""
)

// wantRun is a run's status and a piece of its error.
type wantRun struct{ status, err string }

// expectRuns checks a finished collect: its exit code, and each run's
// status and a piece of its error, in run order.
func expectRuns(t *testing.T, code int, stderr, dir string, wantCode int, runs ...wantRun) {
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

// serverStopped stops the server in the first run's statement; with psql,
// what psql said is kept with the run.
func serverStopped(t *testing.T, pg *pgtest.Cluster, config string, psql bool, wantErr string) {
	study := faultStudy(t, config, stalling, "{rounds: 2, ready_timeout: 60s}")
	out := filepath.Join(t.TempDir(), "capture")
	p := startCollect(t, study, "-o", out)
	waitForStatement(t, pg, stall, p)
	pg.Stop(t)
	code, stderr := p.wait(t)
	expectRuns(t, code, stderr, out, exitRunsFailed, wantRun{"failed", wantErr}, wantRun{"ok", ""})
	if !psql {
		return
	}
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
}

func connectionDropped(t *testing.T, pg *pgtest.Cluster, config string) {
	study := faultStudy(t, config, stalling, "{rounds: 2}")
	out := filepath.Join(t.TempDir(), "capture")
	p := startCollect(t, study, "-o", out)
	waitForStatement(t, pg, stall, p)
	pg.SQL(t, "select pg_terminate_backend(pid) from pg_stat_activity where state = 'active' and query = '"+stall+"'")
	code, stderr := p.wait(t)
	expectRuns(t, code, stderr, out, exitRunsFailed,
		wantRun{"failed", "terminating connection due to administrator command (SQLSTATE 57P01)"}, wantRun{"ok", ""})
}

// serverNeverReady: the start step succeeds, but nothing ever listens.
func serverNeverReady(t *testing.T, deadDSN string) {
	dead := fmt.Sprintf("    dsn: %s\n    start: 'true'", deadDSN)
	for _, tc := range []struct {
		policy string
		runs   int
	}{{"continue", 3}, {"stop", 1}} {
		study := faultStudy(t, dead, "select 1", "{rounds: 3, ready_timeout: 1s, on_failure: "+tc.policy+"}")
		out := filepath.Join(t.TempDir(), "capture")
		code, stderr := startCollect(t, study, "-o", out).wait(t)
		runs := make([]wantRun, tc.runs)
		for i := range runs {
			runs[i] = wantRun{"failed", "a: the server did not accept a connection within 1s"}
		}
		expectRuns(t, code, stderr, out, exitRunsFailed, runs...)
		if tc.policy == "stop" && !strings.Contains(stderr, "on_failure is stop") {
			t.Errorf("on_failure stop: the collector does not say why it stopped:\n%s", stderr)
		}
	}
}

func startStepFails(t *testing.T, deadDSN string) {
	failing := fmt.Sprintf("    dsn: %s\n    start: 'echo \"pg_ctl: could not start server (planted)\" >&2; exit 1'", deadDSN)
	study := faultStudy(t, failing, "select 1", "{rounds: 2}")
	out := filepath.Join(t.TempDir(), "capture")
	code, stderr := startCollect(t, study, "-o", out).wait(t)
	expectRuns(t, code, stderr, out, exitRunsFailed, wantRun{"failed", "start a: exited with status 1: pg_ctl: could not start server (planted)"}, wantRun{"failed", "start a: exited with status 1"})
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
