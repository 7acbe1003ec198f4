package collect_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// loadData makes a table whose rows matching v < 100 sit in runs of
// neighbouring pages, with an index on v: small, but with the shape of the
// seed study's data.
func loadData(t *testing.T, c *pgtest.Cluster) {
	t.Helper()
	c.SQL(t, `create table accounts (aid int primary key, bid int, v int, filler text);
insert into accounts select g, g % 10, (g / 500) % 1000, repeat('x', 80) from generate_series(1, 200000) g;
create index on accounts (v);`)
	c.SQL(t, "vacuum analyze accounts")
	c.SQL(t, "checkpoint")
}

// coldSteps is the seed's protocol, with evict where this host does not
// allow drop-caches.
func coldSteps() string {
	if collect.CanDropCaches() == nil {
		return "[stop-all, drop-caches, start, wait-ready 1m]"
	}
	return "[stop-all, evict, start, wait-ready 1m]"
}

func writeStudy(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCollectEndToEnd(t *testing.T) {
	pg17 := pgtest.Start(t, 17)
	pg18 := pgtest.Start(t, 18)
	loadData(t, pg17)
	loadData(t, pg18)

	study := endToEndStudy(t, pg17, pg18)
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	if sum.Ran != 12 || sum.Failed != 0 {
		t.Fatalf("summary: %+v", sum)
	}

	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	if len(runs) != 12 {
		t.Fatalf("got %d runs, want 2 rounds x 3 tests x 2 configurations = 12", len(runs))
	}
	checkRotation(t, runs)
	servers, settings := checkServers(t, r)
	statements := read[samples.Statement](t, r)
	notices := read[samples.Notice](t, r)
	outputs := read[samples.Output](t, r)
	plans := read[samples.Plan](t, r)
	disk := read[samples.Diskstats](t, r)
	steps := read[samples.Step](t, r)
	for _, run := range runs {
		checkRunOutputs(t, run, statements, notices, outputs, plans)
		if run.WALPosBefore == nil || run.WALPosAfter == nil || *run.WALPosAfter < *run.WALPosBefore {
			t.Errorf("run %d: WAL positions %v %v", run.RunID, run.WALPosBefore, run.WALPosAfter)
		}
		if run.Test == "vacuum" && *run.WALPosAfter == *run.WALPosBefore {
			t.Errorf("run %d: vacuum wrote no WAL", run.RunID)
		}
		// The insert position is read with the write position, and is
		// never behind it.
		if run.WALInsertPosBefore == nil || run.WALInsertPosAfter == nil || run.WALInsertLSNAfter == nil ||
			*run.WALInsertPosBefore < *run.WALPosBefore || *run.WALInsertPosAfter < *run.WALPosAfter {
			t.Errorf("run %d: WAL insert positions %v %v, write positions %d %d", run.RunID,
				run.WALInsertPosBefore, run.WALInsertPosAfter, *run.WALPosBefore, *run.WALPosAfter)
		}
		checkDiskstats(t, run, disk)
		checkCold(t, run, steps)
	}

	// DuckDB reads the same capture and counts the same rows.
	counts := map[string]int{
		"runs": len(runs), "servers": len(servers), "settings": len(settings), "statements": len(statements),
		"notices": len(notices), "outputs": len(outputs), "plans": len(plans), "diskstats": len(disk), "steps": len(steps),
		"stats": len(read[samples.Stat](t, r)), "host": len(read[samples.Host](t, r)), "capture": len(read[samples.Capture](t, r)),
	}
	duck := pgtest.DuckDBCounts(t, out, slices.Collect(maps.Keys(counts))...)
	for table, n := range counts {
		if duck[table] != n {
			t.Errorf("table %s: DuckDB counts %d rows, the Reader %d", table, duck[table], n)
		}
	}
}

// endToEndStudy is a study of three tests on 17 (pgx) and 18 (psql),
// each server stopped and started by the cold steps.
func endToEndStudy(t *testing.T, pg17, pg18 *pgtest.Cluster) string {
	t.Helper()
	return writeStudy(t, fmt.Sprintf(`
configs:
  - name: pg17
    dsn: %s
    start: %s
    stop: %s
  - name: pg18
    dsn: %s
    start: %s
    stop: %s
    client: psql
    psql: %s -X
tests:
  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off}
    sql: select count(*), sum(bid) from accounts
    expect_plan: Seq Scan
  - name: bitmap
    set: {enable_seqscan: off, enable_indexscan: off}
    sql: select count(*), sum(bid) from accounts where v < 100
    expect_plan: Bitmap Heap Scan
  - name: vacuum
    slice: {first: 1, size: 10000, last: 200000}
    before: update accounts set bid = bid + 1 where aid between {{.Slice.Lo}} and {{.Slice.Hi}}
    sql: vacuum (verbose) accounts
protocol:
  rounds: 2
  cold: %s
  explain_analyze: true
disk:
  sample: 20ms
`, pg17.DSN(), pg17.StartCmd(), pg17.StopCmd(), pg18.DSN(), pg18.StartCmd(), pg18.StopCmd(), pg18.Psql(), coldSteps()))

}

// checkRotation: pg17 goes first in round 1, pg18 in round 2, every run ok.
func checkRotation(t *testing.T, runs []samples.Run) {
	t.Helper()
	var order []string
	for _, run := range runs {
		if run.Status != "ok" {
			t.Errorf("run %d (%s on %s) %s: %s", run.RunID, run.Test, run.Config, run.Status, run.Error)
		}
		order = append(order, fmt.Sprintf("%d:%d:%s:%s", run.Round, run.Position, run.Test, run.Config))
	}
	want := []string{
		"1:1:seqscan:pg17", "1:2:seqscan:pg18", "1:1:bitmap:pg17", "1:2:bitmap:pg18", "1:1:vacuum:pg17", "1:2:vacuum:pg18",
		"2:1:seqscan:pg18", "2:2:seqscan:pg17", "2:1:bitmap:pg18", "2:2:bitmap:pg17", "2:1:vacuum:pg18", "2:2:vacuum:pg17",
	}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("order:\n got %v\nwant %v", order, want)
	}

}

// checkServers: the version of each configuration, in each round, and its
// data_checksums setting.
func checkServers(t *testing.T, r *samples.Reader) ([]samples.Server, []samples.Setting) {
	t.Helper()
	servers := read[samples.Server](t, r)
	if len(servers) != 4 {
		t.Errorf("got %d server rows, want one per configuration and round (4)", len(servers))
	}
	for _, srv := range servers {
		major := map[string]int32{"pg17": 17, "pg18": 18}[srv.Config]
		if srv.ServerVersionNum/10000 != major || !strings.Contains(srv.Version, fmt.Sprintf("PostgreSQL %d.", major)) {
			t.Errorf("%s round %d: version %d %q", srv.Config, srv.Round, srv.ServerVersionNum, srv.Version)
		}
		if srv.Device == "" {
			t.Errorf("%s: the data directory's device %s was not found", srv.Config, srv.DataDirectory)
		}
	}
	settings := read[samples.Setting](t, r)
	bySetting := map[string]int{}
	for _, st := range settings {
		if st.Name == "data_checksums" {
			bySetting[st.Config+"="+st.Setting]++
		}
	}
	if bySetting["pg17=off"] != 2 || bySetting["pg18=on"] != 2 {
		t.Errorf("data_checksums rows per configuration and round: %v, want pg17=off twice and pg18=on twice", bySetting)
	}

	return servers, settings
}

// checkRunOutputs checks what one run recorded of the server's output:
// the vacuum's WAL usage as the server sent it (notices on pgx, psql's
// stderr on psql), psql's Time: line, and the plans of the statement.
func checkRunOutputs(t *testing.T, run samples.Run, statements []samples.Statement, notices []samples.Notice,
	outputs []samples.Output, plans []samples.Plan) {
	t.Helper()
	// The vacuum's WAL usage, as the server sent it: notices on pgx,
	// psql's stderr on psql.
	if run.Test == "vacuum" {
		var text string
		if run.Client == "pgx" {
			for _, n := range notices {
				if n.RunID == run.RunID && n.Severity == "INFO" && timedStatement(statements, run.RunID) == n.Statement {
					text += n.Message + "\n" + n.Detail
				}
			}
		} else {
			text = outputText(outputs, run.RunID, "stderr")
		}
		if !strings.Contains(text, "WAL usage:") {
			t.Errorf("run %d (vacuum on %s, %s): no WAL usage line in what the server sent:\n%s", run.RunID, run.Config, run.Client, text)
		}
	}
	if run.Client == "psql" {
		stdout := outputText(outputs, run.RunID, "stdout")
		if !strings.Contains(stdout, "Time: ") {
			t.Errorf("run %d: psql printed no Time: line:\n%s", run.RunID, stdout)
		}
	}
	// A plan per run whose statement has one, taken before the cold
	// steps, and the analysed one after the run, through both clients.
	if run.Test != "vacuum" {
		wantNode := map[string]string{"seqscan": `"Seq Scan"`, "bitmap": `"Bitmap Heap Scan"`}[run.Test]
		kinds := map[string]bool{}
		for _, p := range plans {
			if p.RunID == run.RunID {
				kinds[p.Kind] = true
				if !strings.Contains(p.Text, wantNode) || p.Error != "" {
					t.Errorf("run %d %s plan has no %s node (error %q):\n%s", run.RunID, p.Kind, wantNode, p.Error, p.Text)
				}
			}
		}
		if !kinds["explain"] || !kinds["explain-analyze"] {
			t.Errorf("run %d (%s): plans %v", run.RunID, run.Client, kinds)
		}
	}
}

func read[T any](t *testing.T, r *samples.Reader) []T {
	t.Helper()
	rows, err := samples.Read[T](r)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func timedStatement(st []samples.Statement, run int64) int32 {
	for _, s := range st {
		if s.RunID == run && s.Phase == "timed" {
			return s.Seq
		}
	}
	return -1
}

func outputText(out []samples.Output, run int64, stream string) string {
	var b strings.Builder
	for _, o := range out {
		if o.RunID == run && o.Stream == stream {
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

// checkDiskstats asserts a snapshot before and after the run, and that the
// counters of the run's device never go backwards across its snapshots.
func checkDiskstats(t *testing.T, run samples.Run, disk []samples.Diskstats) {
	t.Helper()
	if run.Devices == "" || strings.Contains(run.Devices, ",") {
		t.Errorf("run %d: devices %q, want the one device holding the data directory", run.RunID, run.Devices)
		return
	}
	phases := map[string]int{}
	var prev []uint64
	for _, d := range disk {
		if d.RunID != run.RunID {
			continue
		}
		phases[d.Phase]++
		var cur []uint64
		for _, line := range strings.Split(d.Text, "\n") {
			f := strings.Fields(line)
			if len(f) >= 14 && f[2] == run.Devices {
				for _, v := range f[3:] {
					n, _ := strconv.ParseUint(v, 10, 64)
					cur = append(cur, n)
				}
			}
		}
		if cur == nil {
			t.Errorf("run %d: diskstats %s snapshot has no line for %s", run.RunID, d.Phase, run.Devices)
			return
		}
		for i := range prev {
			// Field 9 (index 8 here) is the I/Os in flight, a gauge.
			if i != 8 && i < len(cur) && cur[i] < prev[i] {
				t.Errorf("run %d: %s counter %d went from %d to %d", run.RunID, run.Devices, i+1, prev[i], cur[i])
			}
		}
		prev = cur
	}
	if phases["before"] != 1 || phases["after"] != 1 {
		t.Errorf("run %d: diskstats snapshots %v, want one before and one after", run.RunID, phases)
	}
}

func checkCold(t *testing.T, run samples.Run, steps []samples.Step) {
	t.Helper()
	var cold []string
	for _, s := range steps {
		if s.RunID == run.RunID && s.Phase == "cold" {
			if s.Error != "" {
				t.Errorf("run %d: cold step %s failed: %s", run.RunID, s.Name, s.Error)
			}
			if len(cold) == 0 || cold[len(cold)-1] != s.Name {
				cold = append(cold, s.Name)
			}
		}
	}
	drop := "drop-caches"
	if collect.CanDropCaches() != nil {
		drop = "evict"
	}
	want := []string{"stop-all", drop, "start", "wait-ready"}
	// The ready check after the cold steps follows them.
	if !reflect.DeepEqual(cold, want) {
		t.Errorf("run %d: cold steps %v, want %v", run.RunID, cold, want)
	}
}

// TestConfigSettings: a setting a session may change is SET on the run's
// sessions; one that needs a restart is written with ALTER SYSTEM and the
// server restarted, here back and forth between two configurations that
// share one server.
func TestConfigSettings(t *testing.T) {
	pg := pgtest.Start(t, 18)
	study := writeStudy(t, fmt.Sprintf(`
configs:
  - name: worker
    dsn: %[1]s
    start: %[2]s
    stop: %[3]s
    settings: {io_method: worker, effective_io_concurrency: 32}
  - name: sync
    dsn: %[1]s
    start: %[2]s
    stop: %[3]s
    settings: {io_method: sync}
tests:
  - name: eic
    sql: select current_setting('effective_io_concurrency') as eic, current_setting('io_method') as m
protocol:
  rounds: 2
`, pg.DSN(), pg.StartCmd(), pg.StopCmd()))
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	outputs := read[samples.Output](t, r)
	for _, run := range runs {
		want := map[string]string{"worker": "32\tworker", "sync": "16\tsync"}[run.Config]
		if got := outputText(outputs, run.RunID, "result"); !strings.Contains(got, "\n"+want+"\n") {
			t.Errorf("run %d on %s: the timed session saw %q, want %q", run.RunID, run.Config, got, want)
		}
	}
	for _, st := range read[samples.Setting](t, r) {
		if st.Name == "io_method" && st.Setting != st.Config {
			t.Errorf("round %d, %s: pg_settings io_method = %s", st.Round, st.Config, st.Setting)
		}
	}
	restarts := 0
	for _, st := range read[samples.Step](t, r) {
		if st.Phase == "settings" && st.Name == "start" {
			restarts++
		}
	}
	// Order worker, sync; then sync, worker. The server starts with
	// worker, 18's default, so io_method changes twice: two restarts.
	if restarts != 2 {
		t.Errorf("%d restarts for settings, want 2", restarts)
	}
}

// TestFailuresAreRecorded: a statement past its timeout is cancelled on the
// server and recorded as such, a failing one with the server's error, and
// the study goes on; with on_failure: stop it ends at the first.
func TestFailuresAreRecorded(t *testing.T) {
	pg := pgtest.Start(t, 15)
	text := func(onFailure string) string {
		return fmt.Sprintf(`
configs:
  - {name: pg15, dsn: %q}
tests:
  - {name: slow, sql: select pg_sleep(30), timeout: 300ms}
  - {name: broken, sql: select * from no_such_table}
  - {name: fine, sql: select 1}
protocol: {rounds: 1, on_failure: %s}
`, pg.DSN(), onFailure)
	}
	s, err := collect.ParseStudy("study.yaml", []byte(text("continue")))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out})
	if !errors.Is(err, collect.ErrRunsFailed) || sum.Failed != 2 || sum.Ran != 3 {
		t.Fatalf("collect: %v, %+v", err, sum)
	}
	r, _ := samples.Open(out)
	runs := read[samples.Run](t, r)
	got := map[string]string{}
	for _, run := range runs {
		got[run.Test] = run.Status + ": " + run.Error
	}
	if !strings.HasPrefix(got["slow"], "timeout: the statement ran past its timeout of 300ms") ||
		!strings.Contains(got["broken"], `relation "no_such_table" does not exist`) || got["fine"] != "ok: " {
		t.Errorf("statuses: %q", got)
	}
	if n := pg.SQL(t, "select count(*) from pg_stat_activity where query like 'select pg_sleep(30)%' and state = 'active'"); n != "0" {
		t.Errorf("the timed-out statement still runs on the server (%s sessions)", n)
	}

	s, _ = collect.ParseStudy("study.yaml", []byte(text("stop")))
	sum, err = collect.Collect(context.Background(), s, collect.Options{Out: filepath.Join(t.TempDir(), "capture")})
	if !errors.Is(err, collect.ErrRunsFailed) || sum.Ran != 1 || !strings.Contains(err.Error(), "on_failure is stop") {
		t.Errorf("on_failure stop: %v, %+v", err, sum)
	}
}
