package collect_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// spillStudy is a study of a statement of secs seconds on pg through pgx
// and psql, its diskstats and pg_aios (18) sampled every 20 ms.
func spillStudy(pg *pgtest.Cluster, secs float64, rounds int) string {
	return fmt.Sprintf(`
configs:
  - name: viapgx
    dsn: %[1]s
  - name: viapsql
    dsn: %[1]s
    client: psql
    psql: %[2]s -X
tests:
  - name: sleep
    sql: select pg_sleep(%[3]g)
protocol:
  rounds: %[4]d
  cold: []
  aios_sample: 20ms
disk:
  sample: 20ms
`, pg.DSN(), pg.Psql(), secs, rounds)
}

// rowGroups is the number of Parquet row groups of a part of dir.
func rowGroups(t *testing.T, dir, table, part string) int {
	t.Helper()
	f, err := file.OpenParquetFile(filepath.Join(dir, table, part), false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.NumRowGroups()
}

// TestSpilledRunIsTheRunCommittedWhole collects runs whose samplers' rows
// are written out at every sample (pgx and psql, PostgreSQL 18 with
// pg_aios sampled), then commits the same rows, read back, whole into a
// second capture with their facts computed in one pass: the two captures
// hold the same rows in every table, raw and facts. The spilled parts are
// of many row groups (they were written as the run went on), and each
// run's snapshots are numbered and ordered as one pass records them.
func TestSpilledRunIsTheRunCommittedWhole(t *testing.T) {
	collect.SpillEvery(t, 1)
	pg := pgtest.Start(t, 18)
	// Not compacted: the parts of each run, as the run wrote them, are
	// what is looked at.
	r, err := collectTextWith(t, spillStudy(pg, 0.5, 2), collect.Options{NoCompact: true})
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	disks, stats := read[samples.Diskstats](t, r), read[samples.Stat](t, r)
	if len(runs) != 4 {
		t.Fatalf("%d runs", len(runs))
	}
	for _, run := range runs {
		part := fmt.Sprintf("r%06d.parquet", run.RunID)
		for _, table := range []string{"diskstats", "stats", "disk_facts", "view_facts"} {
			if g := rowGroups(t, r.Dir(), table, part); g < 5 {
				t.Errorf("run %d: %s is of %d row groups: not spilled as the run went on", run.RunID, table, g)
			}
		}
		checkSnapshots(t, run, disks)
		checkAIOs(t, run, stats)
	}
	whole := commitWhole(t, r)
	for _, same := range []func(*testing.T, *samples.Reader, *samples.Reader){
		sameTable[samples.Run], sameTable[samples.Server], sameTable[samples.Setting], sameTable[samples.Step],
		sameTable[samples.Statement], sameTable[samples.Output], sameTable[samples.Notice], sameTable[samples.Plan],
		sameTable[samples.Diskstats], sameTable[samples.Stat], sameTable[samples.Probe], sameTable[samples.Attachment],
		sameTable[samples.RawBytes], sameTable[samples.DiskFact], sameTable[samples.DiskFigure], sameTable[samples.DiskInterval],
		sameTable[samples.IOFact], sameTable[samples.ViewFact],
		sameTable[samples.FactProblem], sameTable[samples.RunFact],
	} {
		same(t, r, whole)
	}
}

// checkSnapshots: a run's snapshots are numbered 1 to n, the before one
// first and the after one last, the samples between.
func checkSnapshots(t *testing.T, run samples.Run, disks []samples.Diskstats) {
	t.Helper()
	var seq int32
	var phases []string
	for _, d := range disks {
		if d.RunID == run.RunID {
			seq++
			if d.Seq != seq {
				t.Fatalf("run %d: snapshot %d numbered %d", run.RunID, seq, d.Seq)
			}
			phases = append(phases, d.Phase)
		}
	}
	if n := len(phases); n < 10 || phases[0] != "before" || phases[n-1] != "after" || strings.Count(strings.Join(phases, " "), "sample") != n-2 {
		t.Errorf("run %d: snapshots %v", run.RunID, phases)
	}
}

// checkAIOs: a run's pg_aios samples are numbered in order, before its
// statistics after the statement.
func checkAIOs(t *testing.T, run samples.Run, stats []samples.Stat) {
	t.Helper()
	var aios int32
	var after bool
	for _, s := range stats {
		switch {
		case s.RunID != run.RunID:
		case s.View == "pg_aios" && s.Phase == "sample":
			aios++
			if s.Row != aios || after {
				t.Fatalf("run %d: pg_aios row %d numbered %d, after the statistics after the statement: %v", run.RunID, aios, s.Row, after)
			}
		case s.Phase == "after":
			after = true
		}
	}
	if aios < 10 || !after {
		t.Errorf("run %d: %d pg_aios samples, statistics after: %v", run.RunID, aios, after)
	}
}

// commitWhole writes the runs of r into a new capture, each committed
// whole with its facts computed in one pass, as collect commits a run it
// did not spill.
func commitWhole(t *testing.T, r *samples.Reader) *samples.Reader {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "whole")
	w, err := samples.Create(dir, samples.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteSession(r.Captures()[0], read[samples.Host](t, r)); err != nil {
		t.Fatal(err)
	}
	servers, settings, steps := byRun[samples.Server](t, r), byRun[samples.Setting](t, r), byRun[samples.Step](t, r)
	statements, outputs, notices := byRun[samples.Statement](t, r), byRun[samples.Output](t, r), byRun[samples.Notice](t, r)
	plans, disks, stats := byRun[samples.Plan](t, r), byRun[samples.Diskstats](t, r), byRun[samples.Stat](t, r)
	probes, attachments := byRun[samples.Probe](t, r), byRun[samples.Attachment](t, r)
	for _, run := range read[samples.Run](t, r) {
		id := run.RunID
		b := &samples.Batch{Run: run, Servers: servers[id], Settings: settings[id], Steps: steps[id], Statements: statements[id],
			Outputs: outputs[id], Notices: notices[id], Plans: plans[id], Diskstats: disks[id], Stats: stats[id],
			Probes: probes[id], Attachments: attachments[id]}
		facts.AddTo(b)
		if err := w.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return whole
}

// byRun reads T's table of r by run.
func byRun[T any](t *testing.T, r *samples.Reader) map[int64][]T {
	t.Helper()
	out := map[int64][]T{}
	for _, row := range read[T](t, r) {
		id := reflect.ValueOf(row).FieldByName("RunID").Int()
		out[id] = append(out[id], row)
	}
	return out
}

// sameTable compares T's table in two captures row by row, but for their
// capture ids and for what run_facts says of the bytes of the raw parts
// (those written in many row groups differ from those written in one).
func sameTable[T any](t *testing.T, a, b *samples.Reader) {
	t.Helper()
	ra, rb := read[T](t, a), read[T](t, b)
	norm := func(rows []T) {
		for i := range rows {
			v := reflect.ValueOf(&rows[i]).Elem()
			v.FieldByName("CaptureID").SetString("")
			if f := v.FieldByName("RawParts"); f.IsValid() {
				f.SetString("")
			}
		}
	}
	norm(ra)
	norm(rb)
	name := reflect.TypeFor[T]().Name()
	if len(ra) != len(rb) || len(ra) == 0 && name != "RawBytes" && name != "Attachment" && name != "Notice" && name != "FactProblem" {
		t.Errorf("%s: %d rows spilled, %d committed whole", name, len(ra), len(rb))
		return
	}
	for i := range ra {
		if !reflect.DeepEqual(ra[i], rb[i]) {
			t.Errorf("%s, row %d:\n spilled %+v\n   whole %+v", name, i, ra[i], rb[i])
			return
		}
	}
}

// TestSpillHardStop: a collect stopped hard in the middle of a statement
// whose rows are being written out records nothing of that run, and
// leaves no file of it behind.
func TestSpillHardStop(t *testing.T) {
	collect.SpillEvery(t, 1)
	pg := pgtest.Start(t, 17)
	s, err := collect.ParseStudy("study.yaml", []byte(spillStudy(pg, 30, 1)))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitForTemp(t, out, time.Minute)
		cancel()
	}()
	sum, err := collect.Collect(ctx, s, collect.Options{Out: out, ToolVersion: "test"})
	if sum == nil || !sum.Interrupted || sum.Done != 0 {
		t.Fatalf("summary %+v, error %v", sum, err)
	}
	if runs := read[samples.Run](t, mustOpen(t, out)); len(runs) != 0 {
		t.Errorf("%d runs recorded", len(runs))
	}
	if left := notParts(t, out); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// waitForTemp waits until the capture in out has a part in progress in
// diskstats/ (a run's snapshots being written out).
func waitForTemp(t *testing.T, out string, limit time.Duration) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if temps, _ := filepath.Glob(filepath.Join(out, "diskstats", ".r*.tmp")); len(temps) > 0 {
			return true
		}
	}
	t.Errorf("no part in progress in %s after %s", out, limit)
	return false
}

// notParts lists the files of a capture that are not parts.
func notParts(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasPrefix(d.Name(), ".") || !strings.HasSuffix(d.Name(), ".parquet")) {
			out = append(out, p)
		}
		return err
	})
	return out
}

func mustOpen(t *testing.T, dir string) *samples.Reader {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSpillKill9: a collector killed with SIGKILL while it writes a long
// statement's snapshots out leaves parts in progress that no reader
// counts, and --resume removes them and makes the run again, whole.
func TestSpillKill9(t *testing.T) {
	if out := os.Getenv("PGSTUDY_SPILL_CHILD"); out != "" {
		collect.SpillEvery(t, 1)
		s, err := collect.LoadStudy(os.Getenv("PGSTUDY_SPILL_STUDY"))
		if err != nil {
			t.Fatal(err)
		}
		collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
		return
	}
	collect.SpillEvery(t, 1)
	pg := pgtest.Start(t, 17)
	out := filepath.Join(t.TempDir(), "capture")
	study := filepath.Join(t.TempDir(), "study.yaml")
	if err := os.WriteFile(study, []byte(spillStudy(pg, 3, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSpillKill9$")
	cmd.Env = append(os.Environ(), "PGSTUDY_SPILL_CHILD="+out, "PGSTUDY_SPILL_STUDY="+study)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed while its first run's statement (3 s) is being written out.
	ok := waitForTemp(t, out, time.Minute)
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !ok {
		t.FailNow()
	}
	r := mustOpen(t, out)
	if runs, disks := read[samples.Run](t, r), read[samples.Diskstats](t, r); len(runs) != 0 || len(disks) != 0 {
		t.Fatalf("after the kill, a reader counts %d runs and %d snapshots", len(runs), len(disks))
	}
	if len(notParts(t, out)) == 0 {
		t.Fatal("the kill left no part in progress: it came too late to test anything")
	}
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, Resume: true, ToolVersion: "test"})
	if err != nil || sum.Done != 2 {
		t.Fatalf("resume: %+v, %v", sum, err)
	}
	if left := notParts(t, out); len(left) > 0 {
		t.Errorf("left behind after the resume: %v", left)
	}
	r = mustOpen(t, out)
	disks := read[samples.Diskstats](t, r)
	for _, run := range read[samples.Run](t, r) {
		checkSnapshots(t, run, disks)
	}
}
