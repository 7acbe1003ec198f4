package collect_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// collectText collects a study given as text and opens its capture; the
// error is collect's (ErrRunsFailed when a run failed).
func collectText(t *testing.T, text string) (*samples.Reader, error) {
	t.Helper()
	return collectTextWith(t, text, collect.Options{})
}

// collectTextWith is collectText with options (Out and ToolVersion set).
func collectTextWith(t *testing.T, text string, opt collect.Options) (*samples.Reader, error) {
	t.Helper()
	s, err := collect.ParseStudy("study.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	opt.Out, opt.ToolVersion = out, "test"
	_, cerr := collect.Collect(context.Background(), s, opt)
	r, err := samples.Open(out)
	if err != nil {
		t.Fatalf("open the capture (collect: %v): %v", cerr, err)
	}
	return r, cerr
}

// deviceReads is what a run's device read between its before and after
// diskstats snapshots: read requests completed and bytes (sectors x 512).
func deviceReads(t *testing.T, run samples.Run, disk []samples.Diskstats) (reads, bytes float64) {
	t.Helper()
	field := func(text string) (r, sectors float64) {
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) >= 14 && f[2] == run.Devices {
				r, _ = strconv.ParseFloat(f[3], 64)
				sectors, _ = strconv.ParseFloat(f[5], 64)
				return r, sectors
			}
		}
		t.Fatalf("run %d: no diskstats line for %s", run.RunID, run.Devices)
		return 0, 0
	}
	var before, after *samples.Diskstats
	for i, d := range disk {
		if d.RunID == run.RunID && d.Phase == "before" {
			before = &disk[i]
		}
		if d.RunID == run.RunID && d.Phase == "after" {
			after = &disk[i]
		}
	}
	if before == nil || after == nil {
		t.Fatalf("run %d: no before and after diskstats", run.RunID)
	}
	r0, s0 := field(before.Text)
	r1, s1 := field(after.Text)
	return r1 - r0, (s1 - s0) * 512
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// psqlOnDisk copies psql and the libraries it loads (but the C
// library's own) into dir, and returns the command line that runs that
// copy: a psql whose cold start reads its binary and libraries from
// dir's device, as Debian's psql does from a root disk that also holds
// the data.
func psqlOnDisk(t *testing.T, psql, dir string) string {
	t.Helper()
	out, err := exec.Command("ldd", psql).Output()
	if err != nil {
		pgtest.Missing(t, "ldd %s: %v", psql, err)
	}
	lib := filepath.Join(dir, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	cp := func(src, dst string) {
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.WriteFile(dst, b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[1] == "=>" && !strings.HasPrefix(f[0], "libc.") && !strings.HasPrefix(f[0], "libm.") {
			cp(f[2], filepath.Join(lib, f[0]))
		}
	}
	cp(psql, filepath.Join(dir, "psql"))
	return fmt.Sprintf("env LD_LIBRARY_PATH=%s %s", lib, filepath.Join(dir, "psql"))
}

// TestOneWindowForBothClients: the same cold statements through pgx and
// through psql, on one server on a disk of its own that also holds the
// psql that runs them, read the same from the device, because both
// clients' windows bracket the statement alone (psql's start, its
// libraries, its connection and settings are outside it). Before psql's
// window was moved inside its session, this test's cold select 1 read
// nothing through pgx and 9.5 MB in 61 KiB requests through psql, and its
// bitmap scan 7.1 MB in 99.5 KiB requests through pgx, 16.7 MB in 73.1 KiB
// requests through psql.
//
// PostgreSQL 18's io_method=worker merges its reads differently run to
// run, through either client (its average request ranged 86-101 KiB over
// 8 rounds through both): there the medians are compared within 10% over
// 5 rounds; with sync I/O (17, and 18 with io_method=sync, the issue's
// pg18-sync) within 5% over 3 (the old window's gap was 26%). The two
// clients' ranges, widened by the same tolerance, must meet in both
// cases (the old window's were apart by far more).
func TestOneWindowForBothClients(t *testing.T) {
	for _, tc := range []struct {
		name      string
		major     int
		ioMethod  string
		rounds    int
		tolerance float64
	}{
		{"17", 17, "", 3, 0.05},
		{"18-sync", 18, "sync", 3, 0.05},
		{"18-worker", 18, "worker", 5, 0.10},
	} {
		t.Run(tc.name, func(t *testing.T) { oneWindow(t, tc.major, tc.ioMethod, tc.rounds, tc.tolerance) })
	}
}

func oneWindow(t *testing.T, major int, ioMethod string, rounds int, tolerance float64) {
	disk := pgtest.PrivateDisk(t, 256)
	settings := map[string]string{"autovacuum": "off"}
	if ioMethod != "" {
		settings["io_method"] = ioMethod
	}
	pg := pgtest.Start(t, major, pgtest.WithSettings(settings), pgtest.OnDisk(disk))
	loadData(t, pg)
	psql := psqlOnDisk(t, pg.Psql(), filepath.Join(disk.Dir, "client"))
	cfg := func(name, extra string) string {
		return fmt.Sprintf("  - name: %s\n    dsn: %s\n    start: %s\n    stop: %s\n%s", name, pg.DSN(), pg.StartCmd(), pg.StopCmd(), extra)
	}
	r, err := collectText(t, "configs:\n"+cfg("pgx", "")+cfg("psql", "    client: psql\n    psql: "+psql+" -X\n")+`
tests:
  - name: select1
    sql: select 1
  - name: bitmap
    set: {enable_seqscan: off, enable_indexscan: off, max_parallel_workers_per_gather: 0}
    sql: select count(*), sum(bid) from accounts where v < 100
    expect_plan: Bitmap Heap Scan
protocol:
  rounds: `+strconv.Itoa(rounds)+`
  cold: `+coldSteps()+`
  explain_analyze: true
disk:
  sample: 20ms
`)
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	disk6 := read[samples.Diskstats](t, r)
	plans := read[samples.Plan](t, r)
	outputs := read[samples.Output](t, r)
	bytes := map[string][]float64{} // test/client -> bytes read
	reqKiB := map[string][]float64{}
	for _, run := range runs {
		if run.Status != "ok" {
			t.Fatalf("run %d (%s, %s): %s: %s", run.RunID, run.Test, run.Client, run.Status, run.Error)
		}
		reads, b := deviceReads(t, run, disk6)
		key := run.Test + "/" + run.Client
		bytes[key] = append(bytes[key], b)
		if reads > 0 {
			reqKiB[key] = append(reqKiB[key], b/reads/1024)
		}
		checkWindowRun(t, run, plans, outputs)
	}
	for _, test := range []string{"select1", "bitmap"} {
		t.Logf("PostgreSQL %d %s, %s: bytes read pgx %v, psql %v; average request KiB pgx %.1f, psql %.1f", major, ioMethod, test,
			bytes[test+"/pgx"], bytes[test+"/psql"], reqKiB[test+"/pgx"], reqKiB[test+"/psql"])
	}
	// A cold select 1 reads what the statement needs of the catalogs,
	// the same through both clients: within a page (8 KiB). Here both
	// read nothing.
	if a, b := median(bytes["select1/pgx"]), median(bytes["select1/psql"]); a-b > 8<<10 || b-a > 8<<10 {
		t.Errorf("cold select 1: median %.0f bytes through pgx, %.0f through psql", a, b)
	}
	// The bitmap scan: the same bytes within 5%, the same average request
	// within the tolerance (here, on 17: 96.6-99.5 KiB through pgx,
	// 93.2-99.5 through psql; on 18 with sync 100.6 and 100.2-100.6; with
	// worker 93.4-98.7 and 94.7-102.1, once 91.4-93.9 and 94.6-100.1:
	// five runs each lie apart by chance about once in 126, so the
	// ranges must meet once widened by the tolerance).
	if a, b := median(bytes["bitmap/pgx"]), median(bytes["bitmap/psql"]); a < 1<<20 || b < 0.95*a || b > 1.05*a {
		t.Errorf("cold bitmap scan: median %.0f bytes through pgx, %.0f through psql", a, b)
	}
	x, y := reqKiB["bitmap/pgx"], reqKiB["bitmap/psql"]
	widen := 1 + tolerance
	if a, b := median(x), median(y); b < (1-tolerance)*a || b > (1+tolerance)*a || slices.Min(x) > widen*slices.Max(y) || slices.Min(y) > widen*slices.Max(x) {
		t.Errorf("cold bitmap scan: average request %.1f KiB through pgx (%.1f-%.1f), %.1f through psql (%.1f-%.1f), want within %.0f%%",
			a, slices.Min(x), slices.Max(x), b, slices.Min(y), slices.Max(y), 100*tolerance)
	}
}

// checkWindowRun: the run's window is the statement's (its edges around
// the statement's time), psql's backend PID is the one it printed, and
// the plan as executed is recorded for both clients.
func checkWindowRun(t *testing.T, run samples.Run, plans []samples.Plan, outputs []samples.Output) {
	t.Helper()
	if run.BackendPID == nil || *run.BackendPID <= 0 {
		t.Errorf("run %d (%s): backend PID %v", run.RunID, run.Client, run.BackendPID)
	}
	if !run.EndedAt.After(run.StartedAt) || run.EndedAt.Sub(run.StartedAt).Nanoseconds() < run.ElapsedNs/2 {
		t.Errorf("run %d (%s): window %s to %s, elapsed %d ns", run.RunID, run.Client, run.StartedAt, run.EndedAt, run.ElapsedNs)
	}
	if run.Client == "psql" {
		stdout := outputText(outputs, run.RunID, "stdout")
		for _, m := range []string{"pgstudy:backend ", "pgstudy:before ", "pgstudy:after "} {
			if !strings.Contains("\n"+stdout, "\n"+m) {
				t.Errorf("run %d: no %q marker in psql's output:\n%s", run.RunID, m, stdout)
			}
		}
		if !strings.Contains(stdout, " "+strconv.Itoa(int(*run.BackendPID))+"\n") {
			t.Errorf("run %d: backend PID %d is not the one psql printed:\n%s", run.RunID, *run.BackendPID, stdout)
		}
	}
	if run.Test != "bitmap" {
		return
	}
	for _, p := range plans {
		if p.RunID == run.RunID && p.Kind == "explain-analyze" {
			if p.Error != "" || !strings.Contains(p.Text, `"Bitmap Heap Scan"`) || !strings.Contains(p.Text, `"Actual Rows"`) ||
				!strings.Contains(p.Text, `"Shared Hit Blocks"`) {
				t.Errorf("run %d (%s): explain-analyze plan (error %q):\n%s", run.RunID, run.Client, p.Error, p.Text)
			}
			return
		}
	}
	t.Errorf("run %d (%s): no explain-analyze plan", run.RunID, run.Client)
}

// TestPsqlWindowFailures: psql printing a huge result does not hang the
// collector; psql stopping before its statement (a setting refused, a
// command that is not psql) fails the run with psql's reason; a statement
// past its timeout is cancelled on the server.
func TestPsqlWindowFailures(t *testing.T) {
	pg := pgtest.Start(t, 15)
	psql := pg.Psql() + " -X"
	r, err := collectText(t, fmt.Sprintf(`
configs:
  - {name: psql, dsn: %[1]q, client: psql, psql: %[2]q}
  - {name: notpsql, dsn: %[1]q, client: psql, psql: "false"}
tests:
  - {name: large, sql: "select g, repeat('x', 40) as filler from generate_series(1, 200000) g", timeout: 2m}
  - {name: badset, set: {work_mem: lots}, sql: select 1}
  - {name: slow, sql: select pg_sleep(30), timeout: 500ms}
protocol: {rounds: 1, explain: false}
`, pg.DSN(), psql))
	if !errors.Is(err, collect.ErrRunsFailed) {
		t.Fatalf("collect: %v", err)
	}
	outputs := read[samples.Output](t, r)
	got := map[string]samples.Run{}
	for _, run := range read[samples.Run](t, r) {
		got[run.Test+"/"+run.Config] = run
	}
	large := got["large/psql"]
	if large.Status != "ok" || !strings.Contains(outputText(outputs, large.RunID, "stdout"), "(200000 rows)\n") {
		t.Errorf("large result: %s %s", large.Status, large.Error)
	}
	if run := got["badset/psql"]; run.Status != "failed" || !strings.HasPrefix(run.Error, "psql stopped before the statement (exit status 3)") ||
		!strings.Contains(run.Error, `invalid value for parameter "work_mem": "lots"`) {
		t.Errorf("a setting psql's server refused: %s: %s", run.Status, run.Error)
	}
	for _, test := range []string{"large", "badset", "slow"} {
		if run := got[test+"/notpsql"]; run.Status != "failed" || run.Error != "psql stopped before the statement (exit status 1)" {
			t.Errorf("%s through a command that is not psql: %s: %q", test, run.Status, run.Error)
		}
	}
	if run := got["slow/psql"]; run.Status != "timeout" || !strings.HasPrefix(run.Error, "the statement ran past its timeout of 500ms") {
		t.Errorf("slow: %s: %s", run.Status, run.Error)
	}
	if n := pg.SQL(t, "select count(*) from pg_stat_activity where query like 'select pg_sleep(30)%' and state = 'active'"); n != "0" {
		t.Errorf("the timed-out statement still runs on the server (%s sessions)", n)
	}
}
