package analyze_test

// pg_aios sampled during each run and EXPLAIN ANALYZE's figures per run,
// collected against real PostgreSQL 17 and 18 servers.

import (
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// TestAIOSAndExplainAnalyze: a cold scan and a 0.4 s sleep on 17, 18
// (io_method worker, its default) and 18 with io_method sync, with EXPLAIN
// ANALYZE after the scan, track_io_timing on for 18 and off for 17, disk snapshots every 5 s (so
// no run has a disk sample) and pg_aios at its default 50 ms.
// shared_buffers is 16 MB, so the 25 MiB table is scanned through a ring
// of buffers and EXPLAIN ANALYZE, after the timed scan, reads it again.
func TestAIOSAndExplainAnalyze(t *testing.T) {
	opts := []pgtest.Option{pgtest.WithSetting("autovacuum", "off"), pgtest.WithSetting("shared_buffers", "16MB")}
	pg17 := pgtest.Start(t, 17, opts...)
	pg18 := pgtest.Start(t, 18, opts...)
	pg18sync := pgtest.Start(t, 18, append(opts, pgtest.WithSetting("io_method", "sync"))...)
	for _, c := range []*pgtest.Cluster{pg17, pg18, pg18sync} {
		loadAccounts(t, c)
	}
	timing := "    settings: {track_io_timing: on}\n"
	study := "configs:\n" + config("pg17", pg17, "") + config("pg18", pg18, timing) + config("pg18-sync", pg18sync, timing) + `
tests:
  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off, max_parallel_workers_per_gather: 0}
    sql: select count(*), sum(bid) from accounts
    explain_analyze: true
  - name: sleep
    sql: select pg_sleep(0.4)
protocol:
  rounds: 1
  cold: ` + coldSteps() + `
disk:
  sample: 5s
`
	dir := collectStudy(t, study)
	a := analyse(t, dir, analyze.Options{})
	tables := map[string]table.Table{}
	for _, tb := range a.Tables() {
		tables[tb.Name] = tb
	}
	checkAIOS(t, a, tables["aios"])
	checkEmptySamples(t, dir, a)
	checkExplainAnalyze(t, a, tables["explain_analyze"])
}

// cells are a table's rows by run, each as its values by column key.
func cells(t *testing.T, tb table.Table) map[int64]map[string]any {
	t.Helper()
	if tb.Name == "" {
		t.Fatal("no such table")
	}
	out := map[int64]map[string]any{}
	for _, row := range tb.Rows {
		m := map[string]any{}
		for i, c := range tb.Columns {
			m[c.Key] = row[i]
		}
		out[m["run"].(int64)] = m
	}
	return out
}

// checkAIOS: 18's runs were sampled every 50 ms although they were
// shorter than the disk interval; the sleep found nothing in flight, and
// says 0 with its samples; 17's runs are blank.
func checkAIOS(t *testing.T, a *analyze.Analysis, tb table.Table) {
	rows := cells(t, tb)
	for _, r := range a.Runs {
		c := rows[r.RunID]
		t.Logf("aios run %d %s %s (%.0f ms): %v", r.RunID, r.Test, r.Config, r.TimeMs, c)
		if r.Config == "pg17" {
			for _, k := range []string{"samples", "every_ms", "median_in_flight", "max_in_flight", "max_by_state"} {
				if c[k] != nil {
					t.Errorf("run %d (17): %s is %v, want blank", r.RunID, k, c[k])
				}
			}
			continue
		}
		// A run shorter than two intervals may end before the first
		// sample (a cold scan of 45 ms on an idle machine): it is blank,
		// not 0. The 400 ms sleeps always have samples.
		if r.Disk == nil || r.Disk.Seconds >= 5 || (c["every_ms"] != 50.0 && (r.TimeMs >= 100 || c["samples"] != nil)) {
			t.Errorf("run %d: disk %+v, every %v", r.RunID, r.Disk, c["every_ms"])
		}
		if r.Test == "sleep" {
			// 400 ms at 50 ms: 8 ticks, some lost to a busy machine.
			if n, _ := c["samples"].(int64); n < 4 || c["median_in_flight"] != 0.0 || c["max_in_flight"] != 0.0 || c["max_by_state"] != nil {
				t.Errorf("run %d (sleep on 18): %v; want 4 samples or more, all 0", r.RunID, c)
			}
		}
	}
}

// checkEmptySamples: an empty sample is in the capture as a row saying
// zero in flight.
func checkEmptySamples(t *testing.T, dir string, a *analyze.Analysis) {
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := samples.Read[samples.Stat](r)
	if err != nil {
		t.Fatal(err)
	}
	sleep := map[int64]bool{}
	for _, run := range a.Runs {
		sleep[run.RunID] = run.Test == "sleep" && run.Config == "pg18"
	}
	empty := 0
	for _, s := range stats {
		if s.View == "pg_aios" && sleep[s.RunID] {
			if !strings.Contains(s.JSON, `"every_ms":50,"state":null,"n":0}`) {
				t.Errorf("a sample of the sleep: %s", s.JSON)
			}
			empty++
		}
	}
	if empty < 4 {
		t.Errorf("%d empty samples recorded during the sleep", empty)
	}
}

// checkExplainAnalyze: the scans' plans give their shared reads and
// times; 18's I/O read time is there and marked as a wait (worker) or a
// read (sync), 17's is blank (track_io_timing off) and the note names its
// run.
func checkExplainAnalyze(t *testing.T, a *analyze.Analysis, tb table.Table) {
	rows := cells(t, tb)
	t.Logf("explain-analyze note: %s", tb.Note)
	var scans int
	for _, r := range a.Runs {
		c, ok := rows[r.RunID]
		if r.Test != "seqscan" {
			if ok {
				t.Errorf("run %d (%s) has an EXPLAIN ANALYZE row", r.RunID, r.Test)
			}
			continue
		}
		scans++
		t.Logf("explain-analyze run %d %s: %v", r.RunID, r.Config, c)
		// The table is about 3,300 blocks; with a 16 MB shared_buffers
		// the scan's ring holds 32 of them.
		if n, _ := c["shared_read"].(int64); n < 3000 {
			t.Errorf("run %d: shared read %v blocks", r.RunID, c["shared_read"])
		}
		if p, _ := c["execution_ms"].(float64); p <= 0 || c["planning_ms"] == nil || c["wal_records"] == nil {
			t.Errorf("run %d: execution %v ms, planning %v, WAL records %v", r.RunID, c["execution_ms"], c["planning_ms"], c["wal_records"])
		}
		switch r.Config {
		case "pg18", "pg18-sync":
			method, is := "worker", "waiting"
			if r.Config == "pg18-sync" {
				method, is = "sync", "reading"
			}
			if ms, _ := c["io_read_ms"].(float64); ms <= 0 || c["io_method"] != method || c["io_time_is"] != is {
				t.Errorf("run %d (%s): I/O read %v ms, io_method %v, io time is %v", r.RunID, r.Config, c["io_read_ms"], c["io_method"], c["io_time_is"])
			}
		case "pg17":
			if c["io_read_ms"] != nil || c["io_write_ms"] != nil || c["io_time_is"] != nil || c["io_method"] != nil {
				t.Errorf("run %d (17, track_io_timing off): %v", r.RunID, c)
			}
			if !strings.Contains(tb.Note, "track_io_timing was off in run "+table.RangeText([]int64{r.RunID})+":") {
				t.Errorf("the note does not name run %d: %s", r.RunID, tb.Note)
			}
		}
	}
	if scans != 3 || len(rows) != 3 {
		t.Errorf("%d scans, %d rows", scans, len(rows))
	}
	if !strings.Contains(tb.Note, "Waits, not reads, here: pg18.") {
		t.Errorf("note: %s", tb.Note)
	}
}
