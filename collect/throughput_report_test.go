package collect_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/parse/pgbench"
	"github.com/pgstudy/pgstudy/parse/sysbench"
	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/render/exportcheck"
	"github.com/pgstudy/pgstudy/samples"
)

// checkThroughputReport analyses TestThroughputRuns' capture and writes
// its report: every run has its QPS as its client printed it, both CPU
// figures (the one with irq+softirq equal to a hand computation from the
// /proc/stat probes), in the runs table and in the JSON; the report's
// words say a QPS ratio above 1.00 is faster, and "How we measured" has
// each test's client, arguments, connections, duration, warm-up and the
// command each configuration ran.
func checkThroughputReport(t *testing.T, dir string, runs []samples.Run, outputs []samples.Output, probes []samples.Probe) {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyze.Analyze([]analyze.Input{{Name: dir, Reader: r}}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rt table.Table
	for _, tb := range a.DetailTables() {
		if tb.Name == "runs" {
			rt = tb
		}
	}
	for _, run := range runs {
		row := rowOf(t, rt, run.RunID)
		qps, cpuIRQ := cell(t, rt, row, "qps"), cell(t, rt, row, "cpu_with_irq_us_per_q")
		if want, queries := clientQPS(t, run, outputs); math.Abs(qps-want) > 1e-9*want {
			t.Errorf("run %d: qps %v in the runs table, the client printed %v", run.RunID, qps, want)
		} else if hand := cpuByHand(t, run.RunID, probes, queries); math.Abs(cpuIRQ-hand) > 1e-9*hand {
			t.Errorf("run %d: cpu with irq+softirq %v µs/q, by hand from /proc/stat %v", run.RunID, cpuIRQ, hand)
		}
		if cpu := cell(t, rt, row, "cpu_user_sys_us_per_q"); !(cpu > 0 && cpu <= cpuIRQ) {
			t.Errorf("run %d: cpu user+nice+system %v µs/q, with irq %v", run.RunID, cpu, cpuIRQ)
		}
		if lat := cell(t, rt, row, "latency_avg_ms"); !(lat > 0) {
			t.Errorf("run %d: latency %v", run.RunID, lat)
		}
		if run.Client == "sysbench" && (cell(t, rt, row, "latency_percentile") != 95 || !(cell(t, rt, row, "latency_percentile_ms") > 0)) {
			t.Errorf("run %d: sysbench's 95th percentile missing: %v", run.RunID, rt.Rows[row])
		}
	}
	var js bytes.Buffer
	if err := render.Analysis(&js, "json", a, render.Tables{Detail: true}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || !strings.Contains(js.String(), `"qps"`) || !strings.Contains(js.String(), `"cpu_with_irq_us_per_q"`) {
		t.Errorf("the JSON has no per-run qps or cpu with irq (%v)", err)
	}
	// A real throughput capture's export passes the published schema.
	if err := exportcheck.Validate(js.Bytes()); err != nil {
		t.Errorf("the throughput capture's export breaks the schema: %v", err)
	}
	checkGroups(t, a)
	out := filepath.Join(t.TempDir(), "report")
	if _, _, err := render.Report(out, []string{dir}, a, render.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ratios are QPS against a's (above 1.00 is faster)",
		"- Test select-only: pgbench `-S`, 2 connection(s), measured for 2 s after a warm-up of 1 s (recorded, left out of the results).",
		"  - a, b (pgbench, runs 1, 2): `pgbench -n -c 2 -j 2 -T 2 --progress=1 -S`; warm-up `pgbench -n -c 2 -j 2 -T 1 --progress=1 -S`.",
		"- Test point-select: sysbench `oltp_point_select --tables=1 --table-size=10000`, 1 connection(s), measured for 2 s, with no warm-up.",
		"  - a, b (sysbench, runs 3, 4): `sysbench oltp_point_select --db-driver=pgsql",
		"pgbench (select-only) and sysbench (point-select)", // each configuration's clients, per test
		"cpu/q (user+nice+system) (µs)", "cpu/q (user+nice+system+irq+softirq) (µs)",
	} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q in\n%s", want, md)
		}
	}
	checkMeasuredGolden(t, md)
	for _, wrong := range []string{"below 1.00 is faster", "Test select-only: ``"} {
		if bytes.Contains(md, []byte(wrong)) {
			t.Errorf("report.md says %q", wrong)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, "tables", "runs.csv"))
	if err != nil || !bytes.Contains(csv, []byte(",qps,tps,latency_avg_ms,")) {
		t.Errorf("runs.csv has no per-run QPS: %v %.300s", err, csv)
	}
}

func rowOf(t *testing.T, tb table.Table, run int64) int {
	t.Helper()
	col := tb.Index("run")
	for i, row := range tb.Rows {
		if row[col] == run {
			return i
		}
	}
	t.Fatalf("run %d is not in the runs table", run)
	return 0
}

// cell is a numeric cell; NaN when blank.
func cell(t *testing.T, tb table.Table, row int, key string) float64 {
	t.Helper()
	i := tb.Index(key)
	if i < 0 {
		t.Fatalf("the %s table has no column %s", tb.Name, key)
	}
	switch v := tb.Rows[row][i].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	}
	return math.NaN()
}

// clientQPS is what the run's client printed: pgbench's tps (one query a
// transaction for -S), sysbench's queries per second, and the queries.
func clientQPS(t *testing.T, run samples.Run, outputs []samples.Output) (qps float64, queries int64) {
	t.Helper()
	text := outputText(outputs, run.RunID, "stdout")
	if run.Client == "pgbench" {
		p, _, err := pgbench.Parse(strings.NewReader(text), "run")
		if err != nil || p.Summary == nil || p.Summary.TPS == nil {
			t.Fatalf("run %d: %v", run.RunID, err)
		}
		return *p.Summary.TPS, p.Summary.Transactions
	}
	p, _, err := sysbench.Parse(strings.NewReader(text), "run")
	if err != nil || p.SQL == nil {
		t.Fatalf("run %d: %v", run.RunID, err)
	}
	return p.SQL.QueriesPerS, p.SQL.Queries
}

// cpuByHand is the machine's busy time per query over the run, by hand:
// the first line of /proc/stat after minus before, fields 1-3 (user,
// nice, system) and 6-7 (irq, softirq), in ticks of 10 ms.
func cpuByHand(t *testing.T, run int64, probes []samples.Probe, queries int64) float64 {
	t.Helper()
	ticks := map[string]float64{}
	for _, p := range probes {
		if p.RunID != run || p.Name != "/proc/stat" {
			continue
		}
		f := strings.Fields(strings.SplitN(p.Stdout, "\n", 2)[0])
		for _, i := range []int{1, 2, 3, 6, 7} {
			n, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				t.Fatalf("run %d /proc/stat %s: %q", run, p.Phase, f)
			}
			ticks[p.Phase] += n
		}
	}
	return (ticks["after"] - ticks["before"]) * 10000 / float64(queries)
}

// checkMeasuredGolden compares the throughput tests' lines of "How we
// measured" with their golden file, the server's port masked.
func checkMeasuredGolden(t *testing.T, md []byte) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "- Test ") || strings.HasPrefix(l, "  - ") {
			lines = append(lines, port.ReplaceAllString(l, "${1}PORT"))
		}
	}
	got := []byte(strings.Join(lines, "\n") + "\n")
	path := filepath.Join("testdata", "throughput", "measured.md")
	// -update is defined by the package's internal tests (study_test.go).
	if flag.Lookup("update").Value.(flag.Getter).Get().(bool) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("How we measured's throughput lines differ from %s (-update to accept): %v\n got:\n%s\nwant:\n%s", path, err, got, want)
	}
}

var port = regexp.MustCompile(`(--pgsql-port=)\d+`)

// checkGroups: the test with a group: is under its heading in the
// relative QPS table, the other under "other tests", the geomean under
// "all tests"; the machine formats keep the group as a column.
func checkGroups(t *testing.T, a *analyze.Analysis) {
	t.Helper()
	var md bytes.Buffer
	if err := render.Analysis(&md, "md", a, render.Tables{Only: []string{"relative_qps"}}); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	point, other := strings.Index(text, "### point queries\n"), strings.Index(text, "### other tests\n")
	if point < 0 || other < 0 || strings.Index(text, "| point-select |") < point || strings.Index(text, "| select-only |") < other {
		t.Errorf("relative QPS by group:\n%s", text)
	}
	for _, tb := range a.Tables() {
		if tb.Name != "relative_qps" {
			continue
		}
		g, test := tb.Index("group"), tb.Index("test")
		for _, r := range tb.Rows {
			if want := map[string]any{"point-select": "point queries", "select-only": "other tests"}[r[test].(string)]; r[test] != "geomean" && r[g] != want {
				t.Errorf("%v: group %v, want %v", r[test], r[g], want)
			}
		}
	}
}
