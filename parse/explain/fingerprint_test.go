package explain

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

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
			if n.ActualRows.Valid || n.ActualLoops.Valid {
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
		if p.ExecutionTimeMs.Valid {
			t.Errorf("%s: execution time without ANALYZE", f)
		}
		for _, n := range collectNodes(p.Root) {
			if n.ActualRows.Valid || n.ActualLoops.Valid || n.NeverExecuted || n.SharedHitBlocks.Valid {
				t.Errorf("%s: %s has figures of a run", f, n.NodeType)
			}
			if !n.StartupCost.Valid || !n.TotalCost.Valid || !n.PlanRows.Valid || !n.PlanWidth.Valid {
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
