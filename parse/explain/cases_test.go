package explain

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func TestErrors(t *testing.T) {
	jsonFixture := golden.Files(t, "", "pg17-update.json")[0]
	data, err := os.ReadFile(jsonFixture)
	if err != nil {
		t.Fatal(err)
	}
	jsonLines := strings.Split(string(data), "\n")
	truncated := strings.Join(jsonLines[:20], "\n") + "\n"
	vacuum := `INFO:  vacuuming "postgres.public.parent"
INFO:  finished vacuuming "postgres.public.parent": index scans: 0
pages: 0 removed, 5 remain, 5 scanned (100.00% of total)
`
	for _, c := range []struct{ name, source, in, want string }{
		{"empty json", "in.json", "", "in.json: empty input; expected EXPLAIN (FORMAT JSON) output"},
		{"blank json", "in.json", "\n  \n", "in.json: empty input; expected EXPLAIN (FORMAT JSON) output"},
		{"empty text", "in.txt", "", "in.txt: empty input; expected EXPLAIN output"},
		{"psql header only", "in.txt", "QUERY PLAN\n----------\n(0 rows)\n", "in.txt: empty input; expected EXPLAIN output"},
		{"binary json", "in.json", "[\n{\"Plan\x00\": 1}]", "in.json:2: binary data (a NUL byte); expected text"},
		{"binary text", "in.txt", "Seq Scan on t\n\x00\x01\x02", "in.txt:2: binary data (a NUL byte); expected text"},
		{"text given as JSON", "in.json", "\nSeq Scan on t  (cost=0.00..1.00 rows=1 width=4)\n",
			`in.json:2: expected EXPLAIN (FORMAT JSON) output (a JSON array or object), found "Seq"`},
		{"not JSON", "in.json", "[\n  {\"Plan\": {\"Node Type\": \"Seq Scan\",,}}\n]",
			"in.json:2: invalid character ',' looking for beginning of object key string"},
		{"truncated JSON", "in.json", truncated, "in.json:20: unexpected end of JSON input (truncated?)"},
		{"JSON without a plan", "in.json", "[\n  {\"QUERY PLAN\": 1}\n]", `in.json:2: no "Plan" in this object; expected EXPLAIN (FORMAT JSON) output`},
		{"empty JSON array", "in.json", "[]", "in.json:1: empty JSON array; expected a plan"},
		{"JSON of another kind", "in.json", `["a"]`, `in.json:1: expected a JSON object with a "Plan", found the string "a"`},
		{"node without type", "in.json", "[{\"Plan\": {\n\"Total Cost\": 1.0}}]", `in.json:2: plan node without a "Node Type"`},
		{"wrong type", "in.json", "[{\"Plan\": {\"Node Type\": \"Seq Scan\",\n\"Actual Rows\": \"many\"}}]", `in.json:2: "Actual Rows": expected a number, found the string "many"`},
		{"fractional count", "in.json", "[{\"Plan\": {\"Node Type\": \"Seq Scan\",\n\n\"Actual Loops\": 1.5}}]", `in.json:3: "Actual Loops": expected a whole number, found 1.5`},
		{"count beyond int64", "in.json", "[{\"Plan\": {\"Node Type\": \"Seq Scan\", \"WAL Bytes\": 18446744073709551615}}]", `in.json:1: "WAL Bytes": 18446744073709551615 is out of range (at most 9223372036854775807: a count or byte total beyond it is no real plan's)`},
		{"vacuum verbose as text", "vacuum.txt", vacuum,
			`vacuum.txt:1: expected the first line of an EXPLAIN plan (a plan node such as "Seq Scan on t  (cost=...)"), found "INFO:  vacuuming \"postgres.public.parent\""`},
		{"JSON given as text", "in.txt", string(data), `in.txt:1: expected the first line of an EXPLAIN plan (a plan node such as "Seq Scan on t  (cost=...)"), found "["`},
		{"psql error", "in.txt", "ERROR:  relation \"t\" does not exist\nLINE 1: explain select * from t\n",
			`in.txt:1: expected the first line of an EXPLAIN plan (a plan node such as "Seq Scan on t  (cost=...)"), found "ERROR:  relation \"t\" does not exist"`},
	} {
		p, warns, err := parseString(c.source, c.in)
		var se *parse.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: got %v (%T), %v; want a *SyntaxError", c.name, err, err, p)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, err, c.want)
		}
		if p != nil || warns != nil {
			t.Errorf("%s: a plan or warnings with the error", c.name)
		}
	}
}

// TestIOTimingKeys checks that the I/O timing keys of every version
// land in the same fields.
func TestIOTimingKeys(t *testing.T) {
	node := func(keys string) string {
		return `[{"Plan": {"Node Type": "Seq Scan", "Relation Name": "t", ` + keys + `}}]`
	}
	want := Buffers{SharedIOReadTimeMs: parse.Some(1.5), SharedIOWriteTimeMs: parse.Some(2.5)}
	for _, c := range []struct {
		name, source, in string
		want             Buffers
	}{
		{"13-14 JSON", "in.json", node(`"I/O Read Time": 1.5, "I/O Write Time": 2.5`), want},
		{"15-16 JSON", "in.json", node(`"I/O Read Time": 1.5, "I/O Write Time": 2.5, "Temp I/O Read Time": 0.5, "Temp I/O Write Time": 0.25`),
			Buffers{SharedIOReadTimeMs: parse.Some(1.5), SharedIOWriteTimeMs: parse.Some(2.5), TempIOReadTimeMs: parse.Some(0.5), TempIOWriteTimeMs: parse.Some(0.25)}},
		{"17+ JSON", "in.json", node(`"Shared I/O Read Time": 1.5, "Shared I/O Write Time": 2.5, "Local I/O Read Time": 0.000, "Local I/O Write Time": 0.000, "Temp I/O Read Time": 0.5, "Temp I/O Write Time": 0.25`),
			Buffers{SharedIOReadTimeMs: parse.Some(1.5), SharedIOWriteTimeMs: parse.Some(2.5), LocalIOReadTimeMs: parse.Some(0.0), LocalIOWriteTimeMs: parse.Some(0.0), TempIOReadTimeMs: parse.Some(0.5), TempIOWriteTimeMs: parse.Some(0.25)}},
		{"13-14 text", "in.txt", "Seq Scan on t\n  I/O Timings: read=1.500 write=2.500\n", want},
		{"15-16 text", "in.txt", "Seq Scan on t\n  I/O Timings: shared/local read=1.500 write=2.500, temp read=0.500 write=0.250\n",
			Buffers{SharedIOReadTimeMs: parse.Some(1.5), SharedIOWriteTimeMs: parse.Some(2.5), TempIOReadTimeMs: parse.Some(0.5), TempIOWriteTimeMs: parse.Some(0.25)}},
		{"17+ text", "in.txt", "Seq Scan on t\n  I/O Timings: shared read=1.500 write=2.500, temp read=0.500 write=0.250\n",
			Buffers{SharedIOReadTimeMs: parse.Some(1.5), SharedIOWriteTimeMs: parse.Some(2.5), TempIOReadTimeMs: parse.Some(0.5), TempIOWriteTimeMs: parse.Some(0.25)}},
		{"text, zeros left out", "in.txt", "Seq Scan on t\n  I/O Timings: shared read=1.500, local write=3.000\n",
			Buffers{SharedIOReadTimeMs: parse.Some(1.5), SharedIOWriteTimeMs: parse.Some(0.0), LocalIOReadTimeMs: parse.Some(0.0), LocalIOWriteTimeMs: parse.Some(3.0)}},
	} {
		p, warns, err := parseString(c.source, c.in)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v", c.name, err, warns)
		}
		if got := p.Root.Buffers; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, jsonString(got), jsonString(c.want))
		}
	}

	// The fixtures: with track_io_timing on (-io), every node of every
	// version has its shared read and write times, under whichever key the
	// version prints; with it off, none has.
	for _, f := range golden.Files(t, "", "pg*.json") {
		p, _ := parseFixture(t, f)
		if !p.ExecutionTimeMs.Valid {
			continue // no ANALYZE
		}
		_, kase := testCase(f)
		io := strings.HasSuffix(kase, "-io")
		for _, n := range collectNodes(p.Root) {
			if has := n.SharedIOReadTimeMs.Valid && n.SharedIOWriteTimeMs.Valid; has != io {
				t.Errorf("%s: %s has I/O times %v, want %v", f, n.NodeType, has, io)
			}
		}
		if io && (p.PlanningBuffers == nil || !p.PlanningBuffers.SharedIOReadTimeMs.Valid) {
			t.Errorf("%s: no I/O time for planning", f)
		}
	}
	// Reading the table from disk takes time: the -io fixtures' scans of
	// pgbench_accounts say how much, in both formats.
	for _, f := range append(golden.Files(t, "", "pg*-parallel-seqscan-io.json"), golden.Files(t, "", "pg*-parallel-seqscan-io.txt")...) {
		p, _ := parseFixture(t, f)
		for _, n := range collectNodes(p.Root) {
			if n.RelationName == "pgbench_accounts" && (n.SharedReadBlocks.V == 0 || n.SharedIOReadTimeMs.V == 0) {
				t.Errorf("%s: scan without reads or read time: %s", f, jsonString(n.Buffers))
			}
		}
	}
}

// TestActualRows checks 18's decimal actual rows (a parallel scan's
// rows per loop are a fraction) against the whole numbers of 17.
func TestActualRows(t *testing.T) {
	for _, c := range []struct {
		glob string
		want float64
	}{
		{"pg18-parallel-seqscan.json", 33333.33},
		{"pg18-parallel-seqscan.txt", 33333.33},
		{"pg17-parallel-seqscan.json", 33333},
		{"pg17-parallel-seqscan.txt", 33333},
	} {
		p, _ := parseFixture(t, golden.Files(t, "", c.glob)[0])
		var scan *Node
		for _, n := range collectNodes(p.Root) {
			if n.NodeType == "Seq Scan" {
				scan = n
			}
		}
		if scan == nil || scan.ActualRows != parse.Some(c.want) || scan.ActualLoops != parse.Some[int64](3) {
			t.Errorf("%s: seq scan %s, want %v rows per loop, 3 loops", c.glob, jsonString(scan), c.want)
		}
	}
	for _, c := range []struct{ name, source, in string }{
		{"json", "in.json", `[{"Plan": {"Node Type": "Seq Scan", "Actual Rows": 1234.00, "Actual Loops": 1}}]`},
		{"text", "in.txt", "Seq Scan on t (actual rows=1234.00 loops=1)\n"},
	} {
		p, _, err := parseString(c.source, c.in)
		if err != nil {
			t.Fatal(err)
		}
		if p.Root.ActualRows != parse.Some(1234.0) || p.Root.ActualLoops != parse.Some[int64](1) {
			t.Errorf("%s: actual rows %v", c.name, jsonString(p.Root))
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
		n  int64
	}{{"3", true, 3}, {"3.00", true, 3}, {"-2", true, -2}, {"1.5", false, 0}, {"1e3", true, 1000}, {"x", false, 0}, {"1e300", false, 0}} {
		n, ok := atoi(c.in)
		if ok != c.ok || n != c.n {
			t.Errorf("exInt(%q) = %d, %v", c.in, n, ok)
		}
	}
	if _, _, err := JSON(strings.NewReader(`[{"Plan": {"Node Type": "x", "Total Cost": 1e999}}]`), "in.json"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("huge cost: %v", err)
	}
}

// TestKeepsUnknown checks that nothing vanishes: unknown JSON keys
// land in Extra, unknown text lines are warnings with their line.
func TestKeepsUnknown(t *testing.T) {
	const js = `[
  {
    "Plan": {
      "Node Type": "Seq Scan",
      "Relation Name": "t",
      "Filter": "(a > 1)",
      "Future Key": {"Nested": [1, 2.50]},
      "Plans": []
    },
    "Query Identifier": 1234567890123456789,
    "Future Top": true
  }
]`
	p, warns, err := JSON(strings.NewReader(js), "in.json")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if got, want := jsonString(p.Root.Extra), `{"Filter":"(a > 1)","Future Key":{"Nested":[1,2.50]}}`; got != want {
		t.Errorf("node extra %s, want %s", got, want)
	}
	if got, want := jsonString(p.Extra), `{"Future Top":true,"Query Identifier":1234567890123456789}`; got != want {
		t.Errorf("plan extra %s, want %s", got, want)
	}

	const text = `Seq Scan on t  (cost=0.00..1.00 rows=1 width=4)
  Filter: (a > 1)
  Future Detail: 42
  something else
Planning Time: 0.1 ms
Future Summary: 7
`
	p, warns, err = Text(strings.NewReader(text), "in.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonString(p.Root.Extra), `{"Filter":"(a > 1)"}`; got != want {
		t.Errorf("node extra %s, want %s", got, want)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		`in.txt:3: unknown detail line: "  Future Detail: 42"`,
		`in.txt:4: detail line not understood: "  something else"`,
		`in.txt:6: not understood: "Future Summary: 7"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got %q\nwant %q", got, want)
	}
}

// TestSummary reads the lines after the tree: JIT (a PostgreSQL 15
// server's, and 17's with Deform), triggers, planning memory and
// serialization (17+).
func TestSummary(t *testing.T) {
	const text = `Update on child  (cost=0.29..10.05 rows=0 width=0) (actual time=4.418..4.419 rows=0.00 loops=1)
  Buffers: shared hit=1272
  WAL: records=496 bytes=32329 buffers full=2
  ->  Index Scan using child_pkey on child  (cost=0.29..10.05 rows=101 width=10) (actual time=0.047..0.097 rows=99.00 loops=1)
        Index Cond: (id < 100)
Settings: search_path = '"$user", public', work_mem = '64kB'
Planning:
  Buffers: shared hit=187
  Memory: used=24kB  allocated=32kB
Planning Time: 1.555 ms
Trigger t1: time=0.709 calls=99
Trigger RI_ConstraintTrigger_c_16444 for constraint child_pid_fkey on child: time=1.000 calls=10
JIT:
  Functions: 11
  Options: Inlining false, Optimization false, Expressions true, Deforming true
  Timing: Generation 16.533 ms (Deform 2.000 ms), Inlining 0.000 ms, Optimization 14.551 ms, Emission 143.849 ms, Total 174.933 ms
Serialization: time=0.005 ms  output=1kB  format=text
  Buffers: shared hit=3
Execution Time: 4.675 ms
`
	p, warns, err := Text(strings.NewReader(text), "in.txt")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	want := `{"format":"text","root":{"node_type":"ModifyTable","operation":"Update","parallel_aware":false,"relation_name":"child","alias":"child","startup_cost":0.29,"total_cost":10.05,"plan_rows":0,"plan_width":0,"actual_startup_time_ms":4.418,"actual_total_time_ms":4.419,"actual_rows":0,"actual_loops":1,"shared_hit_blocks":1272,"shared_read_blocks":0,"shared_dirtied_blocks":0,"shared_written_blocks":0,"local_hit_blocks":0,"local_read_blocks":0,"local_dirtied_blocks":0,"local_written_blocks":0,"temp_read_blocks":0,"temp_written_blocks":0,"wal_records":496,"wal_fpi":0,"wal_bytes":32329,"wal_buffers_full":2,"plans":[{"node_type":"Index Scan","parent_relationship":"Outer","parallel_aware":false,"relation_name":"child","alias":"child","index_name":"child_pkey","startup_cost":0.29,"total_cost":10.05,"plan_rows":101,"plan_width":10,"actual_startup_time_ms":0.047,"actual_total_time_ms":0.097,"actual_rows":99,"actual_loops":1,"extra":{"Index Cond":"(id < 100)"}}]},"settings":{"search_path":"\"$user\", public","work_mem":"64kB"},"planning_time_ms":1.555,"planning_buffers":{"shared_hit_blocks":187,"shared_read_blocks":0,"shared_dirtied_blocks":0,"shared_written_blocks":0,"local_hit_blocks":0,"local_read_blocks":0,"local_dirtied_blocks":0,"local_written_blocks":0,"temp_read_blocks":0,"temp_written_blocks":0},"planning_memory_used_kb":24,"planning_memory_allocated_kb":32,"execution_time_ms":4.675,"triggers":[{"name":"t1","time_ms":0.709,"calls":99},{"name":"RI_ConstraintTrigger_c_16444","constraint_name":"child_pid_fkey","relation":"child","time_ms":1,"calls":10}],"jit":{"functions":11,"inlining":false,"optimization":false,"expressions":true,"deforming":true,"generation_ms":16.533,"deform_ms":2,"inlining_ms":0,"optimization_ms":14.551,"emission_ms":143.849,"total_ms":174.933},"serialization":{"time_ms":0.005,"output_kb":1,"format":"text","shared_hit_blocks":3,"shared_read_blocks":0,"shared_dirtied_blocks":0,"shared_written_blocks":0,"local_hit_blocks":0,"local_read_blocks":0,"local_dirtied_blocks":0,"local_written_blocks":0,"temp_read_blocks":0,"temp_written_blocks":0}}`
	if got := jsonString(p); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	// The same in JSON: PostgreSQL 15's JIT, and 17's Generation object.
	const js = `[{"Plan": {"Node Type": "Result"},
  "Triggers": [{"Trigger Name": "t1", "Relation": "child", "Time": 0.709, "Calls": 99}],
  "JIT": {"Functions": 11, "Options": {"Inlining": false, "Optimization": false, "Expressions": true, "Deforming": true},
    "Timing": {"Generation": 16.533, "Inlining": 0.000, "Optimization": 14.551, "Emission": 143.849, "Total": 174.933}},
  "Serialization": {"Time": 0.005, "Output Volume": 1, "Format": "text", "Shared Hit Blocks": 3},
  "Planning": {"Shared Hit Blocks": 187, "Memory Used": 24, "Memory Allocated": 32}}]`
	p, warns, err = JSON(strings.NewReader(js), "in.json")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	want = `{"format":"json","root":{"node_type":"Result"},"planning_buffers":{"shared_hit_blocks":187},"planning_memory_used_kb":24,"planning_memory_allocated_kb":32,"triggers":[{"name":"t1","relation":"child","time_ms":0.709,"calls":99}],"jit":{"functions":11,"inlining":false,"optimization":false,"expressions":true,"deforming":true,"generation_ms":16.533,"inlining_ms":0,"optimization_ms":14.551,"emission_ms":143.849,"total_ms":174.933},"serialization":{"time_ms":0.005,"output_kb":1,"format":"text","shared_hit_blocks":3}}`
	if got := jsonString(p); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	p, _, err = JSON(strings.NewReader(`{"Plan": {"Node Type": "Result"}, "JIT": {"Timing": {"Generation": {"Deform": 2.0, "Total": 16.5}}}}`), "in.json")
	if err != nil || p.JIT.GenerationMs != parse.Some(16.5) || p.JIT.DeformMs != parse.Some(2.0) {
		t.Errorf("17's generation timing: %v %s", err, jsonString(p))
	}
}

// TestWorkers reads per-worker figures (VERBOSE) of a PostgreSQL 18
// server.
func TestWorkers(t *testing.T) {
	const text = `Finalize GroupAggregate  (cost=1170.35..1175.30 rows=100 width=12) (actual time=100.657..112.186 rows=100.00 loops=1)
  Output: b, count(*)
  Group Key: t2.b
  Buffers: shared hit=555
  ->  Gather Merge  (cost=1170.35..1173.10 rows=240 width=12) (actual time=100.641..112.149 rows=200.00 loops=1)
        Output: b, (PARTIAL count(*))
        Workers Planned: 2
        Workers Launched: 2
        Buffers: shared hit=555
        ->  Sort  (cost=1170.32..1170.57 rows=100 width=12) (actual time=35.210..35.216 rows=66.67 loops=3)
              Output: b, (PARTIAL count(*))
              Sort Key: t2.b
              Sort Method: quicksort  Memory: 28kB
              Buffers: shared hit=555
              Worker 0:  actual time=9.589..9.590 rows=0.00 loops=1
                Sort Method: quicksort  Memory: 25kB
                Buffers: shared hit=7
              Worker 1:  actual time=16.011..16.018 rows=100.00 loops=1
                Sort Method: quicksort  Memory: 28kB
                Buffers: shared hit=73
              ->  Parallel Seq Scan on public.t2  (cost=0.00..957.67 rows=41667 width=4) (actual time=0.073..17.683 rows=33333.33 loops=3)
                    Output: a, b, c
                    Buffers: shared hit=541
                    Worker 0:  actual time=0.004..0.004 rows=0.00 loops=1
                    Worker 1:  actual time=0.177..14.483 rows=12210.00 loops=1
                      Buffers: shared hit=66
Planning Time: 6.804 ms
Execution Time: 112.998 ms
`
	p, warns, err := Text(strings.NewReader(text), "in.txt")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	nodes := collectNodes(p.Root)
	srt, scan := nodes[2], nodes[3]
	if got, want := jsonString(srt.Workers), `[{"worker_number":0,"actual_startup_time_ms":9.589,"actual_total_time_ms":9.59,"actual_rows":0,"actual_loops":1,"shared_hit_blocks":7,"shared_read_blocks":0,"shared_dirtied_blocks":0,"shared_written_blocks":0,"local_hit_blocks":0,"local_read_blocks":0,"local_dirtied_blocks":0,"local_written_blocks":0,"temp_read_blocks":0,"temp_written_blocks":0,"extra":{"Memory":"25kB","Sort Method":"quicksort"}},{"worker_number":1,"actual_startup_time_ms":16.011,"actual_total_time_ms":16.018,"actual_rows":100,"actual_loops":1,"shared_hit_blocks":73,"shared_read_blocks":0,"shared_dirtied_blocks":0,"shared_written_blocks":0,"local_hit_blocks":0,"local_read_blocks":0,"local_dirtied_blocks":0,"local_written_blocks":0,"temp_read_blocks":0,"temp_written_blocks":0,"extra":{"Memory":"28kB","Sort Method":"quicksort"}}]`; got != want {
		t.Errorf("sort's workers\n got %s\nwant %s", got, want)
	}
	if len(scan.Workers) != 2 || scan.Workers[0].SharedHitBlocks.Valid || scan.Workers[1].SharedHitBlocks != parse.Some[int64](66) || scan.Workers[1].ActualRows != parse.Some(12210.0) {
		t.Errorf("scan's workers %s", jsonString(scan.Workers))
	}
	if scan.Schema != "public" || scan.RelationName != "t2" || scan.Alias != "t2" || srt.SharedHitBlocks != parse.Some[int64](555) {
		t.Errorf("nodes %s", jsonString(nodes))
	}
}

// TestFurtherStatements checks that a second statement's plan (a
// rule can rewrite one statement into several) is a warning, not lost.
func TestFurtherStatements(t *testing.T) {
	js := "[\n  {\"Plan\": {\"Node Type\": \"Result\"}},\n  {\"Plan\": {\"Node Type\": \"Seq Scan\"}}\n]\n(2 rows)"
	p, warns, err := JSON(strings.NewReader(js), "in.json")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		`in.json:3: plan of statement 2 not returned (only the first statement's is): "  {\"Plan\": {\"Node Type\": \"Seq Scan\"}}"`,
		`in.json:5: text after the JSON plan, ignored: "(2 rows)"`,
	}
	if p.Shape() != "Result" || !reflect.DeepEqual(got, want) {
		t.Errorf("shape %q, warnings\n got %q\nwant %q", p.Shape(), got, want)
	}

	text := "Result  (cost=0.00..0.01 rows=1 width=4)\n\nSeq Scan on t  (cost=0.00..1.00 rows=1 width=4)\n"
	p, warns, err = Text(strings.NewReader(text), "in.txt")
	if err != nil {
		t.Fatal(err)
	}
	if p.Shape() != "Result" || len(warns) != 1 || warns[0].Line != 3 {
		t.Errorf("shape %q, warnings %v", p.Shape(), warns)
	}
}
