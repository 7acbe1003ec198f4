package explain

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

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
			if jp.ExecutionTimeMs.Valid != tp.ExecutionTimeMs.Valid || jp.PlanningTimeMs.Valid != tp.PlanningTimeMs.Valid {
				t.Errorf("planning or execution time in one format only")
			}
			nodesAgree(t, jp, tp)
		})
	}
	if pairs == 0 {
		t.Fatal("no pairs of JSON and text fixtures")
	}
}

// nodesAgree checks that the nodes of jp (from JSON) and tp (from text)
// agree, node by node, in what two runs of a statement share.
func nodesAgree(t *testing.T, jp, tp *Plan) {
	t.Helper()
	jn, tn := collectNodes(jp.Root), collectNodes(tp.Root)
	if len(jn) != len(tn) {
		t.Fatalf("%d nodes in JSON, %d in text", len(jn), len(tn))
	}
	for i := range jn {
		g, w := factsOf(tn[i]), factsOf(jn[i])
		for _, s := range []*nodeFacts{&g, &w} {
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
}

// nodeFacts is what TestFormatsAgree compares of a node: its fields, -1
// for an absent number, and whether it has the figures of each option.
type nodeFacts struct {
	NodeType, Strategy, PartialMode, Operation, JoinType, ParentRelationship string
	RelationName, Alias, IndexName                                           string
	ParallelAware                                                            bool
	StartupCost, TotalCost, PlanRows, ActualRows                             float64
	PlanWidth, ActualLoops, WorkersPlanned, WorkersLaunched                  int64
	ExactHeapBlocks                                                          int64
	Actual, Times, Buffers, IOTimes, WAL                                     bool
}

func factsOf(n *Node) nodeFacts {
	f := func(o parse.Opt[float64]) float64 {
		if !o.Valid {
			return -1
		}
		return o.V
	}
	i := func(o parse.Opt[int64]) int64 {
		if !o.Valid {
			return -1
		}
		return o.V
	}
	return nodeFacts{n.NodeType, n.Strategy, n.PartialMode, n.Operation, n.JoinType, n.ParentRelationship,
		n.RelationName, n.Alias, n.IndexName,
		n.ParallelAware.V,
		f(n.StartupCost), f(n.TotalCost), f(n.PlanRows), f(n.ActualRows),
		i(n.PlanWidth), i(n.ActualLoops), i(n.WorkersPlanned), i(n.WorkersLaunched),
		i(n.ExactHeapBlocks),
		n.ActualRows.Valid, n.ActualTotalTimeMs.Valid,
		n.SharedHitBlocks.Valid || n.SharedReadBlocks.Valid,
		n.SharedIOReadTimeMs.V > 0,
		n.WALRecords.V > 0}
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
		line, good := nodeText(n)
		ok = ok && good
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

// nodeText is a node's line in text, after any "->  ": its name and
// target. ok is as for renderText.
func nodeText(n *Node) (line string, ok bool) {
	ok = true
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
	line = name
	if n.ParallelAware.V {
		line = "Parallel " + line
	}
	if n.AsyncCapable.V {
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
	return line, ok
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
