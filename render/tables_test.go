package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// writerCases are tables that have broken a writer, or could: each is
// written as Markdown, CSV and JSON and compared with its golden files
// under testdata/tables/.
var writerCases = []struct {
	name string
	t    table.Table
}{
	{"same-title", table.Table{Name: "disk", Title: "Disk", Note: "Two columns titled merged.",
		Columns: []table.Column{table.Text("device", "device"), table.Num("reads_merged", "merged", ""), table.Num("writes_merged", "merged", "")},
		Rows:    [][]any{{"vda", 12.0, 3.5}, {"vdb", 0.0, 1234.5678}}}},
	{"pivot-names", table.Table{Name: "relative", Title: "Relative times",
		Columns: []table.Column{table.Text("host", "host"), table.Text("test", "test"), table.Text("config", "config"),
			table.Fixed("ratio", "ratio", "", 2), table.Bool("significant", "significant", "", "~")},
		Rows: [][]any{
			{"h1", "seq", "host", 1.0, nil}, {"h1", "seq", "test", 0.5, false}, {"h1", "seq", "setting", 2.25, true},
			{"h1", "idx", "host", 1.0, nil},
			{"h2", "seq", "host", 1.0, nil}, {"h2", "seq", "test", math.NaN(), nil},
		},
		Pivot: &table.Pivot{Keys: []string{"host", "test"}, Name: "config", Names: []string{"host", "test", "setting"}, Cell: []string{"ratio", "significant"}}}},
	// A test named geomean, last, beside the geomean across the tests:
	// two rows in Markdown, told apart by across_tests in CSV and JSON.
	{"geomean-test", table.Table{Name: "relative", Title: "Relative times",
		Columns: []table.Column{table.Text("test", "test"), table.Bool("across_tests", "across tests", "yes", ""),
			table.Text("config", "config"), table.Fixed("ratio", "ratio", "", 2), table.Bool("significant", "significant", "", "~")},
		Rows: [][]any{
			{"seq", false, "a", 1.0, nil}, {"seq", false, "b", 0.5, true},
			{"geomean", false, "a", 1.0, nil}, {"geomean", false, "b", 2.0, true},
			{"geomean", true, "a", 1.0, nil}, {"geomean", true, "b", 1.0, nil},
		},
		Pivot: &table.Pivot{Keys: []string{"test"}, Split: []string{"across_tests"}, Name: "config", Names: []string{"a", "b"}, Cell: []string{"ratio", "significant"}}}},
	{"settings", table.Table{Name: "settings", Title: "Settings that differ",
		Columns: []table.Column{table.Text("setting", "setting"), table.Text("config", "config"), table.Text("value", "value"),
			table.Text("source", "source"), table.Bool("declared", "declared", "yes", "no")},
		Rows: [][]any{
			{"io_method", "declared", "worker", "configuration file", true}, {"io_method", "sources", "sync", nil, true},
			{"work_mem", "declared", "4MB", "default", false},
		},
		Pivot: &table.Pivot{Keys: []string{"setting"}, Name: "config", Names: []string{"declared", "sources"}, Cell: []string{"value"},
			Rest: []string{"declared"}, Gather: []table.Gather{{Key: "source", Title: "sources"}}}}},
	{"values", table.Table{Name: "values", Title: "Every kind, and none",
		Columns: []table.Column{table.Text("name", "name"), table.Int("n", "n", ""), table.Num("time_ms", "time", "ms"),
			table.Fixed("ratio", "ratio", "", 3), {Key: "runs", Title: "runs", Kind: table.Ranges}, {Key: "plan_rounds", Title: "plan rounds", Kind: table.Listed},
			{Key: "round_times_ms", AtKey: "rounds", Title: "rounds", Unit: "ms", Kind: table.Points, Digits: 4}, {Key: "fingerprint", Title: "fingerprint", Width: 4},
			table.Bytes("read_bytes", "read", "MiB"), table.Bytes("rate_bytes_per_s", "rate", "MiB/s"), table.Bytes("wal_bytes", "wal", "B"),
			table.P("p", "p"), {Key: "configs", Title: "configs", Kind: table.Names}, {Key: "value", Title: "value", Kind: table.Plain, Empty: true}},
		Rows: [][]any{
			{"a|b\nc, \"quoted\" é 日本", int64(3), 0.000123456, 1.0, []int64{5, 1, 2, 3, 9, 10}, []int64{1, 2, 5},
				[]table.Point{{At: 1, Value: 259}, {At: 2, Value: 302.123}}, "abcdef0123", 412090368.0, 1.5 * (1 << 20), int64(127208), 0.0001, []string{"pg17", "a,b"}, ""},
			{nil, nil, math.Inf(1), math.Inf(-1), nil, []int64{}, nil, "ab", nil, nil, nil, 0.0004999, nil, nil},
			{nil, int64(-7), 1e20, 0.5, []int64{4}, nil, []table.Point{{At: 3, Value: math.NaN()}}, nil, 0.0, 1.0, int64(0), 0.0005, []string{}, "x"},
		}}},
	// Seed 003's table: a heading per group of tests, each group a table
	// of its own in Markdown; the geomean, in no group, after them.
	{"groups", table.Table{Name: "relative", Title: "Relative QPS", Group: "group",
		Columns: []table.Column{table.Text("test", "test"), table.Text("group", "group"), table.Bool("across_tests", "across tests", "yes", ""),
			table.Text("config", "config"), table.Fixed("ratio", "ratio", "", 2)},
		Rows: [][]any{
			{"point-query", "point queries", false, "a", 1.0}, {"point-query", "point queries", false, "b", 0.99},
			{"random-points", "point queries", false, "a", 1.0}, {"random-points", "point queries", false, "b", 1.01},
			{"scan", "range queries without aggregation", false, "a", 1.0}, {"scan", "range queries without aggregation", false, "b", 1.02},
			{"insert", "writes", false, "a", 1.0}, {"insert", "writes", false, "b", 0.98},
			{"orphan", "other tests", false, "a", 1.0}, {"orphan", "other tests", false, "b", 1.5},
			{"geomean", "all tests", true, "a", 1.0}, {"geomean", "all tests", true, "b", 1.0},
		},
		Pivot: &table.Pivot{Keys: []string{"test"}, Split: []string{"across_tests"}, Name: "config", Names: []string{"a", "b"}, Cell: []string{"ratio"}}}},
	{"empty", table.Table{Name: "empty", Title: "Nothing", Note: "No rows.", Columns: []table.Column{table.Text("test", "test")}}},
}

func TestWriters(t *testing.T) {
	for _, tc := range writerCases {
		t.Run(tc.name, func(t *testing.T) {
			var md, cs, js bytes.Buffer
			if err := markdownTables(&md, []table.Table{tc.t}, 2); err != nil {
				t.Fatal(err)
			}
			if err := csvTable(&cs, tc.t); err != nil {
				t.Fatal(err)
			}
			if err := jsonTables(&js, []table.Table{tc.t}, map[string]any{"baseline": "host"}); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "tables")
			golden(t, filepath.Join(dir, tc.name+".md"), md.Bytes())
			golden(t, filepath.Join(dir, tc.name+".csv"), cs.Bytes())
			golden(t, filepath.Join(dir, tc.name+".json"), js.Bytes())

			// Machine formats: one field a column, named by its key; each
			// row an object with every key, numbers as numbers.
			recs, err := csv.NewReader(&cs).ReadAll()
			if err != nil || len(recs) != len(tc.t.Rows)+1 {
				t.Fatalf("CSV: %d records, %v", len(recs), err)
			}
			var keys []string
			for _, c := range tc.t.Columns {
				keys = append(keys, c.Keys()...)
			}
			if strings.Join(recs[0], ",") != strings.Join(keys, ",") {
				t.Errorf("CSV header %q, want the keys %q", recs[0], keys)
			}
			var doc struct {
				Tables []struct {
					Rows []map[string]any `json:"rows"`
				} `json:"tables"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Tables) != 1 {
				t.Fatalf("JSON: %v", err)
			}
			for i, r := range doc.Tables[0].Rows {
				if len(r) != len(keys) {
					t.Errorf("JSON row %d has %d keys for %d: %v", i, len(r), len(keys), r)
				}
			}
		})
	}
}

// TestWritersRefuse: a table that breaks the export contract is an error
// in every format, not a lost column or a number typed as text: keys that
// collide or are not snake_case, a key that does not name its unit or
// names one that is not a base unit, a label in a column of numbers, ""
// standing for unknown, a table name that is no key.
func TestWritersRefuse(t *testing.T) {
	for _, tb := range []table.Table{
		{Columns: []table.Column{table.Num("merged", "merged", ""), table.Num("merged", "merged", "")}},
		{Columns: []table.Column{table.Num("read (MiB)", "read", "MiB")}},
		{Columns: []table.Column{table.Num("read_mib", "read", "")}},
		{Columns: []table.Column{table.Bytes("read", "read", "MiB")}},
		{Columns: []table.Column{table.Bytes("read_bytes", "read", "MiB/s")}},
		{Columns: []table.Column{table.Num("median", "median", "ms")}},
		{Columns: []table.Column{{Key: "round_times_ms", AtKey: "round_times_ms", Kind: table.Points}}},
		{Columns: []table.Column{table.Fixed("ratio", "ratio", "", 3)}, Rows: [][]any{{"baseline"}}},
		{Columns: []table.Column{table.Text("test", "test")}, Rows: [][]any{{""}}},
		{Columns: []table.Column{table.Int("n", "n", "")}, Rows: [][]any{{3.0}}},
		{Name: "read-amplification", Columns: []table.Column{table.Text("test", "test")}},
	} {
		if tb.Name == "" {
			tb.Name = "bad"
		}
		tb.Title = "Bad"
		cols := tb.Columns
		var b bytes.Buffer
		for name, err := range map[string]error{
			"markdown": markdownTables(&b, []table.Table{tb}, 2),
			"csv":      csvTable(&b, tb),
			"json":     jsonTables(&b, []table.Table{tb}, nil),
		} {
			if err == nil || !strings.Contains(err.Error(), "table ") {
				t.Errorf("%s of %v: %v, want an error", name, cols, err)
			}
		}
	}
}
