package analyze_test

// These tests analyse captures that pgstudy collect makes against real
// PostgreSQL 17 and 18 servers: one clean study, on which no guard may
// fire, and studies each with a mistake planted, on which its guard must.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// loadAccounts makes a table of about 25 MiB with an index on v.
func loadAccounts(t *testing.T, c *pgtest.Cluster) {
	t.Helper()
	c.SQL(t, `create table accounts (aid int primary key, bid int, v int, filler text);
insert into accounts select g, g % 10, (g / 500) % 1000, repeat('x', 80) from generate_series(1, 200000) g;
create index on accounts (v);
create table knob (round int, config text);`)
	c.SQL(t, "vacuum analyze accounts")
	c.SQL(t, "checkpoint")
}

func coldSteps() string {
	if collect.CanDropCaches() == nil {
		return "[stop-all, drop-caches, start, wait-ready 1m]"
	}
	return "[stop-all, evict, start, wait-ready 1m]"
}

// collectStudy writes the study, runs it and returns the capture folder.
func collectStudy(t *testing.T, study string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "study.yaml")
	if err := os.WriteFile(path, []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "capture")
	if keep := os.Getenv("PGSTUDY_KEEP_CAPTURES"); keep != "" {
		// To look at a test's capture by hand: pgstudy analyze KEEP/TestName
		out = filepath.Join(keep, t.Name())
		os.RemoveAll(out)
	}
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	if err != nil || sum.Failed != 0 {
		// Say why each run failed: a plant that did not work says so there.
		if r, oerr := samples.Open(out); oerr == nil {
			runs, _ := samples.Read[samples.Run](r)
			for _, run := range runs {
				if run.Status != "ok" {
					t.Errorf("run %d (%s on %s): %s: %s", run.RunID, run.Test, run.Config, run.Status, run.Error)
				}
			}
		}
		t.Fatalf("collect: %v", err)
	}
	return out
}

func analyse(t *testing.T, dir string, opt analyze.Options) *analyze.Analysis {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyze.Analyze([]analyze.Input{{Name: dir, Reader: r}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkTables(t, a)
	for _, tm := range a.Timings {
		var rs []string
		for _, r := range tm.Rounds {
			rs = append(rs, fmt.Sprintf("r%d/p%d %.1f", r.Round, r.Position, r.TimeMs))
		}
		t.Logf("%s %s: median %.1f ms: %s", tm.Test, tm.Config, tm.Summary.Median, strings.Join(rs, ", "))
	}
	for _, f := range a.Findings {
		t.Logf("%s %s [%s %s]: %s", f.Severity, f.Guard, f.Test, f.Config, f.Message)
	}
	return a
}

// findings returns the findings of one guard.
func findings(a *analyze.Analysis, guard string) []analyze.Finding {
	var out []analyze.Finding
	for _, f := range a.Findings {
		if f.Guard == guard {
			out = append(out, f)
		}
	}
	return out
}

func config(name string, c *pgtest.Cluster, extra string) string {
	return fmt.Sprintf("  - name: %s\n    dsn: %s\n    start: %s\n    stop: %s\n%s", name, c.DSN(), c.StartCmd(), c.StopCmd(), extra)
}

func TestCleanCapture(t *testing.T) {
	// A disk of their own: a cold scan reads its table from the device, and
	// nothing else is counted with it (a /tmp on tmpfs has no device).
	disk := pgtest.PrivateDisk(t, 384)
	pg17 := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	pg18 := pgtest.Start(t, 18, pgtest.WithSetting("autovacuum", "off"), pgtest.WithDataChecksums(false), pgtest.OnDisk(disk))
	loadAccounts(t, pg17)
	loadAccounts(t, pg18)
	// 17 gets the two settings 18 raised, so that only the version differs.
	study := "configs:\n" + config("pg17", pg17, "    settings: {effective_io_concurrency: 16, maintenance_io_concurrency: 16}\n") +
		config("pg18", pg18, "    client: psql\n    psql: "+pg18.Psql()+" -X\n") + `
tests:
  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off, max_parallel_workers_per_gather: 0}
    sql: select count(*), sum(bid) from accounts
    expect_plan: Seq Scan
  - name: vacuum
    slice: {first: 1, size: 10000, last: 200000}
    before: update accounts set bid = bid + 1 where aid between {{.Slice.Lo}} and {{.Slice.Hi}}
    sql: vacuum (verbose) accounts
protocol:
  rounds: 6
  cold: ` + coldSteps() + `
disk:
  sample: 50ms
`
	dir := collectStudy(t, study)
	a := analyse(t, dir, analyze.Options{})

	checkCleanTimings(t, a)
	checkCleanFigures(t, a)
}

// checkCleanTimings: the configurations and tests in the study's order, no
// guard fired, and each timing with its interval and comparison.
func checkCleanTimings(t *testing.T, a *analyze.Analysis) {
	t.Helper()
	if a.Baseline != "pg17" || !slices.Equal(a.Configs, []string{"pg17", "pg18"}) || !slices.Equal(a.Tests, []string{"seqscan", "vacuum"}) {
		t.Fatalf("baseline %s, configs %v, tests %v", a.Baseline, a.Configs, a.Tests)
	}
	for _, f := range a.Findings {
		switch {
		case f.Guard == "drift" || f.Guard == "change-point" || f.Guard == "spread" || f.Guard == "position":
			// These read the noise of the machine, which is real: this
			// VM's disk slows down as a study goes on, and other tests
			// share it. They are checked to stay silent on a clean capture
			// with known times in TestPlantedOrderDriftSpread.
		case f.Severity == analyze.Info && f.Guard == "settings":
			// New settings of 18 (io_method, ...) are context, not a mistake.
		case f.Severity == analyze.Info && f.Guard == "rounds":
			// Six rounds of a real machine's noise cannot decide a 5%
			// difference: how many would is context.
		default:
			t.Errorf("a guard fired on the clean capture: %s %s: %s", f.Severity, f.Guard, f.Message)
		}
	}
	if len(a.Timings) != 4 {
		t.Fatalf("%d timings, want 2 tests x 2 configurations", len(a.Timings))
	}
	for _, tm := range a.Timings {
		if tm.Summary.N != 6 || !tm.Summary.CIValid || tm.Summary.Lo > tm.Summary.Median || tm.Summary.Hi < tm.Summary.Median {
			t.Errorf("%s %s: %+v", tm.Test, tm.Config, tm.Summary)
		}
		if tm.Config == "pg18" {
			if tm.Compare == nil || !tm.Compare.PValid || tm.Compare.Ratio <= 0 {
				t.Errorf("%s: no comparison with pg17: %+v", tm.Test, tm.Compare)
			}
			// pg18 is timed with psql: its times come from the Time: lines.
			for _, r := range a.Runs {
				if r.Config == "pg18" && r.TimeSource != "psql" {
					t.Errorf("run %d: time from %q, want psql", r.RunID, r.TimeSource)
				}
			}
		}
	}
}

// checkCleanFigures: disk, plans, vacuum and WAL figures of the clean
// capture, each against what the study makes happen.
func checkCleanFigures(t *testing.T, a *analyze.Analysis) {
	t.Helper()
	// Cold scans read the table from the device: about 25 MiB.
	for _, d := range a.Disks {
		if d.Test == "seqscan" && (d.Median.ReadBytes/(1<<20) < 15 || d.Median.Reads < 10 || d.Median.RAreqSzKiB <= 4) {
			t.Errorf("%s disk: %+v", d.Config, d)
		}
	}
	// The server is the device's only reader and a sequential scan reads
	// each block once: the device read what PostgreSQL read (pg_stat_io).
	// (read_ahead_kb is blank here: host facts skip loop devices.)
	amps := 0
	for _, g := range a.ReadAmps {
		if g.Test != "seqscan" {
			continue
		}
		amps++
		if g.N != 6 || g.PGBytes < 15<<20 || g.Ratio == nil || *g.Ratio < 0.95 || *g.Ratio > 1.3 {
			t.Errorf("%s read amplification: %+v (ratio %v)", g.Config, g, g.Ratio)
		}
	}
	if amps != 2 {
		t.Errorf("%d read amplification rows for seqscan, want 2: %+v", amps, a.ReadAmps)
	}
	// The same plan on both; a fingerprint and a shape for each.
	for _, p := range a.Plans {
		if p.Test == "seqscan" && !strings.Contains(p.Shape, "Seq Scan on accounts") {
			t.Errorf("plan %+v", p)
		}
	}
	// Vacuum: every round of each configuration, with WAL figures from
	// notices (pgx) and from psql's stderr.
	if len(a.Vacuums) != 12 {
		t.Errorf("%d vacuum rows, want 12", len(a.Vacuums))
	}
	byID := map[int64]*analyze.Run{}
	for _, r := range a.Runs {
		byID[r.RunID] = r
	}
	for _, v := range a.Vacuums {
		if v.WALBytes == nil || *v.WALBytes <= 0 || v.WALRecords == nil || v.PagesScanned == nil || *v.PagesScanned == 0 {
			t.Errorf("vacuum %s round %d: %+v", v.Config, v.Round, v.VacuumTotal)
			continue
		}
		// The insert positions around the run hold every byte the vacuum
		// generated (and what else the server wrote meanwhile): at least
		// VACUUM VERBOSE's own WAL usage. The write position, which lags
		// by the WAL buffers, often read less.
		r := byID[v.RunID]
		if r == nil {
			t.Errorf("vacuum %s round %d: run %d not analysed", v.Config, v.Round, v.RunID)
			continue
		}
		if r.WALFrom != "insert" || r.WALBytes == nil || *r.WALBytes < *v.WALBytes {
			t.Errorf("vacuum %s round %d: WAL between the insert positions %v (from %q), below VERBOSE's %d bytes",
				v.Config, v.Round, r.WALBytes, r.WALFrom, *v.WALBytes)
		}
	}
	if len(a.Contrast) != 1 || !strings.HasPrefix(a.Contrast[0], "vacuum: pg18 had ") || !strings.Contains(a.Contrast[0], "the WAL bytes of pg17") {
		t.Errorf("contrast %q", a.Contrast)
	}
	// The WAL table shows each source of the vacuum's WAL side by side:
	// VERBOSE's own (the statement's), pg_stat_wal's and the insert
	// position's (the server's), and the server's hold the statement's.
	checkWALSources(t, a)
	// What differs between 17 and 18 without being declared is context.
	for _, s := range a.Settings {
		if s.Name == "effective_io_concurrency" || s.Name == "data_checksums" {
			t.Errorf("setting %s listed as differing: %+v", s.Name, s)
		}
	}
}

// TestPlantedPlanAndSettings: 18 scans the index only where 17 scans the
// table, and 18 has data checksums on where 17 has them off.
func TestPlantedPlanAndSettings(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 384) // both servers on it: one device, one limit
	pg17 := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	pg18 := pgtest.Start(t, 18, pgtest.WithSetting("autovacuum", "off"), pgtest.WithDataChecksums(true), pgtest.OnDisk(disk))
	loadAccounts(t, pg17)
	loadAccounts(t, pg18)
	// 17 is kept off the index; 18, left alone, answers from it.
	study := "configs:\n" + config("pg17", pg17, "    settings: {enable_indexonlyscan: off, enable_indexscan: off, enable_bitmapscan: off}\n") +
		config("pg18", pg18, "") + `
tests:
  - name: count
    sql: select count(v) from accounts
    expect_plan: Seq Scan
protocol:
  rounds: 4
  cold: ` + coldSteps() + `
disk:
  limits: {DEVICE: {read_mib_s: 0.5}}
`
	// The limit is far below any disk: every cold run is bounded by it.
	study = strings.Replace(study, "DEVICE", dataDevice(t, pg17), 1)
	a := analyse(t, collectStudy(t, study), analyze.Options{})

	differs := findings(a, "plan-differs")
	if len(differs) != 1 || differs[0].Severity != analyze.Error || !strings.Contains(differs[0].Message, "Index Only Scan") ||
		!strings.Contains(differs[0].Message, "pg17 ran") || len(differs[0].Runs) != 8 {
		t.Errorf("plan-differs: %+v", differs)
	}
	expected := findings(a, "plan-expected")
	if len(expected) != 1 || expected[0].Config != "pg18" || expected[0].Severity != analyze.Error || len(expected[0].Runs) != 4 ||
		!strings.Contains(expected[0].Message, "Index Only Scan") {
		t.Errorf("plan-expected: %+v", expected)
	}
	var checksums bool
	for _, f := range findings(a, "settings") {
		if f.Severity == analyze.Warning && strings.HasPrefix(f.Message, "data_checksums differs") {
			checksums = true
		}
		if strings.Contains(f.Message, "enable_indexonlyscan") {
			t.Errorf("a declared setting was reported: %s", f.Message)
		}
	}
	if !checksums {
		t.Error("undeclared data_checksums difference not reported")
	}
	if f := findings(a, "rounds"); len(f) != 1 || !strings.Contains(f[0].Message, "n=4") {
		t.Errorf("rounds: %+v", f)
	}
	// A limit far below what the disk does is not the device's: every
	// cold run is said to have gone above it.
	var above int
	for _, f := range findings(a, "disk-bound") {
		if f.Severity == analyze.Warning && strings.Contains(f.Message, "went more than 10% above the limit") {
			above += len(f.Runs)
		}
	}
	if above != 8 {
		t.Errorf("%d runs said to be above a 0.5 MiB/s limit, want all 8: %+v", above, findings(a, "disk-bound"))
	}
}

// dataDevice is the whole disk under a cluster's data directory, as the
// collector names it.
func dataDevice(t *testing.T, c *pgtest.Cluster) string {
	t.Helper()
	dir := c.SQL(t, "show data_directory")
	dev, err := collect.DeviceOf(dir)
	if err != nil || dev == "" {
		t.Fatalf("device of %s: %q %v", dir, dev, err)
	}
	return dev
}

// TestPlantedWarmRun: a cold step reads the table back into the page cache
// after the cache was dropped.
//
// The server's data is on a disk of the test's own, so that what other
// processes read (a busy machine) does not count as the run's reads.
func TestPlantedWarmRun(t *testing.T) {
	pg17 := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(pgtest.PrivateDisk(t, 256)))
	loadAccounts(t, pg17)
	datadir := pg17.SQL(t, "show data_directory")
	cold := strings.TrimSuffix(coldSteps(), "]") + fmt.Sprintf(", {sh: 'find %s/base -type f -exec cat {} + > /dev/null'}]", datadir)
	study := "configs:\n" + config("pg17", pg17, "") + `
tests:
  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off}
    sql: select count(*), sum(bid) from accounts
protocol:
  rounds: 2
  cold: ` + cold + "\n"
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	// The plant: the table was in the page cache when each run began.
	for _, r := range a.Runs {
		if r.Disk == nil || r.Disk.ReadBytes > 1<<20 {
			t.Fatalf("run %d read %v from the disk: the pages the cold step read were gone again before the statement (memory pressure?)", r.RunID, r.Disk)
		}
	}
	f := findings(a, "not-cold")
	if len(f) != 1 || f[0].Severity != analyze.Error || len(f[0].Runs) != 2 || !strings.Contains(f[0].Message, "PostgreSQL read") {
		t.Errorf("not-cold: %+v", f)
	}
}

// checkWALSources checks the WAL table of a vacuum test: per
// configuration, VERBOSE's median is the statement's, and the server's
// sources count at least as much.
func checkWALSources(t *testing.T, a *analyze.Analysis) {
	t.Helper()
	bySource := map[string]map[string]analyze.WALGroup{}
	for _, w := range a.WAL {
		if w.Test != "vacuum" {
			continue
		}
		if bySource[w.Config] == nil {
			bySource[w.Config] = map[string]analyze.WALGroup{}
		}
		bySource[w.Config][w.Source] = w
	}
	for _, config := range a.Configs {
		var fpi, bytes []float64
		for _, v := range a.Vacuums {
			if v.Config == config {
				fpi, bytes = append(fpi, float64(*v.WALFPI)), append(bytes, float64(*v.WALBytes))
			}
		}
		verbose, stat, insert := bySource[config]["vacuum_verbose"], bySource[config]["pg_stat_wal"], bySource[config]["wal_insert_lsn"]
		if verbose.Scope != "statement" || stat.Scope != "server" || insert.Scope != "server" {
			t.Errorf("WAL of %s: sources %+v", config, bySource[config])
			continue
		}
		if verbose.FPI == nil || *verbose.FPI != stats.Median(fpi) || verbose.Bytes == nil || *verbose.Bytes != stats.Median(bytes) {
			t.Errorf("WAL of %s from VERBOSE: %+v; the vacuum rows' medians %v FPI, %v bytes", config, verbose, stats.Median(fpi), stats.Median(bytes))
			continue
		}
		if stat.FPI == nil || *stat.FPI < 0.9**verbose.FPI || stat.Bytes == nil || *stat.Bytes < 0.9**verbose.Bytes {
			t.Errorf("WAL of %s: pg_stat_wal %+v below VERBOSE's %v FPI, %v bytes", config, stat, *verbose.FPI, *verbose.Bytes)
		}
		if insert.Bytes == nil || *insert.Bytes < *verbose.Bytes || insert.Records != nil {
			t.Errorf("WAL of %s: the insert position %+v, VERBOSE's %v bytes", config, insert, *verbose.Bytes)
		}
	}
}
