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

// duckQuery runs SQL with DuckDB (scripts/duckdb-query.mjs) in dir and
// returns its rows as objects and its columns' types.
func duckQuery(t *testing.T, dir, sql string) ([]map[string]any, map[string]string) {
	t.Helper()
	out, err := exec.Command("node", "../../scripts/duckdb-query.mjs", dir, sql).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "install-deps") {
			pgtest.Missing(t, "DuckDB is not installed: %s", out)
		}
		t.Fatalf("duckdb: %v: %s\n%s", err, out, sql)
	}
	var r struct {
		Columns []struct{ Name, Type string }
		Rows    [][]any
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	var rows []map[string]any
	for _, row := range r.Rows {
		m := map[string]any{}
		for i, c := range r.Columns {
			m[c.Name] = row[i]
		}
		rows = append(rows, m)
	}
	for _, c := range r.Columns {
		types[c.Name] = c.Type
	}
	return rows, types
}

// fleetQueries are the SQL blocks of docs/CAPTURE.md's "Fleet queries".
func fleetQueries(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/CAPTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "## Fleet queries")
	section, _, _ = strings.Cut(section, "\n## ")
	var qs []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(section, -1) {
		qs = append(qs, m[1])
	}
	return qs
}

// buildFleet generates hosts captures of runs runs (seeded apart), and
// publishes each, compacted, into dir/fleet as host-NNN of study bench.
func buildFleet(t *testing.T, dir string, hosts, runs int) string {
	t.Helper()
	fleet := filepath.Join(dir, "fleet")
	for i := range hosts {
		capture := filepath.Join(dir, "captures", fmt.Sprintf("c%03d", i))
		gencapture(t, capture, "-runs", fmt.Sprint(runs), "-samples", "1", "-runs-per-part", "10",
			"-seed", fmt.Sprint(i+1), "-host", fmt.Sprintf("host-%03d", i))
		if code, _, stderr := runInProcess("compact", capture, "--fleet", fleet, "--study", "bench"); code != 0 {
			t.Fatalf("publish %s: %s", capture, stderr)
		}
	}
	return fleet
}

// TestFleetQueries runs docs/CAPTURE.md's fleet queries with DuckDB on a
// generated fleet of 100 hosts and compares every figure with pgstudy
// analyze's of the same fleet: medians of the runs' times, read request
// sizes, WAL.
func TestFleetQueries(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 100 captures")
	}
	dir := t.TempDir()
	fleet := buildFleet(t, dir, 100, 40)
	code, out, stderr := runInProcess("analyze", fleet, "--format", "json")
	if code != 0 {
		t.Fatalf("analyze the fleet: %s", stderr)
	}
	pg := exportRows(t, out)
	if hosts := len(pg["timings"]); hosts != 100*20 {
		t.Errorf("pgstudy's timings have %d rows, want 20 tests and configurations of 100 hosts", hosts)
	}
	queries := fleetQueries(t)
	if len(queries) != 3 {
		t.Fatalf("docs/CAPTURE.md has %d fleet queries, want 3", len(queries))
	}
	checked := map[string]int{}
	for _, q := range queries {
		rows, types := duckQuery(t, dir, q)
		if types["host"] != "VARCHAR" {
			t.Errorf("host is typed %s", types["host"])
		}
		var table, col string
		var keep func(r map[string]any) bool
		switch {
		case types["median_ms"] != "":
			table, col = "timings", "median_ms"
		case types["rareq_sz_bytes"] != "":
			table, col = "disk", "rareq_sz_bytes"
		case types["wal_bytes"] != "":
			table, col = "wal", "wal_bytes"
			keep = func(r map[string]any) bool { return r["source"] == "pg_stat_wal" }
		default:
			t.Fatalf("a fleet query gives none of median_ms, rareq_sz_bytes, wal_bytes: %v", types)
		}
		want := map[string]map[string]any{}
		for _, r := range pg[table] {
			if keep == nil || keep(r) {
				want[fmt.Sprint(r["host"], "/", r["test"], "/", r["config"])] = r
			}
		}
		if len(rows) != len(want) {
			t.Errorf("%s: DuckDB gives %d groups, pgstudy %d", col, len(rows), len(want))
		}
		for _, r := range rows {
			k := fmt.Sprint(r["host"], "/", r["test"], "/", r["config"])
			p, ok := want[k]
			if !ok {
				t.Errorf("%s: %s is not in pgstudy's %s table", col, k, table)
				continue
			}
			d, _ := r[col].(float64)
			v, _ := p[col].(float64)
			if r["n"] != p["n"] || math.Abs(d-v) > 1e-9*math.Max(math.Abs(d), math.Abs(v)) {
				t.Errorf("%s %s: DuckDB n %v %v, pgstudy n %v %v", col, k, r["n"], d, p["n"], v)
				continue
			}
			checked[col]++
		}
	}
	t.Logf("groups that agree: %v", checked)
}

// exportRows are the rows of each table of pgstudy's JSON export.
func exportRows(t *testing.T, doc string) map[string][]map[string]any {
	t.Helper()
	var d struct {
		Tables []struct {
			Name string           `json:"name"`
			Rows []map[string]any `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]any{}
	for _, tb := range d.Tables {
		out[tb.Name] = tb.Rows
	}
	return out
}
