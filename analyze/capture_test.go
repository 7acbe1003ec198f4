package analyze_test

// These tests analyse captures that pgstudy collect makes against real
// PostgreSQL 17 and 18 servers: one clean study, on which no guard may
// fire, and studies each with a mistake planted, on which its guard must.

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/render"
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

	if a.Baseline != "pg17" || !slices.Equal(a.Configs, []string{"pg17", "pg18"}) || !slices.Equal(a.Tests, []string{"seqscan", "vacuum"}) {
		t.Fatalf("baseline %s, configs %v, tests %v", a.Baseline, a.Configs, a.Tests)
	}
	for _, f := range a.Findings {
		switch {
		case f.Guard == "drift" || f.Guard == "spread" || f.Guard == "position":
			// These read the noise of the machine, which is real: this
			// VM's disk slows down as a study goes on, and other tests
			// share it. They are checked to stay silent on a clean capture
			// with known times in TestPlantedOrderDriftSpread.
		case f.Severity == analyze.Info && f.Guard == "settings":
			// New settings of 18 (io_method, ...) are context, not a mistake.
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
	// Cold scans read the table from the device: about 25 MiB.
	for _, d := range a.Disks {
		if d.Test == "seqscan" && (d.Median.ReadBytes/(1<<20) < 15 || d.Median.Reads < 10 || d.Median.RAreqSzKiB <= 4) {
			t.Errorf("%s disk: %+v", d.Config, d)
		}
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
	for _, v := range a.Vacuums {
		if v.WALBytes == nil || *v.WALBytes <= 0 || v.WALRecords == nil || v.PagesScanned == nil || *v.PagesScanned == 0 {
			t.Errorf("vacuum %s round %d: %+v", v.Config, v.Round, v.VacuumTotal)
		}
	}
	if len(a.Contrast) != 1 || !strings.HasPrefix(a.Contrast[0], "vacuum: pg18 had ") || !strings.Contains(a.Contrast[0], "the WAL bytes of pg17") {
		t.Errorf("contrast %q", a.Contrast)
	}
	// pg_stat_wal around the run and VACUUM VERBOSE's own WAL usage are two
	// accounts of the same writes.
	for _, w := range a.WAL {
		if w.Test != "vacuum" {
			continue
		}
		var fpi []float64
		for _, v := range a.Vacuums {
			if v.Config == w.Config {
				fpi = append(fpi, float64(*v.WALFPI))
			}
		}
		slices.Sort(fpi)
		verbose := (fpi[2] + fpi[3]) / 2
		if w.WALBytes <= 0 || w.FPI == nil || *w.FPI < 0.9*verbose || *w.FPI > 1.1*verbose+5 {
			t.Errorf("WAL of %s: %+v; VACUUM VERBOSE's median full page images %v", w.Config, w, verbose)
		}
	}
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

// planted is a test of known times: sql is the pg_sleep argument as a
// formula of r (the round), b (1 on configuration b, 0 on a) and p (the
// position in the round), and seconds the same formula in Go.
type planted struct {
	sql     string
	seconds func(r, b, p int) float64
}

// sleepStudy is two configurations of one server whose statements sleep
// as a formula of the round and the configuration says, through a table
// the before statement fills: times known in advance, with no cold steps.
func sleepStudy(c *pgtest.Cluster, rounds int, tests map[string]planted) string {
	s := "configs:\n" + config("a", c, "") + config("b", c, "") + "tests:\n"
	names := make([]string, 0, len(tests))
	for n := range tests {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		// r is the round, b is 1 on configuration b and 0 on a, p the
		// position in the round (rotation: a first in odd rounds).
		s += fmt.Sprintf(`  - name: %s
    before: [truncate knob, "insert into knob values ({{.Round}}, '{{.Config}}')"]
    sql: select pg_sleep(%s) from (select round as r, (config = 'b')::int as b, case when (round %% 2 = 1) = (config = 'a') then 1 else 2 end as p from knob) k
`, n, tests[n].sql)
	}
	return s + fmt.Sprintf("protocol:\n  rounds: %d\n  explain: false\n", rounds)
}

// plantedMargin is how far the machine's own latency (client, scheduler,
// server) may move what the guards compare before the planted times no
// longer hold: the medians of each position and of each third of the runs
// in time order, of the time added to each run, as a share of the test's
// shortest planted sleep. The guards' smallest
// effects are 5% (position) and 10% (drift); 3% of shift cannot make a
// finding the test did not plant. One slow run (a busy machine's spike)
// moves no median.
const plantedMargin = 0.03

// checkPlanted fails the test, saying so, when a run took less than its
// planted sleep (the plant did not work) or when the machine's added time,
// relative to each planted sleep, differs between positions or between
// thirds of the study by more than plantedMargin: then the machine's own
// noise, not the plant, is what the guards would read.
func checkPlanted(t *testing.T, a *analyze.Analysis, tests map[string]planted) {
	t.Helper()
	byTest := map[string][]*analyze.Run{}
	for _, r := range a.Runs {
		byTest[r.Test] = append(byTest[r.Test], r)
	}
	for name, runs := range byTest {
		pt, ok := tests[name]
		if !ok {
			t.Fatalf("test %s: not planted", name)
		}
		slices.SortFunc(runs, func(x, y *analyze.Run) int { return x.Seq - y.Seq })
		planted := func(r *analyze.Run) float64 {
			b := 0
			if r.Config == "b" {
				b = 1
			}
			return 1000 * pt.seconds(r.Round, b, r.Position)
		}
		// Shares of the test's shortest sleep: a delay the machine adds to
		// every run alike moves no difference the guards compare.
		shortest := math.Inf(1)
		for _, r := range runs {
			shortest = min(shortest, planted(r))
		}
		rel := make([]float64, len(runs))
		groups := map[string][]float64{}
		for i, r := range runs {
			want := planted(r)
			if !r.HasTime || r.TimeMs < want {
				t.Fatalf("run %d (%s on %s, round %d, position %d) took %.1f ms, less than its planted sleep of %.1f ms: the plant did not work",
					r.RunID, r.Test, r.Config, r.Round, r.Position, r.TimeMs, want)
			}
			rel[i] = (r.TimeMs - want) / shortest
			groups[fmt.Sprintf("position %d", r.Position)] = append(groups[fmt.Sprintf("position %d", r.Position)], rel[i])
			third := fmt.Sprintf("third %d", 1+3*i/len(runs))
			groups[third] = append(groups[third], rel[i])
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		var loName, hiName string
		for g, xs := range groups {
			slices.Sort(xs)
			m := xs[len(xs)/2]
			if m < lo {
				lo, loName = m, g
			}
			if m > hi {
				hi, hiName = m, g
			}
		}
		t.Logf("planted %s: the machine added %.2f%% (%s) to %.2f%% (%s) of the shortest sleep, by median", name, 100*lo, loName, 100*hi, hiName)
		if hi-lo > plantedMargin {
			t.Fatalf("test %s: the machine added %.1f%% more to its sleeps in %s than in %s, more than the %.0f%% the plant allows: "+
				"the machine's noise, not the plant, would be what the guards read", name, 100*(hi-lo), hiName, loName, 100*plantedMargin)
		}
	}
}

// TestPlantedOrderDriftSpread: one test is slow in the first position of
// each round whatever the configuration; one drifts slower round after
// round; on one, b is 10% slower than a but the rounds spread over ±30%,
// so the difference is within the noise; one is clean. The sleeps are of
// a few hundred milliseconds, so that a busy machine's few milliseconds of
// latency stay well inside the guards' thresholds; checkPlanted asserts
// they did before any guard is looked at.
//
// The server's data is on a disk of the test's own: the device guards read
// the disk's counters, and another process reading the machine's disk
// would show there as the device's throughput drifting.
func TestPlantedOrderDriftSpread(t *testing.T) {
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(pgtest.PrivateDisk(t, 256)))
	loadAccounts(t, pg)
	const u = 0.3 // seconds: the unit of every planted sleep
	spread := []float64{1.0, 1.6, 1.2, 1.4, 0.9, 1.5, 1.1, 1.3}
	tests := map[string]planted{
		"order": {"0.3 * case when p = 1 then 2 else 1 end", func(r, b, p int) float64 {
			if p == 1 {
				return 2 * u
			}
			return u
		}},
		"drift":  {"0.3 * (1 + 0.3 * r)", func(r, b, p int) float64 { return u * (1 + 0.3*float64(r)) }},
		"spread": {"0.3 * (array[1.0, 1.6, 1.2, 1.4, 0.9, 1.5, 1.1, 1.3])[r] * (1 + 0.10 * b)", func(r, b, p int) float64 { return u * spread[r-1] * (1 + 0.10*float64(b)) }},
		"steady": {"0.3 * (1 + b)", func(r, b, p int) float64 { return u * float64(1+b) }},
	}
	a := analyse(t, collectStudy(t, sleepStudy(pg, 8, tests)), analyze.Options{})
	checkPlanted(t, a, tests)

	guarded := func(guard string, sev analyze.Severity) []string {
		var ts []string
		for _, f := range findings(a, guard) {
			if f.Severity == sev {
				ts = append(ts, f.Test)
			}
		}
		slices.Sort(ts)
		return ts
	}
	if got := guarded("position", analyze.Warning); !slices.Equal(got, []string{"order"}) {
		t.Errorf("position warnings on %v, want [order]", got)
	}
	if got := guarded("drift", analyze.Warning); !slices.Equal(got, []string{"drift"}) {
		t.Errorf("drift warnings on %v, want [drift]", got)
	}
	if got := guarded("spread", analyze.Warning); !slices.Equal(got, []string{"spread"}) {
		t.Errorf("spread warnings on %v, want [spread]", got)
	}
	for _, f := range a.Findings {
		if !slices.Contains([]string{"position", "drift", "spread"}, f.Guard) || f.Severity == analyze.Error {
			t.Errorf("unexpected finding: %s %s: %s", f.Severity, f.Guard, f.Message)
		}
	}
	// steady: b is 2x a in every round, significant (p < 0.05 after Holm).
	for _, tm := range a.Timings {
		if tm.Test == "steady" && tm.Config == "b" {
			if tm.Compare == nil || !tm.Compare.Significant || tm.Compare.Ratio < 1.8 || tm.Compare.Ratio > 2.2 {
				t.Errorf("steady b against a: %+v", tm.Compare)
			}
		}
	}
}

// TestPlantedAutovacuum: autovacuum runs every second and a before
// statement leaves dead rows; the timed statement waits until autovacuum
// has worked on the table (up to 30 s, then the run fails saying so), so
// that it runs during the statement however long the machine takes to
// start it. The count it waits to see rise is read before the rows die,
// so an autovacuum that ends before the statement begins is seen too.
func TestPlantedAutovacuum(t *testing.T) {
	pg := pgtest.Start(t, 17, pgtest.WithSettings(map[string]string{"autovacuum_naptime": "1s",
		"autovacuum_vacuum_threshold": "0", "autovacuum_vacuum_scale_factor": "0", "autovacuum_analyze_threshold": "0",
		"autovacuum_analyze_scale_factor": "0"}))
	loadAccounts(t, pg)
	study := "configs:\n" + config("pg17", pg, "") + `
tests:
  - name: wait
    before:
      - create table if not exists av0 (n bigint)
      - truncate av0
      - insert into av0 select autovacuum_count + autoanalyze_count from pg_stat_user_tables where relname = 'accounts'
      - update accounts set bid = bid + 1 where aid <= 50000
    sql: >-
      do $$ declare
        n0 bigint := (select n from av0);
        deadline timestamptz := clock_timestamp() + interval '30 s';
      begin
        loop
          perform pg_stat_clear_snapshot();
          exit when (select autovacuum_count + autoanalyze_count from pg_stat_user_tables where relname = 'accounts') > n0;
          if clock_timestamp() > deadline then
            raise exception 'the plant did not work: autovacuum did not work on accounts within 30 s';
          end if;
          perform pg_sleep(0.05);
        end loop;
      end $$
protocol:
  rounds: 2
  explain: false
`
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	// The plant: autovacuum worked on the server during some run.
	if !slices.ContainsFunc(a.Runs, func(r *analyze.Run) bool { return r.Autovacuums > 0 || len(r.Others) > 0 }) {
		t.Fatal("no run saw autovacuum at work (an autovacuum that ended between the before statements and the run?): the plant did not take effect")
	}
	f := findings(a, "activity")
	if len(f) != 1 || len(f[0].Runs) == 0 || !strings.Contains(f[0].Message, "autovacuum") {
		t.Errorf("activity: %+v", f)
	}
}

// TestPlantedDiskLimitAndDrift throttles the server's reads the way a
// cloud volume does (a blkio cgroup: the kernel's own limit), lowering the
// limit run after run as a burst allowance running out would: the device's
// throughput drifts down and the last runs sit at the limit the study gives.
// The server's data is on a disk of the test's own (a loop device), so
// nothing else the machine reads counts in its figures, and the throttle
// is checked to have taken effect before any guard is looked at.
func TestPlantedDiskLimitAndDrift(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 256)
	throttle := pgtest.NewThrottle(t, disk)
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	loadAccounts(t, pg)
	if dev := dataDevice(t, pg); dev != disk.Device {
		t.Fatalf("the data directory is on %s, not on the test's own disk %s", dev, disk.Device)
	}
	// Each run's limit: 64 MiB/s, then 8 MiB/s less each run, down to 8,
	// set by a cold step.
	limit := func(run int64) float64 { return float64(64 - 8*(run-1)) }
	dir := t.TempDir()
	lower := filepath.Join(dir, "throttle.sh")
	rule, line := throttle.ReadRule("$(( (64 - 8 * n) * 1048576 ))")
	os.WriteFile(lower, []byte(fmt.Sprintf(`n=$(cat %[1]s/n 2>/dev/null || echo 0)
echo $((n + 1)) > %[1]s/n
echo "%[2]s" > %[3]s
`, dir, line, rule)), 0o755)
	study := fmt.Sprintf(`configs:
  - name: pg17
    dsn: %s
    start: %s
    stop: %s
tests:
  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off, max_parallel_workers_per_gather: 0}
    sql: select count(*), sum(bid) from accounts
protocol:
  rounds: 8
  cold: [stop-all, drop-caches, {sh: sh %s}, start, wait-ready 1m]
disk:
  sample: 200ms
  limits: {%s: {read_mib_s: 8}}
`, pg.DSN(), throttle.StartCmd(t, pg), pg.StopCmd(), lower, disk.Device)
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	// The plant: every run read the table from the disk no faster than its
	// throttle allows, and the last (3 s at 8 MiB/s) at its throttle. The
	// kernel lets a burst through at the start of a throttled read
	// (measured here: run 1, throttled to 64 MiB/s, read 24.5 MiB in
	// 0.2 s, 12 MiB more than the limit allows), so each run is held to
	// its limit plus throttleBurst over its time.
	if len(a.Runs) != 8 {
		t.Fatalf("%d runs, want 8", len(a.Runs))
	}
	const throttleBurst = 16 << 20 // bytes
	for _, r := range a.Runs {
		if r.Disk == nil || r.Disk.ReadBytes < 15<<20 {
			t.Fatalf("run %d read %v from %s: the cold steps did not make the scan read the table from the disk", r.RunID, r.Disk, disk.Device)
		}
		mibs := r.Disk.RKiBPerS / 1024
		t.Logf("run %d: %.1f MiB/s over %.2f s, throttled to %.0f", r.RunID, mibs, r.Disk.Seconds, limit(r.RunID))
		if most := 1.1*limit(r.RunID) + throttleBurst/float64(1<<20)/r.Disk.Seconds; mibs > most {
			t.Fatalf("run %d read at %.1f MiB/s, above the %.1f its throttle of %.0f MiB/s allows with the kernel's burst: the throttle did not take effect",
				r.RunID, mibs, most, limit(r.RunID))
		}
		if r.RunID == 8 && (mibs < 0.85*limit(8) || mibs > 1.15*limit(8)) {
			t.Fatalf("run 8 read at %.1f MiB/s, not at its throttle of %.0f MiB/s: the throttle did not take effect, or the disk could not deliver even that (a busy machine?)", mibs, limit(8))
		}
	}
	var device, times bool
	for _, f := range findings(a, "drift") {
		device = device || f.Test == "" && strings.Contains(f.Message, "read throughput drifted") && strings.Contains(f.Message, "burst allowance")
		times = times || f.Test == "seqscan" && strings.Contains(f.Message, "times of seqscan drifted")
	}
	if !device || !times {
		t.Errorf("drift of the device %v, of the times %v: %+v", device, times, findings(a, "drift"))
	}
	var bounded, above []int64
	for _, f := range findings(a, "disk-bound") {
		if f.Severity == analyze.Info {
			bounded = append(bounded, f.Runs...)
		} else {
			above = append(above, f.Runs...)
		}
	}
	if !slices.Contains(bounded, 8) || !slices.Contains(above, 1) || slices.Contains(bounded, 1) {
		t.Errorf("bounded %v, above %v; want run 8, throttled to the study's 8 MiB/s, bounded, and run 1, at 64, above", bounded, above)
	}
	// The last run, throttled to the limit, is bounded by it; the first,
	// at three times the limit, is said to be above it.
	if len(a.Disks) != 1 || a.Disks[0].Bounded < 1 {
		t.Errorf("disk: %+v", a.Disks)
	}
}

// TestMatrixSweep: one PostgreSQL 18 server swept over
// effective_io_concurrency with a cold sequential scan: three
// configurations named from their values, the setting applied and
// recorded for each, declared, and a figure of time against its value.
// The data is on a disk of the test's own whose reads are throttled to
// 16 MiB/s, so that each scan lasts about 1.5 s and pg_aios is sampled
// many times during it however fast the machine's disk is.
func TestMatrixSweep(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 256)
	throttle := pgtest.NewThrottle(t, disk)
	throttle.SetRead(t, 16<<20)
	pg18 := pgtest.Start(t, 18, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	loadAccounts(t, pg18)
	cfg := fmt.Sprintf("  - name: pg18\n    dsn: %s\n    start: %s\n    stop: %s\n    matrix: {effective_io_concurrency: [1, 16, 64]}\n",
		pg18.DSN(), throttle.StartCmd(t, pg18), pg18.StopCmd())
	study := "configs:\n" + cfg + `
tests:
  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off}
    sql: select count(*), sum(bid) from accounts
protocol:
  rounds: 2
  cold: ` + coldSteps() + `
disk:
  sample: 20ms
`
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	// pg_aios, sampled during each cold scan, found reads in flight, and
	// more of them with a higher effective_io_concurrency.
	aio := map[string]float64{}
	for _, r := range a.Runs {
		if r.Disk == nil || r.Disk.Seconds < 1 {
			t.Fatalf("run %d (%s) lasted %v: the 16 MiB/s throttle did not take effect", r.RunID, r.Config, r.Disk)
		}
		// Sampled all through the scan (every 20 ms): a sampler held up
		// until the scan ended found nothing.
		if ticks := r.Disk.Seconds / 0.020; float64(r.AIOSamples) < ticks/4 || r.AIOMax < 1 {
			t.Errorf("run %d (%s): pg_aios samples %d, max in flight %v", r.RunID, r.Config, r.AIOSamples, r.AIOMax)
		}
		aio[r.Config] = max(aio[r.Config], r.AIOMax)
	}
	t.Logf("most I/O in flight: %v", aio)
	if aio["pg18.effective_io_concurrency-1"] >= aio["pg18.effective_io_concurrency-16"] {
		t.Errorf("no more I/O in flight with effective_io_concurrency 16 than with 1: %v", aio)
	}
	want := []string{"pg18.effective_io_concurrency-1", "pg18.effective_io_concurrency-16", "pg18.effective_io_concurrency-64"}
	if !slices.Equal(a.Configs, want) || a.Baseline != want[0] {
		t.Fatalf("configs %v, baseline %s; want %v", a.Configs, a.Baseline, want)
	}
	found := false
	for _, s := range a.Settings {
		if s.Name == "effective_io_concurrency" {
			found = s.Declared && s.Values[want[0]] == "1" && s.Values[want[1]] == "16" && s.Values[want[2]] == "64"
		}
	}
	if !found {
		t.Errorf("effective_io_concurrency as recorded: %+v", a.Settings)
	}
	if f := findings(a, "settings"); len(f) != 0 {
		t.Errorf("a declared sweep reported as undeclared: %+v", f)
	}
	var sweep bool
	for _, f := range render.Figures(a) {
		sweep = sweep || f.Name == "sweep-effective_io_concurrency"
	}
	if !sweep {
		t.Error("no figure of the time against effective_io_concurrency")
	}
}

// TestThroughputStudy: pgbench select-only for 10 s per run against
// PostgreSQL 17 and 18, two rounds: QPS from pgbench's own summary, the
// relative QPS table, and the hardware cost per query, checked against
// what the client and the machine can have done.
func TestThroughputStudy(t *testing.T) {
	pg17 := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"))
	pg18 := pgtest.Start(t, 18, pgtest.WithSetting("autovacuum", "off"))
	for _, c := range []*pgtest.Cluster{pg17, pg18} {
		if out, err := exec.Command(c.Pgbench(), "-i", "-s", "5", "-q", c.DSN()).CombinedOutput(); err != nil {
			t.Fatalf("pgbench -i: %v\n%s", err, out)
		}
	}
	study := "configs:\n" + config("pg17", pg17, "") + config("pg18", pg18, "") + `
tests:
  - name: select-only
    pgbench: -S
    clients: 2
    duration: 10s
    warmup: 2s
protocol:
  rounds: 2
disk:
  sample: 1s
`
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	if len(a.Throughputs) != 2 || len(a.Timings) != 0 {
		t.Fatalf("%d throughput groups, %d timings", len(a.Throughputs), len(a.Timings))
	}
	for _, r := range a.Runs {
		tr := r.Throughput
		if tr == nil || tr.QPS <= 0 || tr.Queries <= 0 || tr.DurationS != 10 {
			t.Fatalf("run %d: %+v", r.RunID, tr)
		}
		// pgbench's tps leaves out connecting: its transactions over the
		// 10 s it ran agree with it within a few percent.
		if got := float64(tr.Queries) / tr.DurationS; got < 0.95*tr.QPS || got > 1.05*tr.QPS {
			t.Errorf("run %d: %d transactions in %v s is %.0f/s; pgbench says %.0f tps", r.RunID, tr.Queries, tr.DurationS, got, tr.QPS)
		}
		// The machine has 2 or more CPUs: the CPU time of all queries is at
		// most all of them for the run's duration, and each query costs
		// some, and at least one context switch (client and server take turns).
		cpus := float64(runtime.NumCPU())
		if tr.CPUUsPerQuery == nil || *tr.CPUUsPerQuery <= 0 || *tr.CPUUsPerQuery*float64(tr.Queries) > cpus*1.05*float64(r.Disk.Seconds)*1e6 {
			t.Errorf("run %d: CPU per query %v µs, %d queries, %v s", r.RunID, tr.CPUUsPerQuery, tr.Queries, r.Disk.Seconds)
		}
		if tr.CtxSwPerQuery == nil || *tr.CtxSwPerQuery < 1 {
			t.Errorf("run %d: context switches per query %v", r.RunID, tr.CtxSwPerQuery)
		}
		if tr.ReadsPerQuery == nil || tr.KBReadPerQuery == nil {
			t.Errorf("run %d: no disk cost per query", r.RunID)
		}
	}
	// Long form: one row per configuration, pg17 the baseline at 1.
	rel := a.RelativeQPSTable()
	config, ratio, significant := rel.Index("config"), rel.Index("ratio"), rel.Index("significant")
	if len(rel.Rows) != 2 || rel.Rows[0][config] != "pg17" || rel.Rows[0][ratio] != 1.0 || rel.Rows[1][config] != "pg18" {
		t.Fatalf("relative QPS %+v", rel.Rows)
	}
	if v, ok := rel.Rows[1][ratio].(float64); !ok || v < 0.3 || v > 3 {
		t.Errorf("pg18's QPS relative to pg17: %v", rel.Rows[1][ratio])
	}
	// Two rounds are too few for a test: the difference is marked as
	// within the noise, and the rounds guard says so.
	if f := findings(a, "rounds"); len(f) != 1 || !strings.Contains(f[0].Message, "select-only on pg18 (n=2)") {
		t.Errorf("rounds: %+v", f)
	}
	if rel.Rows[1][significant] != false {
		t.Errorf("relative QPS significant %v, want false (the ~ of two rounds)", rel.Rows[1][significant])
	}
}

// TestThroughputSweep: pgbench select-only over a matrix of
// effective_io_concurrency: the sweep figure plots QPS.
func TestThroughputSweep(t *testing.T) {
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"))
	if out, err := exec.Command(pg.Pgbench(), "-i", "-s", "1", "-q", pg.DSN()).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	study := "configs:\n" + config("pg17", pg, "    matrix: {effective_io_concurrency: [1, 16, 64]}\n") + `
tests:
  - name: select-only
    pgbench: -S
    duration: 2s
protocol:
  rounds: 1
`
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	if len(a.Throughputs) != 3 {
		t.Fatalf("%d throughput groups, want 3", len(a.Throughputs))
	}
	found := false
	for _, f := range render.Figures(a) {
		if f.Name == "sweep-effective_io_concurrency" {
			found = f.Title == "Median QPS against effective_io_concurrency" && strings.HasPrefix(f.Caption, "Median QPS of each test")
		}
	}
	if !found {
		t.Error("no figure of QPS against effective_io_concurrency")
	}
}
