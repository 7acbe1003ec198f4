package collect_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// TestCgroupModes collects one run of each way of finding the server's
// cgroup, on real servers: create (pgstudy makes a blkio group, the start
// step joins it, the group is gone after the collect), auto on a server
// in the root group (no counters, and why), a group named by the study,
// and off (nothing).
func TestCgroupModes(t *testing.T) {
	if os.Geteuid() != 0 {
		pgtest.Missing(t, "cgroup: create needs root")
	}
	root := "/sys/fs/cgroup/blkio"
	if _, err := os.Stat(filepath.Join(root, "blkio.throttle.io_service_bytes")); err != nil {
		pgtest.Missing(t, "this test reads cgroup v1 blkio groups, and %s has none: %v", root, err)
	}
	made := pgtest.Start(t, 17)
	other := pgtest.Start(t, 18)
	path := writeStudy(t, fmt.Sprintf(`configs:
  - {name: made, dsn: "%s", start: "%s", stop: "%s", cgroup: create}
  - {name: auto, dsn: "%s", start: "%s", stop: "%s"}
  - {name: named, dsn: "%s", cgroup: %s}
  - {name: none, dsn: "%s", cgroup: off}
tests:
  - {name: one, sql: select count(*) from pg_class}
protocol: {rounds: 1}
`, made.DSN(), made.StartCmd(), made.StopCmd(), other.DSN(), other.StartCmd(), other.StopCmd(), other.DSN(), root, other.DSN()))
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	// Down, so that the collect starts it with its start step, in the
	// group it makes.
	if out, err := exec.Command("sh", "-c", made.StopCmd()).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v %s", err, out)
	}
	out := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	group := filepath.Join(root, "pgstudy-made")
	if _, err := os.Stat(group); !os.IsNotExist(err) {
		t.Errorf("the group pgstudy made is still there after the collect: %v", err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	checkCgroupRows(t, r, root, group)
}

// checkCgroupRows checks the probe rows of TestCgroupModes's runs, and
// that the start step of create joined the group.
func checkCgroupRows(t *testing.T, r *samples.Reader, root, group string) {
	t.Helper()
	byConfig := map[int64]string{}
	for _, run := range read[samples.Run](t, r) {
		byConfig[run.RunID] = run.Config
		if run.Status != "ok" {
			t.Errorf("run %d (%s): %s %s", run.RunID, run.Config, run.Status, run.Error)
		}
	}
	rows := map[string][]string{} // config: "phase name command error"
	for _, p := range read[samples.Probe](t, r) {
		if strings.HasPrefix(p.Name, "cgroup ") {
			rows[byConfig[p.RunID]] = append(rows[byConfig[p.RunID]], strings.Join([]string{p.Phase, p.Name, p.Command, p.Error}, "|"))
			if p.Name == collect.CgroupProbeServer && byConfig[p.RunID] == "made" && !strings.Contains(p.Stdout, "blkio:/pgstudy-made") {
				t.Errorf("made: the postmaster's /proc/PID/cgroup does not put it in the group pgstudy made: %s", p.Stdout)
			}
		}
	}
	checkRows := func(config string, want ...string) {
		t.Helper()
		got := rows[config]
		if len(got) != len(want) {
			t.Errorf("%s: rows\n%s\nwant %d", config, strings.Join(got, "\n"), len(want))
			return
		}
		for i, w := range want {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: row %d\n got %s\nwant %s...", config, i, got[i], w)
			}
		}
	}
	bytes, ios := "blkio.throttle.io_service_bytes_recursive", "blkio.throttle.io_serviced_recursive"
	var want []string
	for _, phase := range []string{"before", "after"} {
		want = append(want, phase+"|cgroup of the server|read /proc/", phase+"|cgroup blkio.throttle.io_service_bytes|"+filepath.Join(group, bytes)+"|",
			phase+"|cgroup blkio.throttle.io_serviced|"+filepath.Join(group, ios)+"|")
	}
	checkRows("made", want...)
	checkRows("auto", "before|cgroup of the server|read /proc/", "before|cgroup io||the server's I/O is not told apart from the device's: the server runs in the root cgroup",
		"after|cgroup of the server|read /proc/", "after|cgroup io||the server's I/O is not told apart from the device's: the server runs in the root cgroup")
	checkRows("named", "before|cgroup blkio.throttle.io_service_bytes|"+filepath.Join(root, bytes)+"|", "before|cgroup blkio.throttle.io_serviced|",
		"after|cgroup blkio.throttle.io_service_bytes|", "after|cgroup blkio.throttle.io_serviced|")
	checkRows("none")
	for _, st := range read[samples.Step](t, r) {
		if byConfig[st.RunID] == "made" && st.Name == "start" && !strings.HasPrefix(st.Detail, "echo $$ > '"+group+"/cgroup.procs' || exit 1\n") {
			t.Errorf("made: the start step %q does not join the group", st.Detail)
		}
	}
}

// TestCgroupPreflight: a named group that does not exist, or that has no
// I/O counters, stops the collect before its first run, naming it.
func TestCgroupPreflight(t *testing.T) {
	path := writeStudy(t, `configs:
  - {name: gone, dsn: "postgres://127.0.0.1:1/db", cgroup: /sys/fs/cgroup/blkio/pgstudy-no-such-group}
  - {name: plain, dsn: "postgres://127.0.0.1:1/db", cgroup: /proc}
tests: [{name: one, sql: select 1}]
`)
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	_, err = collect.Collect(context.Background(), s, collect.Options{Out: out})
	if err == nil || !strings.Contains(err.Error(), "configuration gone: cgroup: stat /sys/fs/cgroup/blkio/pgstudy-no-such-group: no such file or directory") ||
		!strings.Contains(err.Error(), "configuration plain: the cgroup /proc has neither io.stat (cgroup v2 with the io controller) nor blkio.throttle.io_service_bytes (cgroup v1 blkio)") {
		t.Errorf("collect: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a capture was made: %v", err)
	}
}

// TestCgroupThroughput: a pgbench run of a server started in the group
// pgstudy made has the group's counters before and after it.
func TestCgroupThroughput(t *testing.T) {
	if os.Geteuid() != 0 {
		pgtest.Missing(t, "cgroup: create needs root")
	}
	pg := pgtest.Start(t, 17)
	if out, err := exec.Command(pg.Pgbench(), "-i", "-s", "1", "-q", pg.DSN()).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	if out, err := exec.Command("sh", "-c", pg.StopCmd()).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v %s", err, out)
	}
	path := writeStudy(t, fmt.Sprintf(`configs:
  - {name: tp, dsn: "%s", start: "%s", stop: "%s", cgroup: create}
tests:
  - {name: select-only, pgbench: -S, duration: 1s}
protocol: {rounds: 1}
`, pg.DSN(), pg.StartCmd(), pg.StopCmd()))
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range read[samples.Probe](t, r) {
		if strings.HasPrefix(p.Name, "cgroup blkio") && strings.Contains(p.Command, "/pgstudy-tp/") && p.Error == "" && strings.Contains(p.Stdout, "Total") {
			got = append(got, p.Phase)
		}
	}
	if strings.Join(got, ",") != "before,before,after,after" {
		t.Errorf("cgroup rows of the throughput run: %v", got)
	}
}

// TestCgroupCreateLeftRunning: a server left running in the group an
// earlier session made (a collect stopped, then resumed) is found in it,
// and the group is removed at the end.
func TestCgroupCreateLeftRunning(t *testing.T) {
	if os.Geteuid() != 0 {
		pgtest.Missing(t, "cgroup: create needs root")
	}
	group := "/sys/fs/cgroup/blkio/pgstudy-left"
	if _, err := os.Stat("/sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes"); err != nil {
		pgtest.Missing(t, "this test reads cgroup v1 blkio groups: %v", err)
	}
	pg := pgtest.Start(t, 17)
	if out, err := exec.Command("sh", "-c", pg.StopCmd()).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v %s", err, out)
	}
	if err := os.Mkdir(group, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(group) })
	if out, err := exec.Command("sh", "-c", "echo $$ > "+group+"/cgroup.procs && "+pg.StartCmd()).CombinedOutput(); err != nil {
		t.Fatalf("start in the group: %v %s", err, out)
	}
	path := writeStudy(t, fmt.Sprintf(`configs:
  - {name: left, dsn: "%s", start: "%s", stop: "%s", cgroup: create}
tests: [{name: one, sql: select 1}]
protocol: {rounds: 1}
`, pg.DSN(), pg.StartCmd(), pg.StopCmd()))
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range read[samples.Probe](t, r) {
		if strings.HasPrefix(p.Name, "cgroup ") && p.Name != collect.CgroupProbeServer {
			got = append(got, p.Phase+" "+p.Command+p.Error)
		}
	}
	if len(got) != 4 || !strings.HasPrefix(got[0], "before "+group+"/blkio.throttle.io_service_bytes") {
		t.Errorf("cgroup rows: %q", got)
	}
	if _, err := os.Stat(group); !os.IsNotExist(err) {
		t.Errorf("the group is still there: %v", err)
	}
}

// TestCgroupPsql: a psql run has the counters of the group pgstudy made,
// read in its window, before and after its statement.
func TestCgroupPsql(t *testing.T) {
	if os.Geteuid() != 0 {
		pgtest.Missing(t, "cgroup: create needs root")
	}
	pg := pgtest.Start(t, 17)
	if out, err := exec.Command("sh", "-c", pg.StopCmd()).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v %s", err, out)
	}
	path := writeStudy(t, fmt.Sprintf(`configs:
  - name: p
    dsn: "%s"
    start: "%s"
    stop: "%s"
    cgroup: create
    client: psql
    psql: "%s"
tests: [{name: one, sql: select count(*) from pg_class}]
protocol: {rounds: 1}
`, pg.DSN(), pg.StartCmd(), pg.StopCmd(), pg.Psql()))
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range read[samples.Probe](t, r) {
		if strings.HasPrefix(p.Name, "cgroup blkio") && strings.Contains(p.Command, "/pgstudy-p/") && p.Error == "" && strings.Contains(p.Stdout, "Total") {
			got = append(got, p.Phase)
		}
	}
	if strings.Join(got, ",") != "before,before,after,after" {
		t.Errorf("cgroup rows of the psql run: %v", got)
	}
}
