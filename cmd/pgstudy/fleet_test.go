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

// TestFleetContract checks what Spark, Trino and ClickHouse rely on in a
// fleet, with DuckDB and the files themselves: every folder under a table
// is a host=NAME partition holding study=NAME partitions holding parts;
// every column has a type every engine reads the same (no unsigned,
// nested, INT96 or nanosecond type; times as microseconds in UTC); parts
// of two ages, one without the columns added since, union by name. And
// pgstudy reads the fleet as it reads the captures: the same analysis,
// one host per partition, and a part of a fleet chosen by host= or study=.
func TestFleetContract(t *testing.T) {
	dir := t.TempDir()
	fleet := buildFleet(t, dir, 2, 40)
	checkFleetFolders(t, fleet)
	checkFleetTypes(t, dir)
	checkUnionByName(t, dir)
	// pgstudy reads the fleet as the captures, each partition a host.
	_, byFleet, _ := runInProcess("analyze", fleet, "--format", "json")
	_, byCaptures, _ := runInProcess("analyze", filepath.Join(dir, "captures", "c000"), filepath.Join(dir, "captures", "c001"), "--format", "json")
	a, b := exportRows(t, byFleet), exportRows(t, byCaptures)
	for _, table := range []string{"timings", "disk", "wal", "findings"} {
		ja, _ := json.Marshal(a[table])
		jb, _ := json.Marshal(b[table])
		if string(ja) != string(jb) || len(a[table]) == 0 && table != "findings" {
			t.Errorf("%s: the fleet's analysis differs from the captures'", table)
		}
	}
	_, one, _ := runInProcess("analyze", filepath.Join(fleet, "host=host-001"), "--format", "json")
	for _, r := range exportRows(t, one)["timings"] {
		if r["host"] != nil && r["host"] != "host-001" {
			t.Errorf("analyze FLEET/host=host-001 read host %v", r["host"])
		}
	}
	if code, _, stderr := runInProcess("analyze", filepath.Join(fleet, "study=other")); code == 0 || !strings.Contains(stderr, "no capture of") {
		t.Errorf("a study the fleet lacks: exit %d: %s", code, stderr)
	}
	// Publishing again replaces the partition, and says so.
	if code, _, stderr := runInProcess("compact", filepath.Join(dir, "captures", "c000"), "--fleet", fleet, "--study", "bench"); code != 0 {
		t.Fatalf("publish again: %s", stderr)
	} else if !regexp.MustCompile(`: replaced the [1-9][0-9]* files published before as host=\S+, study=bench\n`).MatchString(stderr) {
		t.Errorf("publish again: %q; want the files replaced told", stderr)
	}
	rows, _ := duckQuery(t, dir, `select count(*) as n from read_parquet('fleet/runs/**/*.parquet', hive_partitioning = true)`)
	if rows[0]["n"] != float64(80) {
		t.Errorf("after publishing a host again the fleet has %v runs, want 80", rows[0]["n"])
	}
}

// checkFleetFolders checks that every folder of a table is
// host=NAME/study=NAME/ holding parts, and no staging folder is left.
func checkFleetFolders(t *testing.T, fleet string) {
	err := filepath.WalkDir(fleet, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == fleet {
			return err
		}
		rel, _ := filepath.Rel(fleet, p)
		parts := strings.Split(rel, string(filepath.Separator))
		switch {
		case parts[0] == ".staging":
			t.Errorf("%s left behind by a publish", rel)
		case len(parts) == 2 && !regexp.MustCompile(`^host=[A-Za-z][A-Za-z0-9._-]*$`).MatchString(parts[1]),
			len(parts) == 3 && !regexp.MustCompile(`^study=[A-Za-z][A-Za-z0-9._-]*$`).MatchString(parts[2]),
			len(parts) == 4 && (d.IsDir() || !regexp.MustCompile(`^[rs]\d+(-\d+)?\.parquet$`).MatchString(parts[3])),
			len(parts) > 4:
			t.Errorf("%s is not TABLE/host=NAME/study=NAME/PART", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkFleetTypes checks every column's type as DuckDB reads the fleet,
// and as the parts store it.
func checkFleetTypes(t *testing.T, dir string) {
	// Every table's types, as DuckDB reads them across the fleet.
	allowed := map[string]bool{"VARCHAR": true, "BOOLEAN": true, "INTEGER": true, "BIGINT": true, "DOUBLE": true,
		"TIMESTAMP WITH TIME ZONE": true}
	for _, table := range []string{"runs", "diskstats", "stats", "steps", "statements", "outputs", "plans", "capture", "host",
		"run_facts", "disk_facts", "disk_figures", "disk_intervals", "io_facts"} {
		rows, _ := duckQuery(t, dir, fmt.Sprintf(`select column_name, column_type from (describe select * from
			read_parquet('fleet/%s/**/*.parquet', hive_partitioning = true, hive_types = {'host': VARCHAR, 'study': VARCHAR}, union_by_name = true))`, table))
		for _, r := range rows {
			if !allowed[r["column_type"].(string)] {
				t.Errorf("%s.%s is typed %s", table, r["column_name"], r["column_type"])
			}
		}
		meta, _ := duckQuery(t, dir, fmt.Sprintf(`select distinct name, type, logical_type::varchar as logical from
			parquet_schema('fleet/%s/**/*.parquet') where name <> 'schema'`, table))
		for _, m := range meta {
			logical, _ := m["logical"].(string)
			timestamp := strings.Contains(logical, "Timestamp")
			if m["type"] == "INT96" || timestamp && (!strings.Contains(logical, "MICROS=MicroSeconds()") || !strings.Contains(logical, "isAdjustedToUTC=1")) ||
				strings.Contains(logical, "isSigned=0") || strings.Contains(logical, "ListType") || strings.Contains(logical, "MapType") {
				t.Errorf("%s.%s is stored as %v %s", table, m["name"], m["type"], logical)
			}
		}
	}
}

// checkUnionByName reads, beside the fleet's runs, a part of an older
// age: those of host-000 rewritten without the columns added later
// (wal_insert_*), in another column order.
func checkUnionByName(t *testing.T, dir string) {
	old := filepath.Join(dir, "fleet", "runs", "host=old", "study=bench")
	os.MkdirAll(old, 0o755)
	duckQuery(t, dir, `copy (select devices, run_id, capture_id, config, test, status, kind, client, elapsed_ns
		from read_parquet('fleet/runs/host=host-000/study=bench/*.parquet')) to 'fleet/runs/host=old/study=bench/r000001-000040.parquet' (format parquet)`)
	rows, _ := duckQuery(t, dir, `select host, count(*) as n, count(wal_insert_pos_after) as with_insert, sum(elapsed_ns) as ns
		from read_parquet('fleet/runs/**/*.parquet', hive_partitioning = true, hive_types = {'host': VARCHAR, 'study': VARCHAR}, union_by_name = true)
		group by host order by host`)
	if len(rows) != 3 || rows[2]["host"] != "old" || rows[2]["n"] != float64(40) || rows[2]["with_insert"] != float64(0) ||
		rows[0]["with_insert"] != float64(40) || rows[0]["ns"] != rows[2]["ns"] {
		t.Errorf("parts of two ages by name: %v", rows)
	}
	os.RemoveAll(filepath.Dir(old))

}
