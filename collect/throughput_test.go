package collect_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/parse/pgbench"
	"github.com/pgstudy/pgstudy/parse/sysbench"
	"github.com/pgstudy/pgstudy/samples"
)

// TestThroughputRuns runs pgbench select-only and a sysbench point-select
// test against a real server: each run's client output parses, the warm-up
// is a step of its own, /proc/stat and diskstats bracket the measured run.
func TestThroughputRuns(t *testing.T) {
	pg := pgtest.Start(t, 17)
	if out, err := exec.Command(pg.Pgbench(), "-i", "-s", "2", "-q", pg.DSN()).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	cfg := pgConfig(t, pg)
	prepare := fmt.Sprintf("sysbench oltp_point_select --db-driver=pgsql --pgsql-host=%s --pgsql-port=%s --pgsql-user=%s --pgsql-db=%s --tables=1 --table-size=10000 prepare",
		cfg["host"], cfg["port"], cfg["user"], cfg["dbname"])
	if out, err := exec.Command("sh", "-c", prepare).CombinedOutput(); err != nil {
		t.Fatalf("sysbench prepare: %v\n%s", err, out)
	}
	study := writeStudy(t, fmt.Sprintf(`
configs:
  - name: a
    dsn: %[1]s
  - name: b
    dsn: %[1]s
    settings: {work_mem: 8MB}
tests:
  - name: select-only
    pgbench: -S
    clients: 2
    duration: 2s
    warmup: 1s
  - name: point-select
    group: point queries
    sysbench: oltp_point_select --tables=1 --table-size=10000
    duration: 2s
protocol:
  rounds: 1
disk:
  sample: 500ms
`, pg.DSN()))
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("collect: %v %+v", err, sum)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	outputs := read[samples.Output](t, r)
	probes := read[samples.Probe](t, r)
	steps := read[samples.Step](t, r)
	disk := read[samples.Diskstats](t, r)
	if len(runs) != 4 {
		t.Fatalf("%d runs, want 4", len(runs))
	}
	for _, run := range runs {
		checkClientOutput(t, run, outputs)
		checkBracketed(t, run, probes, disk, steps)
	}
	checkThroughputReport(t, out, runs, outputs, probes)
}

// checkClientOutput: each client's output parses, pgbench's progress on
// stderr and its summary on stdout.
func checkClientOutput(t *testing.T, run samples.Run, outputs []samples.Output) {
	t.Helper()
	text := outputText(outputs, run.RunID, "stdout")
	if run.Kind != "throughput" || run.Client != map[string]string{"select-only": "pgbench", "point-select": "sysbench"}[run.Test] {
		t.Errorf("run %d: kind %s, client %s", run.RunID, run.Kind, run.Client)
	}
	switch run.Client {
	case "pgbench":
		pr, _, err := pgbench.Parse(strings.NewReader(text), "run")
		// pgbench prints its progress on stderr, its summary on stdout.
		progress := outputText(outputs, run.RunID, "stderr")
		if err != nil || pr.Summary == nil || pr.Summary.TPS == nil || *pr.Summary.TPS <= 0 || !pgbenchProgress.MatchString(progress) {
			t.Errorf("run %d: pgbench output %v: %.300q", run.RunID, err, text)
		}
	case "sysbench":
		sr, _, err := sysbench.Parse(strings.NewReader(text), "run")
		if err != nil || sr.SQL == nil || sr.Events == 0 {
			t.Errorf("run %d: sysbench output %v: %.300q", run.RunID, err, text)
		}
	}
}

// checkBracketed: the measured run took about its duration, /proc/stat
// and diskstats bracket it, and the warm-up is a step of its own.
func checkBracketed(t *testing.T, run samples.Run, probes []samples.Probe, disk []samples.Diskstats, steps []samples.Step) {
	t.Helper()
	if secs := float64(run.ElapsedNs) / 1e9; secs < 2 || secs > 10 {
		t.Errorf("run %d: measured %.1f s, want about 2", run.RunID, secs)
	}
	var stat []string
	for _, p := range probes {
		if p.RunID == run.RunID && p.Name == "/proc/stat" && strings.HasPrefix(p.Stdout, "cpu ") {
			stat = append(stat, p.Phase)
		}
	}
	if strings.Join(stat, ",") != "before,after" {
		t.Errorf("run %d: /proc/stat %v", run.RunID, stat)
	}
	var phases []string
	for _, d := range disk {
		if d.RunID == run.RunID && d.Phase != "sample" {
			phases = append(phases, d.Phase)
		}
	}
	if strings.Join(phases, ",") != "before,after" {
		t.Errorf("run %d: diskstats %v", run.RunID, phases)
	}
	warm := 0
	for _, st := range steps {
		if st.RunID == run.RunID && st.Phase == "warmup" {
			warm++
		}
	}
	if want := map[string]int{"select-only": 1, "point-select": 0}[run.Test]; warm != want {
		t.Errorf("run %d (%s): %d warm-up steps, want %d", run.RunID, run.Test, warm, want)
	}
}

// pgConfig is the libpq parameters of a cluster's DSN.
func pgConfig(t *testing.T, c *pgtest.Cluster) map[string]string {
	t.Helper()
	out, err := exec.Command(c.Psql(), "-X", "-A", "-t", "-d", c.DSN(), "-c", "select inet_server_addr(), inet_server_port(), current_user, current_database()").Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "|")
	return map[string]string{"host": strings.TrimSuffix(f[0], "/32"), "port": f[1], "user": f[2], "dbname": f[3]}
}

// TestIoUringUnavailable: a configuration asking PostgreSQL 18 for
// io_method io_uring, on a server built without liburing, fails its runs
// with an error that says so, before the server is touched.
func TestIoUringUnavailable(t *testing.T) {
	pg := pgtest.Start(t, 18)
	if pg.SQL(t, "select 'io_uring' = any(enumvals) from pg_settings where name = 'io_method'") == "t" {
		t.Skip("this PostgreSQL 18 was built with liburing: nothing to refuse")
	}
	study := writeStudy(t, fmt.Sprintf(`
configs:
  - name: uring
    dsn: %s
    start: %s
    stop: %s
    settings: {io_method: io_uring}
tests:
  - name: one
    sql: select 1
protocol:
  rounds: 1
`, pg.DSN(), pg.StartCmd(), pg.StopCmd()))
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	sum, _ := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	if sum == nil || sum.Failed != 1 || len(runs) != 1 || !strings.Contains(runs[0].Error, `io_method cannot be "io_uring" on this server, which accepts sync, worker; io_uring needs a server built with liburing`) {
		t.Errorf("summary %+v, runs %+v", sum, runs)
	}
	if pg.SQL(t, "show io_method") != "worker" {
		t.Error("the server's io_method changed")
	}
}

// pgbenchProgress is a progress line of pgbench -P 1; its time is when
// the report was printed, a little late on a busy machine ("1.1 s").
var pgbenchProgress = regexp.MustCompile(`(?m)^progress: \d+\.\d s, `)
