package analyze_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/samples"
)

// TestImpossibleNumbers: a run whose diskstats part was lost in a copy,
// and a run whose time is negative, are findings naming the run; neither
// enters the statistics as a number.
func TestImpossibleNumbers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	if err := os.CopyFS(dir, os.DirFS("../samples/example/capture")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "diskstats", "r000005.parquet")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "stats", "r000006.parquet")); err != nil {
		t.Fatal(err)
	}
	// Run 7's plan lost: the plan guards would pass over it in silence.
	if err := os.Remove(filepath.Join(dir, "plans", "r000007.parquet")); err != nil {
		t.Fatal(err)
	}
	w, runs := newSession(t, dir)
	bad := runs[0]
	bad.RunID, bad.ElapsedNs = int64(len(runs)+1), -5_000_000_000
	if err := w.Commit(&samples.Batch{Run: bad}); err != nil {
		t.Fatal(err)
	}
	w.Close()

	a := analyzeDir(t, dir)
	said := map[int64]string{}
	for _, f := range a.Findings {
		if f.Guard == "unreadable" {
			for _, id := range f.Runs {
				said[id] += f.Message
			}
		}
	}
	if !strings.Contains(said[5], "no diskstats snapshots before and after it") {
		t.Errorf("run 5 without diskstats: %q", said[5])
	}
	if !strings.Contains(said[6], "no statistics (pg_stat_*) before and after it") {
		t.Errorf("run 6 without stats: %q", said[6])
	}
	if !strings.Contains(said[7], "no plan for it, though pgstudy ran EXPLAIN") {
		t.Errorf("run 7 without its plan: %q", said[7])
	}
	for id, msg := range said {
		if id != 7 && strings.Contains(msg, "no plan for it") {
			t.Errorf("run %d has its plan, yet: %q", id, msg)
		}
	}
	if !strings.Contains(said[bad.RunID], "its time is -5000000000 ns, which no statement takes") {
		t.Errorf("run %d with a negative time: %q", bad.RunID, said[bad.RunID])
	}
	for _, tm := range a.Timings {
		if tm.Summary.Min < 0 || slices.ContainsFunc(tm.Rounds, func(r analyze.RoundValue) bool { return r.TimeMs <= 0 }) {
			t.Errorf("%s %s: a time that cannot be entered the statistics: %+v", tm.Test, tm.Config, tm.Summary)
		}
	}
	for _, run := range a.Runs {
		if run.RunID == 5 && run.Disk != nil {
			t.Errorf("run 5 has disk figures without diskstats: %+v", run.Disk)
		}
	}
}

// TestProcStatUnreadable: a throughput run whose /proc/stat after it is
// empty, and one whose /proc/stat has no context switches, are findings
// naming the run and what is unknown, not runs silently left out of the
// CPU cost per query.
func TestProcStatUnreadable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	if err := os.CopyFS(dir, os.DirFS("../samples/example/capture")); err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile("../parse/procstat/testdata/linux-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile("../parse/pgbench/testdata/select-only.stdout.txt")
	if err != nil {
		t.Fatal(err)
	}
	noCtxt := regexp.MustCompile(`(?m)^ctxt .*\n`).ReplaceAllString(string(stat), "")
	w, runs := newSession(t, dir)
	after := map[int64]string{int64(len(runs) + 1): "", int64(len(runs) + 2): noCtxt}
	for id, text := range after {
		run := runs[0]
		run.RunID, run.Kind, run.Client, run.Test = id, "throughput", "pgbench", "select-only"
		b := &samples.Batch{Run: run,
			Outputs: []samples.Output{{RunID: id, Seq: 1, Stream: "stdout", Text: string(summary)}},
			Probes: []samples.Probe{{RunID: id, Phase: "before", Name: "/proc/stat", Stdout: string(stat)},
				{RunID: id, Phase: "after", Name: "/proc/stat", Stdout: text}}}
		if err := w.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()

	a := analyzeDir(t, dir)
	said := map[int64]string{}
	for _, f := range a.Findings {
		if f.Guard == "unreadable" {
			for _, id := range f.Runs {
				said[id] += f.Message
			}
		}
	}
	empty, ctxt := int64(len(runs)+1), int64(len(runs)+2)
	if !strings.Contains(said[empty], "/proc/stat after") || !strings.Contains(said[empty], "per query are unknown") {
		t.Errorf("run %d with an empty /proc/stat after it: %q", empty, said[empty])
	}
	if !strings.Contains(said[ctxt], "/proc/stat after has no ctxt line") {
		t.Errorf("run %d with a /proc/stat without ctxt: %q", ctxt, said[ctxt])
	}
}

// newSession opens a copy of a capture for a session of its own, to add
// runs to it, and returns the runs it holds.
func newSession(t *testing.T, dir string) (*samples.Writer, []samples.Run) {
	t.Helper()
	w, st, err := samples.Resume(dir, samples.Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := st.Last
	last.Session++
	if err := w.WriteSession(last, nil); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := samples.Read[samples.Run](r)
	if err != nil {
		t.Fatal(err)
	}
	return w, runs
}
