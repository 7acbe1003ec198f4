package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestMeasuredRealCapture collects a study on real servers (17 through
// pgx with a session setting, 18 through psql with a setting that needs a
// restart and one a reload would do, 17 one a reload does; a vacuum whose before statement
// updates a new slice each round), renders its report, and compares the
// configurations, tests and relation sizes of "How we measured" with a
// golden file. What differs from one machine to another (the host and its
// disk, minor versions, where psql is installed) is left out or replaced.
func TestMeasuredRealCapture(t *testing.T) {
	pg17, pg18 := pgtest.Start(t, 17), pgtest.Start(t, 18)
	for _, pg := range []*pgtest.Cluster{pg17, pg18} {
		pg.SQL(t, `create table accounts (aid int primary key, bid int, v int, filler text);
insert into accounts select g, g % 10, (g / 500) % 1000, repeat('x', 80) from generate_series(1, 200000) g;
create index on accounts (v); create table other (i int)`)
		pg.SQL(t, "vacuum analyze accounts")
	}
	study := filepath.Join(t.TempDir(), "study.yaml")
	os.WriteFile(study, fmt.Appendf(nil, `
configs:
  - name: pg17
    dsn: %s
    start: %s
    stop: %s
    settings: {work_mem: 8MB, checkpoint_timeout: 10min}
  - name: pg18
    dsn: %s
    start: %s
    stop: %s
    client: psql
    psql: %s -X
    settings: {io_method: sync, checkpoint_timeout: 10min}
tests:
  - name: scan
    set: {enable_indexscan: off, enable_bitmapscan: off}
    sql: select count(*), sum(bid) from accounts
  - name: vacuum
    slice: {first: 1, size: 10000, last: 200000}
    before: update accounts set bid = bid + 1 where aid between {{.Slice.Lo}} and {{.Slice.Hi}}
    sql: vacuum (verbose) accounts
protocol:
  rounds: 2
  cold: [stop-all, start, wait-ready 1m]
`, pg17.DSN(), pg17.StartCmd(), pg17.StopCmd(), pg18.DSN(), pg18.StartCmd(), pg18.StopCmd(), pg18.Psql()), 0o644)
	capture, report := filepath.Join(t.TempDir(), "capture"), filepath.Join(t.TempDir(), "report")
	if code, _, stderr := runInProcess("collect", study, "-o", capture, "--quiet"); code != 0 {
		t.Fatalf("collect: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runInProcess("report", capture, "-o", report); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(report, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/measured-real.md", measuredSection(t, string(md), pg18.Psql()))
}

// measuredSection is what of "How we measured" is the same on every
// machine: the configurations' and tests' lines and the relation sizes,
// with minor versions and psql's place replaced.
func measuredSection(t *testing.T, md, psql string) string {
	t.Helper()
	_, section, ok := strings.Cut(md, "## How we measured\n")
	if !ok {
		t.Fatalf("report.md has no How we measured:\n%s", md)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var keep []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "- pg1") || strings.HasPrefix(line, "- Test ") || strings.HasPrefix(line, "|") ||
			strings.HasPrefix(line, "- The disk figures") || strings.HasPrefix(line, "The relations") {
			keep = append(keep, line)
		}
	}
	out := strings.Join(keep, "\n") + "\n"
	out = strings.ReplaceAll(out, psql, "psql")
	out = regexp.MustCompile(`PostgreSQL\) (\d+)\.\d+[^`+"`"+`]*`).ReplaceAllString(out, "PostgreSQL) $1.x")
	return regexp.MustCompile(`PostgreSQL (\d+)\.\d+`).ReplaceAllString(out, "PostgreSQL $1.x")
}
