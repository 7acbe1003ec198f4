package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// snippet is a code block of docs/EXPORT.md's "Reading it".
type snippet struct{ lang, code string }

var fence = regexp.MustCompile("(?s)```(python|sql|sh)\n(.*?)```")

func exportSnippets(t *testing.T) []snippet {
	t.Helper()
	doc, err := os.ReadFile("../../docs/EXPORT.md")
	if err != nil {
		t.Fatal(err)
	}
	_, reading, _ := strings.Cut(string(doc), "## Reading it")
	reading, _, _ = strings.Cut(reading, "\n## ")
	var out []snippet
	for _, m := range fence.FindAllStringSubmatch(reading, -1) {
		out = append(out, snippet{m[1], strings.TrimSpace(m[2])})
	}
	return out
}

// timingsOf are the sample's timings as pgstudy's JSON gives them: the
// median and every round's time, by test and configuration.
func timingsOf(t *testing.T, doc []byte) (median map[string]float64, rounds map[string]float64) {
	var d struct {
		Tables []struct {
			Name string           `json:"name"`
			Rows []map[string]any `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	median, rounds = map[string]float64{}, map[string]float64{}
	for _, tb := range d.Tables {
		if tb.Name != "timings" {
			continue
		}
		for _, r := range tb.Rows {
			k := fmt.Sprint(r["test"], "/", r["config"])
			median[k] = r["median_ms"].(float64)
			for i, rd := range r["rounds"].([]any) {
				rounds[fmt.Sprint(k, "/", rd)] = r["round_times_ms"].([]any)[i].(float64)
			}
		}
	}
	return median, rounds
}

// TestExportReaders runs docs/EXPORT.md's pandas, DuckDB and jq snippets
// on the sample capture's export, and checks that each reads pgstudy's
// numbers, typed as numbers: the documented one-liners work, and the
// export is data to the tools users read it with.
func TestExportReaders(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"analyze", sampleCapture, "--format", "csv", "-o", filepath.Join(dir, "results")},
		{"analyze", sampleCapture, "--format", "json", "-o", filepath.Join(dir, "json")},
		{"analyze", sampleCapture, "--format", "json", "--table", "timings", "-o", filepath.Join(dir, "timings")},
	} {
		if code, _, stderr := runInProcess(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	os.Rename(filepath.Join(dir, "json", "analysis.json"), filepath.Join(dir, "analysis.json"))
	os.Rename(filepath.Join(dir, "timings", "analysis.json"), filepath.Join(dir, "timings.json"))
	doc, err := os.ReadFile(filepath.Join(dir, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	median, rounds := timingsOf(t, doc)
	ran := map[string]int{}
	for i, s := range exportSnippets(t) {
		if s.lang == "sh" && strings.HasPrefix(s.code, "pgstudy ") {
			continue // the export itself, made above
		}
		rows, types := runSnippet(t, dir, s)
		ran[s.lang]++
		checkSnippet(t, fmt.Sprintf("snippet %d (%s)", i+1, s.lang), rows, types, median, rounds)
	}
	if ran["python"] < 3 || ran["sql"] < 3 || ran["sh"] < 1 {
		t.Errorf("ran %v snippets; docs/EXPORT.md has fewer than its readers need", ran)
	}
}

// runSnippet runs a snippet in dir and returns the rows it read, as JSON
// objects, and the types its reader gave each column.
func runSnippet(t *testing.T, dir string, s snippet) ([]map[string]any, map[string]string) {
	t.Helper()
	var cmd *exec.Cmd
	switch s.lang {
	case "python":
		py := "/usr/bin/python3"
		if err := exec.Command(py, "-c", "import pandas").Run(); err != nil {
			pgtest.Missing(t, "pandas (Debian's python3-pandas, which scripts/install-deps installs): %v", err)
		}
		// Python's json writes floats exactly (pandas' to_json rounds them).
		// Python's json writes floats exactly (pandas' to_json rounds
		// them); NaN, pandas' unknown, is null.
		cmd = exec.Command(py, "-c", s.code+"\nimport json as _j\nprint(t.dtypes.astype(str).to_json())\n"+
			"print(_j.dumps([{k: None if isinstance(v, float) and v != v else v for k, v in r.items()} for r in t.to_dict(orient='records')]))")
	case "sql":
		cmd = exec.Command("node", "../../scripts/duckdb-query.mjs", dir, s.code)
	case "sh":
		if _, err := exec.LookPath("jq"); err != nil {
			pgtest.Missing(t, "jq (Debian's jq, which scripts/install-deps installs): %v", err)
		}
		cmd = exec.Command("sh", "-c", s.code+" | jq -s -c .")
	}
	if s.lang != "sql" {
		cmd.Dir = dir
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s snippet %q: %v\n%s", s.lang, s.code, err, stderrOf(err))
	}
	var rows []map[string]any
	types := map[string]string{}
	switch s.lang {
	case "python":
		lines := strings.SplitN(string(out), "\n", 2)
		if err := json.Unmarshal([]byte(lines[0]), &types); err != nil {
			t.Fatalf("pandas dtypes %q: %v", lines[0], err)
		}
		err = json.Unmarshal([]byte(lines[1]), &rows)
	case "sql":
		var r struct {
			Columns []struct{ Name, Type string }
			Rows    [][]any
		}
		err = json.Unmarshal(out, &r)
		for _, row := range r.Rows {
			m := map[string]any{}
			for i, c := range r.Columns {
				m[c.Name] = row[i]
				types[c.Name] = c.Type
			}
			rows = append(rows, m)
		}
	case "sh":
		err = json.Unmarshal(out, &rows)
	}
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s snippet %q read no rows (%v): %s", s.lang, s.code, err, out)
	}
	return rows, types
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// checkSnippet compares what a snippet read with pgstudy's numbers: each
// median, or each round's time, to the last bit, and the types its reader
// gave the columns.
func checkSnippet(t *testing.T, what string, rows []map[string]any, types map[string]string, median, rounds map[string]float64) {
	t.Helper()
	numeric := map[string]bool{"float64": true, "int64": true, "DOUBLE": true, "BIGINT": true, "": true}
	for _, col := range []string{"median_ms", "n", "ratio", "time_ms", "round"} {
		if typ, ok := types[col]; ok && !numeric[typ] {
			t.Errorf("%s: %s is typed %s, not as a number", what, col, typ)
		}
	}
	// pandas holds a list in a column of objects.
	if typ, ok := types["rounds"]; ok && typ != "BIGINT[]" && typ != "int64" && typ != "object" {
		t.Errorf("%s: rounds is typed %s", what, typ)
	}
	checked := 0
	for _, r := range rows {
		k := fmt.Sprint(r["test"], "/", r["config"])
		if m, ok := r["median_ms"]; ok {
			checked++
			if v, ok := m.(float64); !ok || v != median[k] {
				t.Errorf("%s: %s median %v, pgstudy %v", what, k, m, median[k])
			}
		}
		round, ok := r["round"]
		if !ok {
			round = r["rounds"]
		}
		v, isTime := r["time_ms"]
		if !isTime {
			v, isTime = r["round_times_ms"]
		}
		if f, ok := v.(float64); ok && isTime {
			checked++
			if want := rounds[fmt.Sprint(k, "/", round)]; math.Abs(f-want) > 0 {
				t.Errorf("%s: %s round %v: %v, pgstudy %v", what, k, round, f, want)
			}
		}
		if ratio, ok := r["ratio"].(float64); ok && !(ratio > 0) {
			t.Errorf("%s: %s ratio %v", what, k, ratio)
		}
	}
	if checked == 0 && len(rows[0]) > 0 && rows[0]["ratio"] == nil {
		t.Errorf("%s: nothing to compare in %v", what, rows[0])
	}
}
