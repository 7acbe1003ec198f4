package explain

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// seeds adds every explain fixture of a kind, and each in psql's
// aligned format, to a fuzz target's corpus.
func seeds(f *testing.F, pattern string, oneRow bool, more ...string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, ".golden.json") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
		f.Add(psqlAligned(string(data), oneRow))
	}
	for _, s := range more {
		f.Add(s)
	}
}

// check checks what every parse must hold, and returns the plan if
// there is one.
func check(t *testing.T, in string, p *Plan, warns []parse.Warning, err error) *Plan {
	t.Helper()
	lines := strings.Count(in, "\n") + 1
	if err != nil {
		var se *parse.SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("error %v is a %T, not a *SyntaxError", err, err)
		}
		if se.Source != "fuzz" || se.Line < 0 || se.Line > lines || se.Msg == "" {
			t.Fatalf("error %q: source %q, line %d of %d", err, se.Source, se.Line, lines)
		}
		if p != nil || warns != nil {
			t.Fatal("a plan or warnings with an error")
		}
		return nil
	}
	if p == nil || p.Root == nil {
		t.Fatal("no error and no plan")
	}
	for _, n := range collectNodes(p.Root) {
		if n.NodeType == "" {
			t.Fatalf("a node without a type: %s", jsonString(n))
		}
	}
	for _, w := range warns {
		if w.Source != "fuzz" || w.Line < 1 || w.Line > lines || w.Msg == "" {
			t.Fatalf("warning %s: line out of %d", w, lines)
		}
	}
	if p.Shape() == "" {
		t.Fatal("empty shape")
	}
	fp := p.Fingerprint()
	if len(fp) != 64 || strings.Trim(fp, "0123456789abcdef") != "" {
		t.Fatalf("fingerprint %q", fp)
	}
	checkAppendJSON(t, p)
	return p
}

// roundTrip renders p's tree as text and checks that Text
// reads back the same fingerprint and shape.
func roundTrip(t *testing.T, p *Plan) {
	t.Helper()
	// Text indents each level: a deep tree renders to a text quadratic in
	// its depth. Real plans are a few dozen levels deep.
	var depth func(n *Node) int
	depth = func(n *Node) int {
		d := 0
		for _, c := range n.Plans {
			d = max(d, depth(c))
		}
		return d + 1
	}
	if depth(p.Root) > 100 {
		return
	}
	text, ok := renderText(p)
	if !ok {
		return
	}
	back, warns, err := Text(strings.NewReader(text), "fuzz")
	if err != nil || len(warns) > 0 {
		t.Fatalf("rendered plan: %v %v\n%s", err, warns, text)
	}
	if back.Fingerprint() != p.Fingerprint() || back.Shape() != p.Shape() {
		t.Fatalf("rendered plan reads back differently:\n%s\n%s\nfrom\n%s", p.Shape(), back.Shape(), text)
	}
}

func FuzzJSON(f *testing.F) {
	seeds(f, "pg*.json", true,
		`{"Plan": {"Node Type": "Result"}}`,
		`[{"Plan": {"Node Type": "Hash Join", "Join Type": "Right Anti", "Plans": [{"Node Type": "Seq Scan", "Relation Name": "a \"b\"", "Parallel Aware": true}, {"Node Type": "Hash", "Plans": [{"Node Type": "Index Scan", "Index Name": "i", "Relation Name": "b", "Scan Direction": "Backward", "Parent Relationship": "InitPlan"}]}]}}]`,
		`[{"Plan": {"Node Type": "Aggregate", "Strategy": "Hashed", "Partial Mode": "Finalize", "Workers": [{"Worker Number": 0, "JIT": {}}]}, "JIT": {"Timing": {"Generation": {"Deform": 1}}}, "Settings": {"a": 1}, "Triggers": [{"Calls": 2}]}]`,
		"[\n{\"Plan\": {\"Node Type\": \"Result\"}},\n{\"Plan\": ",
	)
	f.Fuzz(func(t *testing.T, in string) {
		p, warns, err := JSON(strings.NewReader(in), "fuzz")
		// The scanner reads JSON as encoding/json does.
		valid := json.Valid([]byte(in))
		if err != nil && valid && (strings.Contains(err.Error(), "invalid character") || strings.Contains(err.Error(), "unexpected end")) {
			t.Fatalf("valid JSON, but %v", err)
		}
		if err == nil && len(warns) == 0 && !valid && !strings.Contains(in, "QUERY PLAN") {
			t.Fatalf("invalid JSON read without an error or a warning")
		}
		if p = check(t, in, p, warns, err); p == nil {
			return
		}
		// Parsing is a function of the input.
		again, _, err := JSON(strings.NewReader(in), "fuzz")
		if err != nil || again.Fingerprint() != p.Fingerprint() {
			t.Fatalf("a second parse differs: %v", err)
		}
		roundTrip(t, p)
	})
}

func FuzzText(f *testing.F) {
	seeds(f, "pg*.txt", false,
		"Seq Scan on t\n",
		"Hash Join  (cost=1.00..2.00 rows=1 width=4)\n  ->  Seq Scan on a  (cost=0.00..1.00 rows=1 width=4)\n  ->  Hash\n        ->  Parallel Index Scan Backward using \"i\"\"x\" on public.b c\n",
		"Result\n  InitPlan 1\n    ->  Limit\n          Worker 0:  actual rows=1 loops=1\n            Buffers: shared hit=1\nSettings: a = 'b', c = NULL\nJIT:\n  Timing: Generation 1 ms (Deform 2 ms)\nTrigger x for constraint y on z: time=1 calls=2\n",
		"Sort (never executed)\n  Sort Method: external merge  Disk: 1kB\n  ->  Custom Scan (Foo) on t\nSerialization: output=1kB  format=text\n  Buffers: temp read=1\n",
		// Found by fuzzing: an empty name.
		"Index Scan using \"\" on 0",
	)
	f.Add("Custom Scan (Foo)\n  InitPlan 1\n    ->  Result\n  ->  Seq Scan on a\n  SubPlan 2\n    ->  Result\n  ->  Seq Scan on b\n")
	f.Fuzz(func(t *testing.T, in string) {
		p, warns, err := Text(strings.NewReader(in), "fuzz")
		if p = check(t, in, p, warns, err); p == nil {
			return
		}
		checkRelationships(t, p.Root)
		roundTrip(t, p)
	})
}

// checkRelationships checks each node's relationship to its parent, which
// Text sets as it reads each child, against the rule applied to the whole
// tree: a subplan's name says SubPlan or InitPlan; the others are Members
// of an Append, Merge Append, BitmapAnd or BitmapOr, the Subquery of a
// Subquery Scan, the child (or one of the children) of a Custom Scan, and
// else the Outer, then Inner.
func checkRelationships(t *testing.T, n *Node) {
	t.Helper()
	ordinal := 0
	for _, c := range n.Plans {
		want := ""
		switch {
		case strings.HasPrefix(c.SubplanName, "SubPlan "):
			want = "SubPlan"
		case c.SubplanName != "":
			want = "InitPlan"
		case n.NodeType == "Append" || n.NodeType == "Merge Append" || n.NodeType == "BitmapAnd" || n.NodeType == "BitmapOr":
			want = "Member"
		case n.NodeType == "Subquery Scan":
			want = "Subquery"
		case n.NodeType == "Custom Scan" && len(n.Plans) == 1:
			want = "child"
		case n.NodeType == "Custom Scan":
			want = "children"
		case ordinal == 0:
			want = "Outer"
		default:
			want = "Inner"
		}
		if c.SubplanName == "" {
			ordinal++
		}
		if c.ParentRelationship != want {
			t.Fatalf("%s under %s: %q, want %q", c.NodeType, n.NodeType, c.ParentRelationship, want)
		}
		checkRelationships(t, c)
	}
}
