package gencapture

import (
	"fmt"
	"strings"
)

// testDef is one test of the generated study and what its runs look like.
type testDef struct {
	name   string
	set    [][2]string // session settings, in the order collect sends them (sorted by name)
	sql    string
	expect string // expect_plan
	plan   string // fixture holding the plan's text
	result string // what the pgx client printed for the timed statement
	tag    string // its command tag

	baseMs   float64 // median time on pg17
	sigma    float64 // spread of log(time)
	readMiB  float64 // median bytes read from the device
	bulk     bool    // a scan larger than a quarter of shared_buffers: read through the bulkread ring
	workers  int     // parallel workers sharing the reads with the leader
	walBytes float64 // median WAL written
	hits     int64   // buffer hits of the statement
	dirtied  int64   // pages it dirtied, written at the next shutdown checkpoint
}

// configDef is one configuration: a server of its own.
type configDef struct {
	name     string
	major    int
	port     int
	settings [][2]string // the study's settings for it
	pgOver   [][3]string // pg_settings rows that differ from the fixture: name, setting, source
	factor   map[string]float64
	reqKiB   map[string]float64 // mean size of a device read request, by test
}

// The study: pgbench's tables at scale 20 (2,000,000 rows, a 256 MiB
// pgbench_accounts) with an index on abalance; PostgreSQL 17 against 18 on a
// cold cache, as in collect/example.yaml.
var tests = []testDef{
	{name: "seqscan", set: [][2]string{{"enable_bitmapscan", "off"}, {"enable_indexonlyscan", "off"}, {"enable_indexscan", "off"}},
		sql: "select count(*), sum(abalance) from pgbench_accounts", expect: "Seq Scan", plan: "pg17-plain-seqscan.json",
		result: "count\tsum\n2000000\t0\nSELECT 1\n", tag: "SELECT 1",
		baseMs: 1150, sigma: 0.05, readMiB: 262, bulk: true, hits: 40},
	{name: "parallel", set: [][2]string{{"enable_bitmapscan", "off"}, {"enable_indexscan", "off"}, {"max_parallel_workers_per_gather", "2"},
		{"parallel_setup_cost", "0"}, {"parallel_tuple_cost", "0"}},
		sql: "select count(*) from pgbench_accounts", expect: "Seq Scan", plan: "pg17-parallel-seqscan.json",
		result: "count\n2000000\nSELECT 1\n", tag: "SELECT 1",
		baseMs: 830, sigma: 0.07, readMiB: 262, bulk: true, workers: 2, hits: 120},
	{name: "bitmap", set: [][2]string{{"enable_indexscan", "off"}, {"enable_seqscan", "off"}},
		sql: "select sum(abalance) from pgbench_accounts where aid between 1000001 and 1200000", expect: "Bitmap Heap Scan",
		plan: "pg17-bitmap-heapscan.json", result: "sum\n0\nSELECT 1\n", tag: "SELECT 1",
		baseMs: 420, sigma: 0.06, readMiB: 30.5, hits: 560},
	{name: "indexonly", set: [][2]string{{"enable_bitmapscan", "off"}, {"enable_seqscan", "off"}},
		sql: "select count(*) from pgbench_accounts where aid <= 500000", expect: "Index Only Scan",
		plan: "pg17-index-only-scan.json", result: "count\n500000\nSELECT 1\n", tag: "SELECT 1",
		baseMs: 160, sigma: 0.05, readMiB: 11.2, hits: 1400},
	{name: "update", sql: "update pgbench_accounts set abalance = abalance + 1 where aid between 1 and 10000", expect: "Index Scan",
		plan: "pg17-update.json", result: "UPDATE 10000\n", tag: "UPDATE 10000",
		baseMs: 95, sigma: 0.08, readMiB: 1.9, walBytes: 2_150_000, hits: 30_200, dirtied: 210},
}

var configs = []configDef{
	{name: "pg17", major: 17, port: 5417,
		factor: map[string]float64{"seqscan": 1, "parallel": 1, "bitmap": 1, "indexonly": 1, "update": 1},
		reqKiB: map[string]float64{"seqscan": 128, "parallel": 124, "bitmap": 8, "indexonly": 32, "update": 8}},
	{name: "pg17-eic16", major: 17, port: 5427, settings: [][2]string{{"effective_io_concurrency", "16"}, {"maintenance_io_concurrency", "16"}},
		factor: map[string]float64{"seqscan": 1.0, "parallel": 1.005, "bitmap": 0.62, "indexonly": 1, "update": 0.985},
		reqKiB: map[string]float64{"seqscan": 128, "parallel": 124, "bitmap": 12, "indexonly": 32, "update": 8}},
	{name: "pg18", major: 18, port: 5418,
		factor: map[string]float64{"seqscan": 0.74, "parallel": 0.80, "bitmap": 0.55, "indexonly": 0.93, "update": 0.98},
		reqKiB: map[string]float64{"seqscan": 128, "parallel": 128, "bitmap": 64, "indexonly": 40, "update": 8}},
	{name: "pg18-sync", major: 18, port: 5428, settings: [][2]string{{"io_method", "sync"}},
		pgOver: [][3]string{{"io_method", "sync", "configuration file"}},
		factor: map[string]float64{"seqscan": 0.97, "parallel": 0.98, "bitmap": 0.60, "indexonly": 0.99, "update": 0.99},
		reqKiB: map[string]float64{"seqscan": 128, "parallel": 128, "bitmap": 56, "indexonly": 40, "update": 8}},
}

// Tests are the names of the generated study's tests, in its order.
func Tests() []string {
	var names []string
	for _, t := range tests {
		names = append(names, t.name)
	}
	return names
}

// Configs are the names of its configurations, in its order; the first is
// the baseline.
func Configs() []string {
	var names []string
	for _, c := range configs {
		names = append(names, c.name)
	}
	return names
}

// sampleEvery is the study's disk sampling interval, for the YAML only:
// the generator puts Options.Samples snapshots in every run whatever its
// length.
const sampleEvery = "50ms"

// studyYAML is the study file a capture of rounds rounds recorded.
func studyYAML(rounds int) string {
	var b strings.Builder
	b.WriteString(`# Generated by analyze/internal/gencapture: PostgreSQL 17 against 18 on a cold cache,
# pgbench's tables at scale 20 with an index on abalance.
name: pg17-vs-pg18-cold-scale20
client: pgx

configs:
`)
	for _, c := range configs {
		fmt.Fprintf(&b, "  - name: %s\n    dsn: postgres://postgres@127.0.0.1:%d/bench\n    start: podman start %s\n    stop: podman stop %s\n",
			c.name, c.port, c.name, c.name)
		if len(c.settings) > 0 {
			b.WriteString("    settings:\n")
			for _, s := range c.settings {
				fmt.Fprintf(&b, "      %s: %s\n", s[0], s[1])
			}
		}
	}
	b.WriteString("\ntests:\n")
	for _, t := range tests {
		fmt.Fprintf(&b, "  - name: %s\n", t.name)
		if len(t.set) > 0 {
			b.WriteString("    set:\n")
			for _, s := range t.set {
				fmt.Fprintf(&b, "      %s: %s\n", s[0], s[1])
			}
		}
		fmt.Fprintf(&b, "    sql: %s\n    expect_plan: %s\n", t.sql, t.expect)
	}
	fmt.Fprintf(&b, `
protocol:
  rounds: %d
  order: rotate
  cold: [stop-all, drop-caches, start]
  timeout: 30m

disk:
  devices: [vda]
  sample: %s
`, rounds, sampleEvery)
	return b.String()
}
