package analyze_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestEveryRunFailed: on a real server, configuration b's statement
// timeout fails every run of "sleepy" on b, an error finding that names
// the runs and the first error (so check fails); one failed run of
// "flaky" among others is a warning only. The timeout (1 s) is far above
// what flaky's statements take on a busy machine: at 100 ms, one of them
// timed out under load, a fourth failed run.
func TestEveryRunFailed(t *testing.T) {
	pg := pgtest.Start(t, 17)
	pg.SQL(t, "create table knob (n int)")
	dir := t.TempDir()
	path := filepath.Join(dir, "study.yaml")
	study := fmt.Sprintf(`
configs:
  - name: a
    dsn: %[1]s
  - name: b
    dsn: %[1]s
    settings: {statement_timeout: 1s}
tests:
  - name: sleepy
    sql: select pg_sleep(1.5)
  - name: flaky
    before: insert into knob values (1)
    sql: select 1 / ((select count(*) from knob) - 1)::int
protocol:
  rounds: 2
`, pg.DSN())
	if err := os.WriteFile(path, []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	if sum == nil || sum.Failed != 3 {
		t.Fatalf("collect: %v %+v, want 3 failed runs", err, sum)
	}
	a := analyse(t, out, analyze.Options{})
	var sleepyB, flakyA []int64
	for _, r := range a.Runs {
		switch {
		case r.Test == "sleepy" && r.Config == "b":
			sleepyB = append(sleepyB, r.RunID)
		case r.Test == "flaky" && r.Config == "a" && r.Status != "ok":
			flakyA = append(flakyA, r.RunID)
		}
	}
	// The finding lists runs by round, then id; a.Runs is in the order
	// they ran, which in a rotated round 2 puts b's first.
	slices.Sort(sleepyB)
	slices.Sort(flakyA)
	var got []string
	for _, f := range a.Findings {
		if f.Guard == "failed" {
			got = append(got, fmt.Sprintf("%s %s %s %v: %s", f.Severity, f.Test, f.Config, f.Runs, f.Message))
		}
	}
	want := []string{
		fmt.Sprintf("error sleepy b %v: every run of sleepy on b failed (2 of 2: runs %d, %d), so sleepy has no result for b; the first: run %d (round 1) timeout: ERROR: canceling statement due to statement timeout (SQLSTATE 57014)",
			sleepyB, sleepyB[0], sleepyB[1], sleepyB[0]),
		fmt.Sprintf("warning flaky a %v: 1 run(s) of flaky on a did not finish and are left out; the first: run %d (round 1) failed: ERROR: division by zero (SQLSTATE 22012)",
			flakyA, flakyA[0]),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("failed findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a.Errors() != 1 {
		t.Errorf("%d error findings, want 1 (check must fail)", a.Errors())
	}
}
