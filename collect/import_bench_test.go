package collect_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/samples"
)

// importFixtures are real outputs the generated manifests point at: psql
// sessions with \timing on (parse/psql/testdata, psql 15 against servers
// 17 and 18) and pg_settings as collect read it from PostgreSQL 17.10 and
// 18.4 (analyze/internal/gencapture/fixtures), cut to its first four
// columns: what `psql -X -A -t -F '\t' -c 'select name, setting, unit,
// source from pg_settings'` prints, as handMadeStudy dumps it.
func importFixtures(t testing.TB) map[string]string {
	t.Helper()
	fx := map[string]string{}
	for major := 17; major <= 18; major++ {
		psql, err := os.ReadFile(fmt.Sprintf("../parse/psql/testdata/pg%d-session.txt", major))
		if err != nil {
			t.Fatal(err)
		}
		tsv, err := os.ReadFile(fmt.Sprintf("../analyze/internal/gencapture/fixtures/pg%d-settings.tsv", major))
		if err != nil {
			t.Fatal(err)
		}
		var settings strings.Builder
		for _, line := range strings.SplitAfter(string(tsv), "\n") {
			if f := strings.Split(strings.TrimSuffix(line, "\n"), "\t"); len(f) >= 4 {
				settings.WriteString(strings.Join(f[:4], "\t") + "\n")
			}
		}
		fx[fmt.Sprintf("pg%d/psql", major)] = string(psql)
		fx[fmt.Sprintf("pg%d/settings", major)] = settings.String()
	}
	return fx
}

// importStudy says what writeImportFolder writes.
type importStudy struct {
	runs     int  // timed runs, each one psql file
	tests    int  // runs per configuration and round, which share its settings file
	distinct bool // a file of its own for every row, as a study done by hand has; else rows share a few
	bad      int  // when > 0, the settings file of the run of this index (from 1) is not a settings dump
}

// writeImportFolder writes a study done by hand into dir and returns its
// manifest: runs psql outputs, s.tests a configuration and round, and a
// settings dump for each configuration and round. The configurations
// alternate between 17 and 18 (pg17-1, pg18-2, ...), as many as it takes
// to keep rounds within 10,000. With s.tests 1 every run has a
// configuration and round of its own, so the manifest has as many
// settings rows as psql rows: 2 × runs rows, the case that made the
// validation quadratic.
func writeImportFolder(t testing.TB, dir string, s importStudy) string {
	t.Helper()
	fx := importFixtures(t)
	groups := (s.runs + s.tests - 1) / s.tests // configuration and round pairs
	nconf := (groups + 9999) / 10000
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !s.distinct {
		for name, text := range fx {
			write("shared/"+name+".out", text)
		}
	}
	var m strings.Builder
	m.WriteString("round,position,config,test,kind,path\n")
	row := func(round, pos int, config, test, kind, file, text string) {
		rel := "shared/" + file + ".out"
		if s.distinct {
			name := kind
			if test != "" {
				name = test + "-" + kind
			}
			rel = fmt.Sprintf("round%d/%s/%s.out", round, config, name)
			write(rel, text)
		}
		fmt.Fprintf(&m, "%d,%d,%s,%s,%s,%s\n", round, pos, config, test, kind, rel)
	}
	for g := range groups {
		c, round := g%nconf, g/nconf+1
		major := 17 + c%2
		config := fmt.Sprintf("pg%d-%d", major, c+1)
		settings := fmt.Sprintf("pg%d/settings", major)
		for i := range s.tests {
			run := g*s.tests + i + 1
			if run > s.runs {
				break
			}
			row(round, c+1, config, "test"+strconv.Itoa(i+1), "psql", fmt.Sprintf("pg%d/psql", major), fx[fmt.Sprintf("pg%d/psql", major)])
			if run == s.bad {
				// Its own file, whatever s.distinct says.
				rel := fmt.Sprintf("bad/round%d-%s.tsv", round, config)
				write(rel, "work_mem\n")
				fmt.Fprintf(&m, "%d,%d,%s,,settings,%s\n", round, c+1, config, rel)
				settings = ""
			}
		}
		if settings != "" {
			row(round, c+1, config, "", "settings", settings, fx[settings])
		}
	}
	manifest := filepath.Join(dir, "manifest.csv")
	write("manifest.csv", m.String())
	return manifest
}

// countFiles returns the number of files under dir and the number of
// Parquet parts in each of its folders.
func countFiles(t testing.TB, dir string) (int, map[string]int) {
	t.Helper()
	n, parts := 0, map[string]int{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if strings.HasSuffix(p, ".parquet") {
			parts[filepath.Base(filepath.Dir(p))]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, parts
}

// TestWriteImportManifest writes the manifests docs/PERFORMANCE.md times
// `pgstudy import` on, when PGSTUDY_IMPORT_MANIFEST names a folder to
// write one in: PGSTUDY_IMPORT_RUNS runs (50,000 by default), of
// PGSTUDY_IMPORT_TESTS tests a configuration and round (1 by default: a
// psql row and a settings row for every run, 100,000 rows), every row a
// file of its own, or with PGSTUDY_IMPORT_SHARED=1 every row one of four
// files.
func TestWriteImportManifest(t *testing.T) {
	dir := os.Getenv("PGSTUDY_IMPORT_MANIFEST")
	if dir == "" {
		t.Skip("set PGSTUDY_IMPORT_MANIFEST=FOLDER to write a manifest there")
	}
	env := func(name string, def int) int {
		if s := os.Getenv(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				t.Fatalf("%s: expected a whole number from 1, found %q", name, s)
			}
			return n
		}
		return def
	}
	runs, tests := env("PGSTUDY_IMPORT_RUNS", 50000), env("PGSTUDY_IMPORT_TESTS", 1)
	start := time.Now()
	m := writeImportFolder(t, dir, importStudy{runs: runs, tests: tests, distinct: os.Getenv("PGSTUDY_IMPORT_SHARED") == ""})
	t.Logf("%s: %d runs, %d rows, written in %s", m, runs, runs+(runs+tests-1)/tests, time.Since(start).Round(time.Millisecond))
}

// TestImportChunks: 10,000 runs (10 tests a configuration and round, so
// 1,000 settings dumps) are written in parts of 1,000 runs, a part per
// table and chunk: 71 files, where a part per run and table made 43,001.
// The run ids and order are those of a part per run; every table reads
// back. A file count, not a time: it cannot be flaky.
func TestImportChunks(t *testing.T) {
	dir := t.TempDir()
	const runs, tests = 10000, 10
	manifest := writeImportFolder(t, dir, importStudy{runs: runs, tests: tests})
	out := filepath.Join(t.TempDir(), "capture")
	start := time.Now()
	sum, err := collect.ImportManifest(manifest, collect.ImportOptions{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	n, parts := countFiles(t, out)
	t.Logf("%d runs imported in %s: %d files, parts %v", runs, time.Since(start).Round(time.Millisecond), n, parts)
	if sum.Runs != runs || sum.Files != runs+runs/tests {
		t.Errorf("summary: %d runs from %d files, want %d from %d", sum.Runs, sum.Files, runs, runs+runs/tests)
	}
	for table, p := range parts {
		if want := 10; table != "capture" && p != want {
			t.Errorf("%s: %d parts, want %d (a part per 1,000 runs)", table, p, want)
		}
	}
	if n > 90 { // 8 tables of raw text and run_facts, a part each per 1,000 runs, and the session's
		t.Errorf("%d files in the capture, want at most 90", n)
	}
	checkRunOrder(t, out, runs, tests)
}

// checkRunOrder: the capture at out holds the runs writeImportFolder
// wrote, with ids from 1 in the order they ran (by round, then position,
// then the manifest's order), every output and the settings of each
// configuration and round once, with the first run of it.
func checkRunOrder(t *testing.T, out string, runs, tests int) {
	t.Helper()
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	got := read[samples.Run](t, r)
	if len(got) != runs {
		t.Fatalf("%d runs, want %d", len(got), runs)
	}
	groups := (runs + tests - 1) / tests
	nconf := (groups + 9999) / 10000
	for i, run := range got {
		g := i / tests
		c := g % nconf
		want := fmt.Sprintf("%d %d %d pg%d-%d test%d", i+1, g/nconf+1, c+1, 17+c%2, c+1, i%tests+1)
		if s := fmt.Sprintf("%d %d %d %s %s", run.RunID, run.Round, run.Position, run.Config, run.Test); s != want {
			t.Fatalf("run %d is %s, want %s", i+1, s, want)
		}
	}
	outputs := read[samples.Output](t, r)
	fx := importFixtures(t)
	for i, o := range outputs {
		if o.RunID != int64(i+1) || o.Text != fx[fmt.Sprintf("pg%d/psql", 17+(i/tests%nconf)%2)] {
			t.Fatalf("output %d: run %d, %d bytes", i, o.RunID, len(o.Text))
		}
	}
	servers := read[samples.Server](t, r)
	settings := read[samples.Setting](t, r)
	if len(servers) != groups || len(settings) < 378*groups {
		t.Fatalf("%d servers rows and %d settings rows, want %d and about %d", len(servers), len(settings), groups, 388*groups)
	}
	for i, s := range servers {
		if s.RunID != int64(i*tests+1) || s.ServerVersionNum/10000 != int32(17+(i%nconf)%2) {
			t.Fatalf("servers row %d: run %d, server_version_num %d", i, s.RunID, s.ServerVersionNum)
		}
	}
}

// TestImportChunkBytes: runs that each bring a settings dump (13 KB of
// text and some 400 rows) are written in chunks of at most 16 MiB of what
// they hold (about 170 runs), not 1,000 runs; the capture reads back whole.
func TestImportChunkBytes(t *testing.T) {
	dir := t.TempDir()
	const runs = 1000
	manifest := writeImportFolder(t, dir, importStudy{runs: runs, tests: 1})
	out := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.ImportManifest(manifest, collect.ImportOptions{Out: out}); err != nil {
		t.Fatal(err)
	}
	n, parts := countFiles(t, out)
	t.Logf("%d files, parts %v", n, parts)
	if parts["runs"] < 2 || parts["runs"] > 10 || parts["settings"] != parts["runs"] {
		t.Errorf("parts %v: want the runs and settings in the same few chunks, more than one", parts)
	}
	checkRunOrder(t, out, runs, 1)
}

// TestImportLastChunkFails: a settings file that is not one, in the last
// chunk, once the chunks before it are written (and made durable), fails
// the import with its line, and leaves neither a capture nor the
// temporary folder it was written in.
func TestImportLastChunkFails(t *testing.T) {
	const runs, tests = 2500, 5
	// Whole, the same runs make three chunks or more (by their bytes): the
	// last run, whose settings file is wrong below, is not in the first two.
	good := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.ImportManifest(writeImportFolder(t, t.TempDir(), importStudy{runs: runs, tests: tests}),
		collect.ImportOptions{Out: good}); err != nil {
		t.Fatal(err)
	}
	if _, parts := countFiles(t, good); parts["runs"] < 3 {
		t.Fatalf("%d chunks, want 3 or more", parts["runs"])
	}
	dir := t.TempDir()
	manifest := writeImportFolder(t, dir, importStudy{runs: runs, tests: tests, bad: runs})
	parent := t.TempDir()
	out := filepath.Join(parent, "capture")
	_, err := collect.ImportManifest(manifest, collect.ImportOptions{Out: out})
	// Run 2,500 is in round 2,500 / 5 / 1 configuration; its settings row
	// is the manifest's last line.
	want := fmt.Sprintf("import: bad/round500-pg17-1.tsv (manifest line %d):1: expected name, setting, unit and source separated by tabs or |, found \"work_mem\"",
		runs+runs/tests+1)
	if err == nil || err.Error() != want {
		t.Fatalf("import: %v\nwant %s", err, want)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a failed import left %v beside its capture", entries)
	}
}

// BenchmarkImport: an import of runs that each have a configuration and
// round of their own, a psql file and a settings file each (2 × runs
// manifest rows, every row a file of its own), as docs/PERFORMANCE.md
// measures it. files/op is the capture's files.
func BenchmarkImport(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("PGSTUDY_BENCH_LARGE") != "" {
		sizes = append(sizes, 50000)
	}
	for _, runs := range sizes {
		b.Run(fmt.Sprintf("rows=%d", 2*runs), func(b *testing.B) {
			manifest := writeImportFolder(b, b.TempDir(), importStudy{runs: runs, tests: 1, distinct: true})
			var files int
			b.ResetTimer()
			for i := range b.N {
				out := filepath.Join(b.TempDir(), fmt.Sprint(i))
				if _, err := collect.ImportManifest(manifest, collect.ImportOptions{Out: out}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				files, _ = countFiles(b, out)
				os.RemoveAll(out)
				b.StartTimer()
			}
			b.ReportMetric(float64(files), "files/op")
			b.ReportMetric(float64(2*runs)/b.Elapsed().Seconds()*float64(b.N), "rows/s")
		})
	}
}
