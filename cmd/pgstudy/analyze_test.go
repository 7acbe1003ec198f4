package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestAnalyzeAndCheck collects a small real study in which configuration
// b answers from the index where a scans the table, then reads it with
// analyze in each format and with check.
func TestAnalyzeAndCheck(t *testing.T) {
	pg := pgtest.Start(t, 17)
	pg.SQL(t, "create table t (i int primary key, v int); insert into t select g, g % 7 from generate_series(1, 20000) g")
	pg.SQL(t, "vacuum analyze t")
	study := quickStudy(t, pg, 3, "")
	text, _ := os.ReadFile(study)
	text = []byte(strings.Replace(string(text), "    dsn: "+pg.DSN()+"\ntests:", "    dsn: "+pg.DSN()+"\n    settings: {enable_seqscan: off}\ntests:", 1))
	text = []byte(strings.Replace(string(text), "    sql: select pg_sleep(0.02)", "    sql: select count(*) from t\n    expect_plan: Seq Scan", 1))
	os.WriteFile(study, text, 0o644)
	capture := filepath.Join(t.TempDir(), "capture")
	if code, _, stderr := runInProcess("collect", study, "-o", capture, "--quiet"); code != 0 {
		t.Fatalf("collect: exit %d: %s", code, stderr)
	}

	t.Run("check", func(t *testing.T) { checkPlanDiffers(t, capture) })
	t.Run("markdown", func(t *testing.T) { analyzeMarkdown(t, capture) })
	t.Run("json", func(t *testing.T) { analyzeJSON(t, capture) })
	dir := analyzeCSV(t, capture)

	// Mistakes in the command line.
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"analyze"}, exitUsage, "analyze needs at least one capture folder"},
		{[]string{"analyze", capture, "--baseline", "nope"}, exitUsage, `baseline "nope" is not a configuration of the captures (they have a, b)`},
		{[]string{"analyze", capture, "--rounds", "3-1"}, exitUsage, `--rounds "3-1": expected`},
		{[]string{"analyze", capture, "--exclude", "colour=blue"}, exitUsage, `unknown key "colour"`},
		{[]string{"analyze", capture, "--format", "xml"}, exitUsage, `--format "xml": expected one of md, csv, json, benchfmt`},
		{[]string{"analyze", filepath.Join(dir, "missing")}, exitError, "missing"},
		{[]string{"check", dir}, exitError, "is not a pgstudy capture"},
	} {
		code, _, stderr := runInProcess(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("pgstudy %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.err)
		}
	}
}

// checkPlanDiffers: check fails on the plan difference, and says why;
// without b only warnings remain, which --strict turns into a failure.
func checkPlanDiffers(t *testing.T, capture string) {
	code, out, stderr := runInProcess("check", capture)
	if code != exitError || !strings.Contains(out, "error   plan-differs [sleep]: the configurations ran different plans for sleep") ||
		!strings.Contains(out, "Index Only Scan using t_pkey on t") || !strings.Contains(out, "6 runs checked: 2 error(s)") ||
		!strings.Contains(stderr, "the guards found errors: 2 finding(s) of error level") {
		t.Errorf("check: exit %d\n%s\n%s", code, out, stderr)
	}
	// Without b the plan is the expected one; only warnings remain (3
	// rounds are too few), which --strict turns into a failure.
	if code, out, _ := runInProcess("check", capture, "--exclude", "config=b"); code != 0 || !strings.Contains(out, "warning rounds") {
		t.Errorf("check --exclude config=b: exit %d\n%s", code, out)
	}
	if code, _, _ := runInProcess("check", capture, "--exclude", "config=b", "--strict"); code != exitError {
		t.Errorf("check --strict: exit %d, want %d", code, exitError)
	}

}

// analyzeMarkdown: Markdown on standard output.
func analyzeMarkdown(t *testing.T, capture string) {
	code, out, stderr := runInProcess("analyze", capture)
	if code != 0 || !strings.Contains(out, "## Timings") || !strings.Contains(out, "| test | a | b |") ||
		!strings.Contains(out, "| sleep | 1.00 |") || !strings.Contains(out, "| median (ms) |") {
		t.Errorf("analyze: exit %d %s\n%s", code, stderr, out)
	}

}

// analyzeJSON: one document, the timings of a and b with numbers; and two
// captures (here the same one twice, as two hosts of a fleet would be): a
// host column, each host's runs compared within it.
func analyzeJSON(t *testing.T, capture string) {
	code, out, _ := runInProcess("analyze", capture, "--format", "json", "--baseline", "b")
	var doc struct {
		Baseline string `json:"baseline"`
		Tables   []struct {
			Name string           `json:"name"`
			Rows []map[string]any `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("analyze --format json: exit %d, %v", code, err)
	}
	for _, tb := range doc.Tables {
		if tb.Name != "timings" {
			continue
		}
		if len(tb.Rows) != 2 || tb.Rows[0]["config"] != "a" || tb.Rows[0]["n"] != 3.0 {
			t.Errorf("timings rows %v", tb.Rows)
		}
		if m, ok := tb.Rows[0]["median_ms"].(float64); !ok || m <= 0 {
			t.Errorf("median %v", tb.Rows[0]["median_ms"])
		}
	}
	if doc.Baseline != "b" {
		t.Errorf("baseline %q", doc.Baseline)
	}

	// Two captures (here the same one twice, as two hosts of a fleet would
	// be): a host column, each host's runs compared within it.
	code, out, _ = runInProcess("analyze", capture, capture, "--format", "json")
	doc.Tables = nil
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("analyze two captures: exit %d, %v", code, err)
	}
	for _, tb := range doc.Tables {
		if tb.Name == "timings" && (len(tb.Rows) != 4 || tb.Rows[0]["host"] == tb.Rows[3]["host"] || tb.Rows[3]["host"] == nil) {
			t.Errorf("timings of two captures: %v", tb.Rows)
		}
	}

}

// analyzeCSV: CSV into a folder, one file per table, a header of column
// keys. It returns the folder, which is not a capture.
func analyzeCSV(t *testing.T, capture string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runInProcess("analyze", capture, "--format", "csv", "--detail", "-o", dir); code != 0 {
		t.Fatalf("analyze csv: %d %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(dir, "timings.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 3 || recs[0][4] != "median_ms" || recs[0][0] != "host" {
		t.Errorf("timings.csv: %v %v", recs, err)
	}
	for _, name := range []string{"findings", "relative", "disk", "wal", "vacuum", "plans", "settings", "runs", "disk_series"} {
		if _, err := os.Stat(filepath.Join(dir, name+".csv")); err != nil {
			t.Error(err)
		}
	}

	return dir
}
