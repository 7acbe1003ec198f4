package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestCollectStopsWhatItStarted: a server that was down before collect
// and that collect started is stopped at the end, and left up with
// --leave-running. On that capture, whose before statement changes a
// setting behind pgstudy's back, check fails with settings-ran.
func TestCollectStopsWhatItStarted(t *testing.T) {
	pg := pgtest.Start(t, 17)
	study := filepath.Join(t.TempDir(), "study.yaml")
	text := fmt.Sprintf(`
configs:
  - {name: plain, dsn: %[1]q, start: %[2]q, stop: %[3]q}
  - {name: cp, dsn: %[1]q, settings: {checkpoint_timeout: 7min}}
tests:
  - name: one
    before:
      - alter system set checkpoint_timeout = '7min'
      - select pg_reload_conf(), pg_sleep(0.5)
    sql: select 1
protocol: {rounds: 1}
`, pg.DSN(), pg.StartCmd(), pg.StopCmd())
	if err := os.WriteFile(study, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	up := func() bool { return exec.Command(pg.Psql(), "-X", "-d", pg.DSN(), "-c", "select 1").Run() == nil }
	for _, leave := range []bool{false, true} {
		pg.Stop(t)
		capture := filepath.Join(t.TempDir(), "capture")
		args := []string{"collect", study, "-o", capture, "--quiet"}
		if leave {
			args = append(args, "--leave-running")
		}
		code, _, stderr := runInProcess(args...)
		if code != 0 {
			t.Fatalf("collect: exit %d: %s", code, stderr)
		}
		if up() != leave {
			t.Errorf("--leave-running %v: the server collect started is up: %v; stderr:\n%s", leave, up(), stderr)
		}
		if !leave && !strings.Contains(stderr, "stopped plain, which collect started (--leave-running keeps it up)") {
			t.Errorf("collect does not say it stopped the server: %s", stderr)
		}
		code, out, _ := runInProcess("check", capture)
		if code != exitError || !strings.Contains(out, "error   settings-ran") ||
			!strings.Contains(out, "plain does not declare checkpoint_timeout, but run 1 ran with checkpoint_timeout = 420s") {
			t.Errorf("check: exit %d\n%s", code, out)
		}
	}
}
