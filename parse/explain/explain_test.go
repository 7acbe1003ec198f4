package explain

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// goldenPlan is what a fixture's golden file holds.
type goldenPlan struct {
	Shape       string          `json:"shape"`
	Fingerprint string          `json:"fingerprint"`
	Warnings    []parse.Warning `json:"warnings"`
	Plan        *Plan           `json:"plan"`
}

// parseFixture parses a fixture with the parser its extension names.
func parseFixture(t testing.TB, path string) (*Plan, []parse.Warning) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, warns, err := parseString(path, string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p, warns
}

func parseString(source, s string) (*Plan, []parse.Warning, error) {
	if strings.HasSuffix(source, ".json") {
		return JSON(strings.NewReader(s), source)
	}
	return Text(strings.NewReader(s), source)
}

func TestGolden(t *testing.T) {
	files := append(golden.Files(t, "", "pg*.json"), golden.Files(t, "", "pg*.txt")...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, warns := parseFixture(t, f)
			// Real servers' output holds nothing these parsers do not know.
			for _, w := range warns {
				t.Errorf("warning: %s", w)
			}
			if warns == nil {
				warns = []parse.Warning{}
			}
			golden.Check(t, f, goldenPlan{Shape: p.Shape(), Fingerprint: p.Fingerprint(), Warnings: warns, Plan: p})
		})
	}
}

// collectNodes lists a plan's nodes depth first.
func collectNodes(n *Node) []*Node {
	if n == nil {
		return nil
	}
	out := []*Node{n}
	for _, c := range n.Plans {
		out = append(out, collectNodes(c)...)
	}
	return out
}

// TestFormatsAgree checks the text parser against the JSON parser:
// the JSON and text fixtures of one case and version are two runs of the
// same statement, so all but timings and buffer counts agree.
func TestFormatsAgree(t *testing.T) {
	pairs := 0
	for _, jf := range golden.Files(t, "", "pg*.json") {
		tf := strings.TrimSuffix(jf, ".json") + ".txt"
		if _, err := os.Stat(tf); err != nil {
			continue
		}
		pairs++
		t.Run(filepath.Base(tf), func(t *testing.T) {
			jp, _ := parseFixture(t, jf)
			tp, _ := parseFixture(t, tf)
			if jp.Shape() != tp.Shape() || jp.Fingerprint() != tp.Fingerprint() {
				t.Errorf("JSON and text differ:\njson %s %s\ntext %s %s", jp.Fingerprint(), jp.Shape(), tp.Fingerprint(), tp.Shape())
			}
			if len(jp.Settings) != len(tp.Settings) || len(jp.Settings) > 0 && !reflect.DeepEqual(jp.Settings, tp.Settings) {
				t.Errorf("settings: json %v, text %v", jp.Settings, tp.Settings)
			}
			if (jp.ExecutionTimeMs == nil) != (tp.ExecutionTimeMs == nil) || (jp.PlanningTimeMs == nil) != (tp.PlanningTimeMs == nil) {
				t.Errorf("planning or execution time in one format only")
			}
			jn, tn := collectNodes(jp.Root), collectNodes(tp.Root)
			if len(jn) != len(tn) {
				t.Fatalf("%d nodes in JSON, %d in text", len(jn), len(tn))
			}
			for i := range jn {
				j, x := *jn[i], *tn[i]
				type same struct {
					NodeType, Strategy, PartialMode, Operation, JoinType, ParentRelationship string
					RelationName, Alias, IndexName                                           string
					ParallelAware                                                            bool
					StartupCost, TotalCost, PlanRows, ActualRows                             float64
					PlanWidth, ActualLoops, WorkersPlanned, WorkersLaunched                  int64
					ExactHeapBlocks                                                          int64
					Actual, Times, Buffers, IOTimes, WAL                                     bool
				}
				get := func(n Node) same {
					f := func(p *float64) float64 {
						if p == nil {
							return -1
						}
						return *p
					}
					i := func(p *int64) int64 {
						if p == nil {
							return -1
						}
						return *p
					}
					return same{n.NodeType, n.Strategy, n.PartialMode, n.Operation, n.JoinType, n.ParentRelationship,
						n.RelationName, n.Alias, n.IndexName,
						n.ParallelAware != nil && *n.ParallelAware,
						f(n.StartupCost), f(n.TotalCost), f(n.PlanRows), f(n.ActualRows),
						i(n.PlanWidth), i(n.ActualLoops), i(n.WorkersPlanned), i(n.WorkersLaunched),
						i(n.ExactHeapBlocks),
						n.ActualRows != nil, n.ActualTotalTimeMs != nil,
						n.SharedHitBlocks != nil || n.SharedReadBlocks != nil,
						n.SharedIOReadTimeMs != nil && *n.SharedIOReadTimeMs > 0,
						n.WALRecords != nil && *n.WALRecords > 0}
				}
				g, w := get(x), get(j)
				for _, s := range []*same{&g, &w} {
					// Each run sampled its own statistics: the estimates
					// differ a little.
					s.StartupCost, s.TotalCost, s.PlanRows = 0, 0, 0
					if jp.Root.NodeType == "ModifyTable" {
						// The statement changed the table between the runs.
						s.WAL = false
					}
				}
				if w.ParentRelationship == "Member" && jp.Root.NodeType == "ModifyTable" && i == 1 {
					// 13 printed ModifyTable's child as a Member; text
					// does not say, and Text infers what 14+ print.
					w.ParentRelationship = "Outer"
				}
				if g != w {
					t.Errorf("node %d:\ntext %+v\njson %+v", i, g, w)
				}
			}
		})
	}
	if pairs == 0 {
		t.Fatal("no pairs of JSON and text fixtures")
	}
}

// testCase is a fixture's case: testdata/pg17-update-io.txt is
// "update-io".
func testCase(f string) (version, kase string) {
	base := filepath.Base(f)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".json"), ".txt")
	version, kase, _ = strings.Cut(base, "-")
	return version, kase
}

// TestVersionsAgree checks that each case has one plan shape from
// PostgreSQL 13 to 18 (the fixtures pin the planner with settings), and so
// one fingerprint, however differently the versions print it.
func TestVersionsAgree(t *testing.T) {
	files := append(golden.Files(t, "", "pg*.json"), golden.Files(t, "", "pg*.txt")...)
	byCase := map[string]map[string][]string{} // case, fingerprint: files
	shapes := map[string]string{}
	for _, f := range files {
		p, _ := parseFixture(t, f)
		_, kase := testCase(f)
		kase = strings.TrimSuffix(kase, "-io")
		if byCase[kase] == nil {
			byCase[kase] = map[string][]string{}
		}
		fp := p.Fingerprint()
		byCase[kase][fp] = append(byCase[kase][fp], filepath.Base(f))
		shapes[fp] = p.Shape()
	}
	cases := make([]string, 0, len(byCase))
	for k := range byCase {
		cases = append(cases, k)
	}
	sort.Strings(cases)
	for _, k := range cases {
		if len(byCase[k]) == 1 {
			for fp := range byCase[k] {
				t.Logf("%s: %s %s", k, fp[:12], shapes[fp])
			}
			continue
		}
		var b strings.Builder
		for fp, fs := range byCase[k] {
			fmt.Fprintf(&b, "\n  %s %s: %s", fp[:12], shapes[fp], strings.Join(fs, " "))
		}
		t.Errorf("case %s has more than one plan:%s", k, b.String())
	}
}

// stripAnalyze turns the text of EXPLAIN ANALYZE into what EXPLAIN
// without ANALYZE prints: no actual figures and none of the lines only a
// run produces.
func stripAnalyze(s string) string {
	actual := regexp.MustCompile(` \((actual [^)]*|never executed)\)`)
	runOnly := regexp.MustCompile(`^\s*(Buffers|I/O Timings|WAL|Heap Blocks|Heap Fetches|Index Searches|Rows Removed by [A-Za-z ]+|Workers Launched|Execution Time|Trigger [^:]*|Sort Method|Batches|Buckets|Worker \d+):`)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if runOnly.MatchString(l) {
			continue
		}
		out = append(out, actual.ReplaceAllString(l, ""))
	}
	return strings.Join(out, "\n")
}

func TestFingerprintIgnoresAnalyze(t *testing.T) {
	for _, f := range golden.Files(t, "", "pg*.txt") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		withAnalyze, _, err := Text(strings.NewReader(string(data)), f)
		if err != nil {
			t.Fatal(err)
		}
		stripped := stripAnalyze(string(data))
		without, warns, err := Text(strings.NewReader(stripped), f+" without ANALYZE")
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s without ANALYZE: %v %v\n%s", f, err, warns, stripped)
		}
		for _, n := range collectNodes(without.Root) {
			if n.ActualRows != nil || n.ActualLoops != nil {
				t.Fatalf("%s: actual figures left in %s", f, stripped)
			}
		}
		if withAnalyze.Fingerprint() != without.Fingerprint() {
			t.Errorf("%s: ANALYZE changes the fingerprint:\n%s\n%s", f, withAnalyze.Shape(), without.Shape())
		}
	}
	// The plain fixtures ran without ANALYZE.
	for _, f := range golden.Files(t, "", "pg*-plain-*.json") {
		p, _ := parseFixture(t, f)
		if p.ExecutionTimeMs != nil {
			t.Errorf("%s: execution time without ANALYZE", f)
		}
		for _, n := range collectNodes(p.Root) {
			if n.ActualRows != nil || n.ActualLoops != nil || n.NeverExecuted || n.SharedHitBlocks != nil {
				t.Errorf("%s: %s has figures of a run", f, n.NodeType)
			}
			if n.StartupCost == nil || n.TotalCost == nil || n.PlanRows == nil || n.PlanWidth == nil {
				t.Errorf("%s: %s lacks its estimates", f, n.NodeType)
			}
		}
		if got, want := p.Shape(), "Aggregate > Seq Scan on pgbench_accounts"; got != want {
			t.Errorf("%s: shape %q, want %q", f, got, want)
		}
	}
}

func TestFingerprintDiffers(t *testing.T) {
	pick := func(glob string) *Plan {
		t.Helper()
		p, _ := parseFixture(t, golden.Files(t, "", glob)[0])
		return p
	}
	seq, ios := pick("pg17-parallel-seqscan.json"), pick("pg17-index-only-scan.json")
	if seq.Fingerprint() == ios.Fingerprint() {
		t.Errorf("a parallel seq scan and an index-only scan have one fingerprint: %s", seq.Fingerprint())
	}
	if want := "Finalize Aggregate > Gather > Partial Aggregate > Parallel Seq Scan on pgbench_accounts"; seq.Shape() != want {
		t.Errorf("shape %q, want %q", seq.Shape(), want)
	}
	if want := "Aggregate > Index Only Scan using pgbench_accounts_pkey on pgbench_accounts"; ios.Shape() != want {
		t.Errorf("shape %q, want %q", ios.Shape(), want)
	}

	// Variations of one plan: which change the fingerprint.
	const base = `Hash Join  (cost=1.00..2.00 rows=1 width=4)
  Hash Cond: (a.id = b.id)
  ->  Seq Scan on a  (cost=0.00..1.00 rows=1 width=4)
  ->  Hash  (cost=1.00..1.00 rows=1 width=4)
        ->  Index Scan using b_pkey on b  (cost=0.00..1.00 rows=1 width=4)
`
	for _, c := range []struct {
		name, old, new string
		same           bool
	}{
		{"other numbers", "(cost=1.00..1.00 rows=1 width=4)\n        ->", "(cost=12.50..99.00 rows=999 width=40)\n        ->", true},
		{"aliases", "Seq Scan on a ", "Seq Scan on a x ", true},
		{"schema (VERBOSE)", "Seq Scan on a ", "Seq Scan on public.a ", true},
		{"relation", "Seq Scan on a ", "Seq Scan on c ", false},
		{"index", "using b_pkey", "using b_other", false},
		{"scan direction", "Index Scan using", "Index Scan Backward using", false},
		{"join type", "Hash Join", "Hash Left Join", false},
		{"parallelism", "->  Seq Scan", "->  Parallel Seq Scan", false},
		{"node type", "Index Scan using b_pkey on b", "Seq Scan on b", false},
	} {
		a, _, err := Text(strings.NewReader(base), "base")
		if err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(base, c.old, c.new, 1)
		if changed == base {
			t.Fatalf("%s: %q not in the plan", c.name, c.old)
		}
		b, warns, err := Text(strings.NewReader(changed), c.name)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v", c.name, err, warns)
		}
		if same := a.Fingerprint() == b.Fingerprint(); same != c.same {
			t.Errorf("%s: same fingerprint %v, want %v (%s / %s)", c.name, same, c.same, a.Shape(), b.Shape())
		}
	}

	// Join order: the same two scans, outer and inner swapped.
	swapped := `Hash Join  (cost=1.00..2.00 rows=1 width=4)
  ->  Index Scan using b_pkey on b  (cost=0.00..1.00 rows=1 width=4)
  ->  Hash  (cost=1.00..1.00 rows=1 width=4)
        ->  Seq Scan on a  (cost=0.00..1.00 rows=1 width=4)
`
	a, _, _ := Text(strings.NewReader(base), "base")
	b, _, _ := Text(strings.NewReader(swapped), "swapped")
	if a.Fingerprint() == b.Fingerprint() {
		t.Errorf("join order does not change the fingerprint: %s / %s", a.Shape(), b.Shape())
	}
}

func TestShape(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"children", `Hash Join  (cost=1.00..2.00 rows=1 width=4)
  ->  Seq Scan on a  (cost=0.00..1.00 rows=1 width=4)
  ->  Hash  (cost=1.00..1.00 rows=1 width=4)
        ->  Seq Scan on b  (cost=0.00..1.00 rows=1 width=4)
`, "Hash Join (Seq Scan on a, Hash > Seq Scan on b)"},
		// PostgreSQL 18, EXPLAIN ANALYZE: init plans, a never executed node.
		{"init plan", `Result  (cost=8.60..16.62 rows=1 width=10) (actual time=0.125..0.125 rows=0.00 loops=1)
  One-Time Filter: (InitPlan 1).col1
  Buffers: shared hit=2
  InitPlan 1
    ->  Index Only Scan using t2_pkey on t2 x  (cost=0.29..8.31 rows=1 width=0) (actual time=0.121..0.121 rows=0.00 loops=1)
          Index Cond: (a = '-1'::integer)
          Heap Fetches: 0
          Index Searches: 1
          Buffers: shared hit=2
  ->  Index Scan using t2_pkey on t2  (cost=8.60..16.62 rows=1 width=10) (never executed)
        Index Cond: (a = 1)
        Index Searches: 0
`, "Result (InitPlan: Index Only Scan using t2_pkey on t2, Index Scan using t2_pkey on t2)"},
		// PostgreSQL 18, EXPLAIN (ANALYZE, VERBOSE, COSTS OFF): a CTE and a subplan.
		{"subplan", `Limit (actual rows=5.00 loops=1)
  Output: cte.id, ((SubPlan 2))
  CTE cte
    ->  Index Scan using parent_pkey on public.parent (actual rows=9.00 loops=1)
          Output: parent.id
  ->  Result (actual rows=5.00 loops=1)
        Output: cte.id, (SubPlan 2)
        ->  CTE Scan on cte (actual rows=9.00 loops=1)
              Output: cte.id
        SubPlan 2
          ->  Aggregate (actual rows=1.00 loops=5)
                ->  Bitmap Heap Scan on public.child (actual rows=20.00 loops=5)
                      ->  Bitmap Index Scan on child_pid_idx (actual rows=26.00 loops=5)
`, "Limit (InitPlan: Index Scan using parent_pkey on parent, Result (CTE Scan on cte, SubPlan: Aggregate > Bitmap Heap Scan on child > Bitmap Index Scan on child_pid_idx))"},
		{"names", `Finalize HashAggregate
  ->  Gather Merge
        ->  Partial GroupAggregate
              ->  Nested Loop Right Anti Join
                    ->  Parallel Index Scan Backward using "Odd ""Index""" on "My Table" "t 1"
                    ->  HashSetOp Except All
                          ->  Custom Scan (Columnar) on c
                          ->  Update on u
                                ->  Function Scan on generate_series g
`, `Finalize HashAggregate > Gather Merge > Partial GroupAggregate > Nested Loop Right Anti Join (Parallel Index Scan Backward using Odd "Index" on My Table, HashSetOp Except All (Custom Scan (Columnar) on c, Update on u > Function Scan))`},
	} {
		p, warns, err := Text(strings.NewReader(c.in), c.name)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v", c.name, err, warns)
		}
		if got := p.Shape(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		if fp := p.Fingerprint(); len(fp) != 64 {
			t.Errorf("%s: fingerprint %q", c.name, fp)
		}
	}
	if (&Plan{}).Shape() != "" || (&Plan{}).Fingerprint() != "" {
		t.Error("a plan without a root has a shape or a fingerprint")
	}
}

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
	want := Buffers{SharedIOReadTimeMs: ptr(1.5), SharedIOWriteTimeMs: ptr(2.5)}
	for _, c := range []struct {
		name, source, in string
		want             Buffers
	}{
		{"13-14 JSON", "in.json", node(`"I/O Read Time": 1.5, "I/O Write Time": 2.5`), want},
		{"15-16 JSON", "in.json", node(`"I/O Read Time": 1.5, "I/O Write Time": 2.5, "Temp I/O Read Time": 0.5, "Temp I/O Write Time": 0.25`),
			Buffers{SharedIOReadTimeMs: ptr(1.5), SharedIOWriteTimeMs: ptr(2.5), TempIOReadTimeMs: ptr(0.5), TempIOWriteTimeMs: ptr(0.25)}},
		{"17+ JSON", "in.json", node(`"Shared I/O Read Time": 1.5, "Shared I/O Write Time": 2.5, "Local I/O Read Time": 0.000, "Local I/O Write Time": 0.000, "Temp I/O Read Time": 0.5, "Temp I/O Write Time": 0.25`),
			Buffers{SharedIOReadTimeMs: ptr(1.5), SharedIOWriteTimeMs: ptr(2.5), LocalIOReadTimeMs: ptr(0.0), LocalIOWriteTimeMs: ptr(0.0), TempIOReadTimeMs: ptr(0.5), TempIOWriteTimeMs: ptr(0.25)}},
		{"13-14 text", "in.txt", "Seq Scan on t\n  I/O Timings: read=1.500 write=2.500\n", want},
		{"15-16 text", "in.txt", "Seq Scan on t\n  I/O Timings: shared/local read=1.500 write=2.500, temp read=0.500 write=0.250\n",
			Buffers{SharedIOReadTimeMs: ptr(1.5), SharedIOWriteTimeMs: ptr(2.5), TempIOReadTimeMs: ptr(0.5), TempIOWriteTimeMs: ptr(0.25)}},
		{"17+ text", "in.txt", "Seq Scan on t\n  I/O Timings: shared read=1.500 write=2.500, temp read=0.500 write=0.250\n",
			Buffers{SharedIOReadTimeMs: ptr(1.5), SharedIOWriteTimeMs: ptr(2.5), TempIOReadTimeMs: ptr(0.5), TempIOWriteTimeMs: ptr(0.25)}},
		{"text, zeros left out", "in.txt", "Seq Scan on t\n  I/O Timings: shared read=1.500, local write=3.000\n",
			Buffers{SharedIOReadTimeMs: ptr(1.5), SharedIOWriteTimeMs: ptr(0.0), LocalIOReadTimeMs: ptr(0.0), LocalIOWriteTimeMs: ptr(3.0)}},
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
		if p.ExecutionTimeMs == nil {
			continue // no ANALYZE
		}
		_, kase := testCase(f)
		io := strings.HasSuffix(kase, "-io")
		for _, n := range collectNodes(p.Root) {
			if has := n.SharedIOReadTimeMs != nil && n.SharedIOWriteTimeMs != nil; has != io {
				t.Errorf("%s: %s has I/O times %v, want %v", f, n.NodeType, has, io)
			}
		}
		if io && (p.PlanningBuffers == nil || p.PlanningBuffers.SharedIOReadTimeMs == nil) {
			t.Errorf("%s: no I/O time for planning", f)
		}
	}
	// Reading the table from disk takes time: the -io fixtures' scans of
	// pgbench_accounts say how much, in both formats.
	for _, f := range append(golden.Files(t, "", "pg*-parallel-seqscan-io.json"), golden.Files(t, "", "pg*-parallel-seqscan-io.txt")...) {
		p, _ := parseFixture(t, f)
		for _, n := range collectNodes(p.Root) {
			if n.RelationName == "pgbench_accounts" && (n.SharedReadBlocks == nil || *n.SharedReadBlocks == 0 || n.SharedIOReadTimeMs == nil || *n.SharedIOReadTimeMs == 0) {
				t.Errorf("%s: scan without reads or read time: %s", f, jsonString(n.Buffers))
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

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
		if scan == nil || scan.ActualRows == nil || *scan.ActualRows != c.want || scan.ActualLoops == nil || *scan.ActualLoops != 3 {
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
		if r := p.Root.ActualRows; r == nil || *r != 1234 || *p.Root.ActualLoops != 1 {
			t.Errorf("%s: actual rows %v", c.name, jsonString(p.Root))
		}
	}
}

// psqlAligned renders output as psql's default aligned format
// prints a one-column result named "QUERY PLAN": a JSON document is one row
// whose continued lines end in "+", text is one row per line.
func psqlAligned(out string, oneRow bool) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	width := len("QUERY PLAN")
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l))
	}
	var b strings.Builder
	pad := width - len("QUERY PLAN")
	fmt.Fprintf(&b, " %s%s%s \n", strings.Repeat(" ", pad/2), "QUERY PLAN", strings.Repeat(" ", pad-pad/2))
	b.WriteString(strings.Repeat("-", width+2) + "\n")
	for i, l := range lines {
		if oneRow && i < len(lines)-1 {
			fmt.Fprintf(&b, " %s%s+\n", l, strings.Repeat(" ", width-utf8.RuneCountInString(l)))
		} else {
			fmt.Fprintf(&b, " %s\n", l)
		}
	}
	rows := len(lines)
	if oneRow {
		rows = 1
	}
	if rows == 1 {
		b.WriteString("(1 row)\n\n")
	} else {
		fmt.Fprintf(&b, "(%d rows)\n\n", rows)
	}
	return b.String()
}

// TestPsqlFormats checks that psql's aligned and unaligned output
// (with header and footer) parse as the raw output does.
func TestPsqlFormats(t *testing.T) {
	files := append(golden.Files(t, "", "pg*.json"), golden.Files(t, "", "pg*.txt")...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw := string(data)
		want, _, err := parseString(f, raw)
		if err != nil {
			t.Fatal(err)
		}
		isJSON := strings.HasSuffix(f, ".json")
		lines := strings.Count(strings.TrimRight(raw, "\n"), "\n") + 1
		footer := fmt.Sprintf("(%d rows)", lines)
		if isJSON {
			footer = "(1 row)"
		}
		for name, in := range map[string]string{
			"aligned":   psqlAligned(raw, isJSON),
			"unaligned": "QUERY PLAN\n" + strings.TrimRight(raw, "\n") + "\n" + footer + "\n",
			"CRLF":      strings.ReplaceAll(psqlAligned(raw, isJSON), "\n", "\r\n"),
		} {
			got, warns, err := parseString(f, in)
			if err != nil || len(warns) > 0 {
				t.Errorf("%s %s: %v %v\n%s", f, name, err, warns, in)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: differs from the raw output's plan", f, name)
			}
		}
	}
}

// TestPsqlAlignedReal parses psql 15's aligned output of a
// PostgreSQL 18 server, as a user would paste it.
func TestPsqlAlignedReal(t *testing.T) {
	const aligned = `                                                                       QUERY PLAN                                                                       
--------------------------------------------------------------------------------------------------------------------------------------------------------
 Finalize Aggregate  (cost=23644.22..23644.23 rows=1 width=16) (actual time=250.548..262.949 rows=1.00 loops=1)
   Buffers: shared hit=3938 read=12456
   I/O Timings: shared read=205.064
   ->  Gather  (cost=23644.00..23644.21 rows=2 width=16) (actual time=238.751..262.932 rows=3.00 loops=1)
         Workers Planned: 2
         Workers Launched: 2
         Buffers: shared hit=3938 read=12456
         I/O Timings: shared read=205.064
         ->  Partial Aggregate  (cost=22644.00..22644.01 rows=1 width=16) (actual time=202.995..202.997 rows=1.00 loops=3)
               Buffers: shared hit=3938 read=12456
               I/O Timings: shared read=205.064
               ->  Parallel Seq Scan on pgbench_accounts  (cost=0.00..20560.67 rows=416667 width=4) (actual time=2.720..155.920 rows=333333.33 loops=3)
                     Buffers: shared hit=3938 read=12456
                     I/O Timings: shared read=205.064
 Settings: enable_indexscan = 'off', enable_indexonlyscan = 'off', enable_bitmapscan = 'off'
 Planning:
   Buffers: shared hit=60
 Planning Time: 1.457 ms
 Execution Time: 263.241 ms
(19 rows)

`
	p, warns, err := Text(strings.NewReader(aligned), "pasted")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if got, want := p.Shape(), "Finalize Aggregate > Gather > Partial Aggregate > Parallel Seq Scan on pgbench_accounts"; got != want {
		t.Errorf("shape %q, want %q", got, want)
	}
	scan := collectNodes(p.Root)[3]
	if *scan.ActualRows != 333333.33 || *scan.SharedReadBlocks != 12456 || *scan.SharedIOReadTimeMs != 205.064 || *p.ExecutionTimeMs != 263.241 || len(p.Settings) != 3 {
		t.Errorf("plan %s", jsonString(p))
	}

	const alignedJSON = `                       QUERY PLAN                       
--------------------------------------------------------
 [                                                     +
   {                                                   +
     "Plan": {                                         +
       "Node Type": "Seq Scan",                        +
       "Parallel Aware": false,                        +
       "Relation Name": "t",                           +
       "Alias": "t",                                   +
       "Actual Rows": 2.00,                            +
       "Actual Loops": 1                               +
     },                                                +
     "Execution Time": 0.5                             +
   }                                                   +
 ]
(1 row)

`
	p, warns, err = JSON(strings.NewReader(alignedJSON), "pasted.json")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	if p.Shape() != "Seq Scan on t" || *p.Root.ActualRows != 2 || *p.ExecutionTimeMs != 0.5 {
		t.Errorf("plan %s", jsonString(p))
	}
	// An error names the line of the pasted text.
	broken := strings.Replace(alignedJSON, `"Alias": "t",`, `"Alias": "t"; `, 1)
	_, _, err = JSON(strings.NewReader(broken), "pasted.json")
	if want := "pasted.json:9: invalid character ';' after object key:value pair"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
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
	if err != nil || *p.JIT.GenerationMs != 16.5 || *p.JIT.DeformMs != 2 {
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
	if len(scan.Workers) != 2 || scan.Workers[0].SharedHitBlocks != nil || *scan.Workers[1].SharedHitBlocks != 66 || *scan.Workers[1].ActualRows != 12210 {
		t.Errorf("scan's workers %s", jsonString(scan.Workers))
	}
	if scan.Schema != "public" || scan.RelationName != "t2" || scan.Alias != "t2" || *srt.SharedHitBlocks != 555 {
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

// TestTextFromJSON renders each JSON fixture as a text plan and
// checks that the text parser reads back the fingerprint.
func TestTextFromJSON(t *testing.T) {
	for _, f := range golden.Files(t, "", "pg*.json") {
		p, _ := parseFixture(t, f)
		text, ok := renderText(p)
		if !ok {
			t.Fatalf("%s: cannot render as text", f)
		}
		back, warns, err := Text(strings.NewReader(text), f)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v\n%s", f, err, warns, text)
		}
		if back.Fingerprint() != p.Fingerprint() {
			t.Errorf("%s:\n%s\n%s", f, back.Shape(), p.Shape())
		}
	}
}

// renderText renders a plan's tree as the text format prints it,
// without figures. ok is false when the text format cannot say what the
// fingerprint covers (a node type it has no name for, a name with a line
// break).
func renderText(p *Plan) (string, bool) {
	var b strings.Builder
	ok := true
	subplans := 0
	var render func(n *Node, depth int, arrowCol int)
	render = func(n *Node, depth, nameCol int) {
		name := displayName(n)
		if _, known := nodeNames[name]; !known && n.NodeType != "Custom Scan" {
			ok = false
		}
		if n.NodeType == "Custom Scan" && (n.CustomPlanProvider == "" || strings.Contains(n.CustomPlanProvider, ")")) {
			ok = false
		}
		for _, s := range []string{n.RelationName, n.FunctionName, n.CTEName, n.IndexName, n.CustomPlanProvider} {
			if strings.ContainsAny(s, "\r\n\x00") || s != "" && !utf8.ValidString(s) {
				ok = false
			}
		}
		target := n.RelationName
		if target == "" {
			target = n.FunctionName
		}
		if target == "" {
			target = n.CTEName
		}
		line := name
		if n.ParallelAware != nil && *n.ParallelAware {
			line = "Parallel " + line
		}
		if n.AsyncCapable != nil && *n.AsyncCapable {
			line = "Async " + line
		}
		switch n.NodeType {
		case "Bitmap Index Scan":
			if n.IndexName != "" {
				line += " on " + quoteIdent(n.IndexName)
			}
			target = ""
		case "Index Scan", "Index Only Scan":
			if n.IndexName == "" && target != "" {
				ok = false // text prints "using" before "on"
			}
			if n.IndexName != "" {
				if n.ScanDirection == "Backward" {
					line += " Backward"
				}
				line += " using " + quoteIdent(n.IndexName)
			}
		case "Values Scan", "Subquery Scan":
			if target != "" {
				ok = false
			}
		default:
			if n.IndexName != "" {
				ok = false // the text format has no place for it
			}
		}
		if target != "" {
			line += " on " + quoteIdent(target)
		} else if n.IndexName != "" && (n.NodeType == "Index Scan" || n.NodeType == "Index Only Scan") {
			ok = false // "using" needs "on"
		}
		if nameCol == 0 {
			b.WriteString(line + "\n")
		} else {
			b.WriteString(strings.Repeat(" ", nameCol-4) + "->  " + line + "\n")
		}
		for _, c := range n.Plans {
			col := nameCol + 2
			switch c.ParentRelationship {
			case "InitPlan", "SubPlan":
				subplans++
				fmt.Fprintf(&b, "%s%s %d\n", strings.Repeat(" ", col), c.ParentRelationship, subplans)
				col += 2
			}
			render(c, depth+1, col+4)
		}
	}
	render(p.Root, 0, 0)
	return b.String(), ok
}

// quoteIdent quotes a name as PostgreSQL's quote_identifier does,
// quoting also the names it would leave bare but that are keywords.
func quoteIdent(s string) string {
	bare := s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] == '_')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			bare = false
		}
	}
	if bare {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
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

// jsonString is v as compact JSON, for messages and comparisons.
func jsonString(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err.Error()
	}
	return strings.TrimSuffix(b.String(), "\n")
}
