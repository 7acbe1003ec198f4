package analyze_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/internal/gencapture"
	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/samples"
)

// analyzeDir analyses the capture in dir as `pgstudy analyze DIR` does.
func analyzeDir(tb testing.TB, dir string) *analyze.Analysis {
	tb.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := analyze.Analyze([]analyze.Input{{Name: dir, Reader: r}}, analyze.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if _, bench := tb.(*testing.B); !bench {
		checkTables(tb, a)
	}
	return a
}

// BenchmarkAnalyze times analyze.Analyze over a generated capture: four
// configurations, five tests, ten diskstats samples a run. The capture is
// generated once per size, outside the timer. The 100,000-run capture, and
// the 10,000-run one with a part per run as collect writes it (slow to
// generate: every part is fsync'd), need PGSTUDY_BENCH_LARGE=1.
//
//	go test ./analyze -run '^$' -bench BenchmarkAnalyze -benchtime 3x
//	PGSTUDY_BENCH_LARGE=1 go test ./analyze -run '^$' -bench 'BenchmarkAnalyze/runs=100000' -benchtime 1x -timeout 30m
func BenchmarkAnalyze(b *testing.B) {
	sizes := []gencapture.Options{{Runs: 1000, RunsPerPart: 100}, {Runs: 10000, RunsPerPart: 100}}
	if os.Getenv("PGSTUDY_BENCH_LARGE") == "1" {
		sizes = append(sizes, gencapture.Options{Runs: 10000, RunsPerPart: 1}, gencapture.Options{Runs: 100000, RunsPerPart: 1000})
	}
	root := b.TempDir() // lives until every sub-benchmark is done
	for _, opt := range sizes {
		name := fmt.Sprintf("runs=%d/runs-per-part=%d", opt.Runs, opt.RunsPerPart)
		dir := filepath.Join(root, strings.ReplaceAll(name, "/", "-"))
		b.Run(name, func(b *testing.B) {
			// The sub-benchmark runs again for each b.N; generate once.
			if _, err := os.Stat(filepath.Join(dir, "runs")); err != nil {
				if err := gencapture.Generate(dir, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			var a *analyze.Analysis
			for b.Loop() {
				a = analyzeDir(b, dir)
			}
			if len(a.Runs) != opt.Runs {
				b.Fatalf("analysed %d runs, want %d", len(a.Runs), opt.Runs)
			}
			b.ReportMetric(float64(opt.Runs)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// TestGeneratedCaptureAnalyzes checks the analysis of a generated capture
// against what the generator put in it, figure by figure, so that the
// benchmark's capture stays one the analysis reads in full.
func TestGeneratedCaptureAnalyzes(t *testing.T) {
	// 11 rounds: 11 runs per test and configuration, an odd number, so
	// each median is one run's value and can be compared exactly. Fifty
	// runs a part leave a short last part.
	opt := gencapture.Options{Runs: 220, Samples: 10, RunsPerPart: 50}
	dir := t.TempDir()
	if err := gencapture.Generate(dir, opt); err != nil {
		t.Fatal(err)
	}
	want := gencapture.Runs(opt)
	a := analyzeDir(t, dir)

	if len(a.Runs) != len(want) || a.Captures[0].Runs != len(want) {
		t.Fatalf("analysed %d runs (capture: %d), want %d", len(a.Runs), a.Captures[0].Runs, len(want))
	}
	if got := a.Hosts; !slices.Equal(got, []string{"bench-vm-1"}) {
		t.Errorf("hosts %q, want bench-vm-1", got)
	}
	if !slices.Equal(a.Configs, gencapture.Configs()) || !slices.Equal(a.Tests, gencapture.Tests()) || a.Baseline != "pg17" {
		t.Errorf("configs %q, tests %q, baseline %q", a.Configs, a.Tests, a.Baseline)
	}

	checkGeneratedRuns(t, a, want, opt.Samples)
	checkGeneratedMedians(t, a, want)
	checkGeneratedGuards(t, a, want)
}

// checkGeneratedRuns compares each run, as read, with the generator's.
func checkGeneratedRuns(t *testing.T, a *analyze.Analysis, want []gencapture.Run, samples int) {
	t.Helper()
	byID := map[int64]gencapture.Run{}
	for _, w := range want {
		byID[w.RunID] = w
	}
	for _, r := range a.Runs {
		w := byID[r.RunID]
		if r.Test != w.Test || r.Config != w.Config || r.Round != w.Round || r.Position != w.Position {
			t.Fatalf("run %d: %s on %s round %d position %d, want %s on %s round %d position %d",
				r.RunID, r.Test, r.Config, r.Round, r.Position, w.Test, w.Config, w.Round, w.Position)
		}
		if !r.HasTime || r.TimeMs != float64(w.ElapsedNs)/1e6 {
			t.Errorf("run %d: time %v ms (has %v), want %v", r.RunID, r.TimeMs, r.HasTime, float64(w.ElapsedNs)/1e6)
		}
		if r.Device != "vda" || r.Disk == nil {
			t.Fatalf("run %d: device %q, disk %v", r.RunID, r.Device, r.Disk)
		}
		if r.Disk.ReadBytes != float64(w.ReadBytes) || r.Disk.Reads != float64(w.Reads) {
			t.Errorf("run %d: vda read %v bytes in %v requests, want %d in %d", r.RunID, r.Disk.ReadBytes, r.Disk.Reads, w.ReadBytes, w.Reads)
		}
		if len(r.Series) != samples+1 {
			t.Errorf("run %d: %d disk intervals, want %d", r.RunID, len(r.Series), samples+1)
		}
		if r.PGReads == nil || *r.PGReads != float64(w.PGReadBytes) {
			t.Errorf("run %d: pg_stat_io read %v, want %d", r.RunID, r.PGReads, w.PGReadBytes)
		}
		if r.WALBytes == nil || *r.WALBytes != w.WALBytes {
			t.Errorf("run %d: WAL %v, want %d", r.RunID, r.WALBytes, w.WALBytes)
		}
		if r.Plan == nil || r.Plan.Kind != "explain" {
			t.Errorf("run %d: plan %+v", r.RunID, r.Plan)
		}
		if (r.Autovacuums > 0) != w.Autovacuum || len(r.Problems) > 0 {
			t.Errorf("run %d: %d autovacuums (want %v), problems %q", r.RunID, r.Autovacuums, w.Autovacuum, r.Problems)
		}
	}

}

// checkGeneratedMedians compares the medians per test and configuration
// with the generator's.
func checkGeneratedMedians(t *testing.T, a *analyze.Analysis, want []gencapture.Run) {
	t.Helper()
	type key struct{ test, config string }
	med := func(f func(gencapture.Run) float64) map[key]float64 {
		xs := map[key][]float64{}
		for _, w := range want {
			k := key{w.Test, w.Config}
			xs[k] = append(xs[k], f(w))
		}
		out := map[key]float64{}
		for k, v := range xs {
			if len(v)%2 == 0 {
				t.Fatalf("%v: %d runs, want an odd number", k, len(v))
			}
			slices.Sort(v)
			out[k] = v[len(v)/2]
		}
		return out
	}
	times := med(func(w gencapture.Run) float64 { return float64(w.ElapsedNs) / 1e6 })
	wantMiB := med(func(w gencapture.Run) float64 { return float64(w.ReadBytes) / (1 << 20) })
	reads := med(func(w gencapture.Run) float64 { return float64(w.Reads) })
	wal := med(func(w gencapture.Run) float64 { return float64(w.WALBytes) })
	groups := len(gencapture.Tests()) * len(gencapture.Configs())
	var insert []analyze.WALGroup
	for _, g := range a.WAL {
		if g.Source == "wal_insert_lsn" {
			insert = append(insert, g)
		}
	}
	if len(a.Timings) != groups || len(a.Disks) != groups || len(insert) != groups {
		t.Fatalf("%d timings, %d disk rows, %d WAL rows from the insert position; want %d each", len(a.Timings), len(a.Disks), len(insert), groups)
	}
	for _, tm := range a.Timings {
		k := key{tm.Test, tm.Config}
		if tm.Summary.N != 11 || tm.Summary.Median != times[k] {
			t.Errorf("%s on %s: median %v ms of %d runs, want %v of 11", k.test, k.config, tm.Summary.Median, tm.Summary.N, times[k])
		}
	}
	for _, d := range a.Disks {
		k := key{d.Test, d.Config}
		readMiB := d.Median.ReadBytes / (1 << 20)
		if d.Device != "vda" || readMiB != wantMiB[k] || d.Median.Reads != reads[k] {
			t.Errorf("%s on %s: %s median %v MiB in %v reads, want vda, %v MiB in %v", k.test, k.config, d.Device, readMiB, d.Median.Reads, wantMiB[k], reads[k])
		}
	}
	for _, g := range insert {
		k := key{g.Test, g.Config}
		if g.Scope != "server" || g.Bytes == nil || *g.Bytes != wal[k] {
			t.Errorf("%s on %s: median WAL %v bytes (%s), want %v", k.test, k.config, g.Bytes, g.Scope, wal[k])
		}
	}

}

// checkGeneratedGuards: one plan per test and configuration, the one the
// study expects; the runs cold; activity exactly where the generator put
// an autovacuum.
func checkGeneratedGuards(t *testing.T, a *analyze.Analysis, want []gencapture.Run) {
	t.Helper()
	groups := len(gencapture.Tests()) * len(gencapture.Configs())
	if len(a.Plans) != groups {
		t.Errorf("%d plan rows, want %d", len(a.Plans), groups)
	}
	var vacuumed []int64
	for _, w := range want {
		if w.Autovacuum {
			vacuumed = append(vacuumed, w.RunID)
		}
	}
	var active []int64
	for _, f := range a.Findings {
		switch f.Guard {
		case "plan-differs", "plan-expected", "not-cold", "unreadable", "failed", "order", "control":
			t.Errorf("finding %s: %s", f.Guard, f.Message)
		case "rounds":
			if f.Severity != analyze.Info { // 11 rounds: enough to test, maybe not to decide
				t.Errorf("finding %s: %s", f.Guard, f.Message)
			}
		case "activity":
			active = append(active, f.Runs...)
		}
	}
	slices.Sort(active)
	if len(vacuumed) == 0 {
		t.Error("the generator put no autovacuum in any run; the activity guard goes unchecked")
	}
	if !slices.Equal(active, vacuumed) {
		t.Errorf("activity findings for runs %v, want %v", active, vacuumed)
	}
}

// BenchmarkReport times pgstudy report's work (the analysis, every figure as
// SVG and PNG, report.md and the tables) on a study a little larger than
// seed 000's: four configurations, five tests, five rounds, a part per run
// as collect writes it, 30 diskstats samples a run (a statement of half a
// minute sampled each second) and pg_settings per configuration and round.
//
//	go test ./analyze -run '^$' -bench BenchmarkReport -benchtime 5x
func BenchmarkReport(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "capture")
	if err := gencapture.Generate(dir, gencapture.Options{Runs: 100, Samples: 30, RunsPerPart: 1, Settings: true}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		a := analyzeDir(b, dir)
		if _, _, err := render.Report(filepath.Join(b.TempDir(), "report"), nil, a, render.ReportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
