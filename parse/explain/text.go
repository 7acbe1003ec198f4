package explain

import (
	"io"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
)

// Text parses the output of EXPLAIN in its default text format, raw
// (psql -XAt) or with psql's "QUERY PLAN" header, dashes, leading spaces
// and "(N rows)" footer. Input whose first line is not a plan node (a
// VACUUM VERBOSE log, say) is an error; a line it does not understand is a
// Warning. Only the first statement's plan is returned; a further one is a
// Warning. The input is read whole, as JSON's is, and refused past
// parse.MaxText.
func Text(r io.Reader, source string) (*Plan, []parse.Warning, error) {
	text, err := parse.ReadText(r, source)
	if err != nil {
		return nil, nil, err
	}
	return parseText(text, source)
}

// parseText is Text of the text parse.ReadText read.
func parseText(text, source string) (*Plan, []parse.Warning, error) {
	// The parser stays on the goroutine's stack (it held its stack of
	// nodes' room, which made it escape); the room, as deep as most
	// plans, is allocated once.
	var room [8]frame
	tp := &textPlan{Plan: Plan{Format: "text"}}
	t := &textParser{source: source, plan: &tp.Plan, planning: &tp.planning, stack: room[:0]}
	// A node an arrow, and the root: the batches are sized from them, the
	// nodes' in one allocation (in batches of 32 KiB, each a span of its
	// own, refilling the allocator's cache cost more than it saved).
	nodes := min(strings.Count(text, "->  ")+1, maxReserved)
	t.nodes.Reserve(nodes)
	t.kids.Reserve(nodes)
	t.in = newPlanLines(text)
	for s, ok := t.in.next(); ok; s, ok = t.in.next() {
		t.ln = t.in.n
		s = trimRight(s)
		content := trimLeft(s)
		if content == "" || isWide(content[0]) && strings.TrimSpace(content) == "" {
			continue
		}
		col := len(s) - len(content)
		// Columns count from the root's: a pasted plan may be indented.
		if t.plan.Root == nil {
			t.base = col
		}
		col = max(col-t.base, 0)
		if err := t.line(col, content); err != nil {
			return nil, nil, err
		}
		if t.done {
			break
		}
	}
	if t.plan.Root == nil {
		return nil, nil, parse.Errorf(source, 0, "empty input; expected EXPLAIN output")
	}
	t.dropSubplan()
	return t.plan, t.warns, nil
}

// trimRight is strings.TrimRight(s, " \t"), trimLeft
// strings.TrimLeft(s, " "), without the set of bytes they make a call;
// trimLeft skips eight spaces at a time, the indentation of a deep plan's
// lines being most of their bytes.
func trimRight(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	return s[:i]
}

func trimLeft(s string) string {
	i := 0
	for i+8 <= len(s) && s[i:i+8] == "        " {
		i += 8
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return s[i:]
}

// isWide reports whether a line that starts with c may be white space
// alone, as strings.TrimSpace sees it: c is white space other than ' ', or
// outside ASCII (Unicode's spaces).
func isWide(c byte) bool {
	return c >= 0x80 || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// textParser is the state of Text.
type textParser struct {
	source   string
	plan     *Plan
	planning *Buffers // the room for plan.PlanningBuffers
	warns    []parse.Warning
	in       planLines
	ln       int // current line number
	base     int // the root's column
	done     bool

	// The plan's nodes, allocated in batches.
	nodes batch.Of[Node]
	kids  batch.Of[*Node] // a node's first child, as a slice of one

	// The tree: the nodes from the root to the last node read, with the
	// column of their names.
	stack []frame
	// subplan is a subplan's name ("InitPlan 1", "CTE x") read at column
	// subplanCol, waiting for its node on the next lines.
	subplan    string
	subplanCol int
	subplanLn  int
	subplanRaw string
	// worker is the "Worker N:" block being read, started at workerCol.
	worker    *Worker
	workerOf  *Node
	workerCol int
	// inSummary is set once the tree has ended (a line at column 0);
	// section is the summary block being read ("Planning", "JIT",
	// "Serialization").
	inSummary bool
	section   string
}

// textPlan is a text plan and the room for its PlanningBuffers, in one
// allocation.
type textPlan struct {
	Plan
	planning Buffers
}

type frame struct {
	node *Node
	col  int // column of the node's name; details are to the right of it
	kids int // the node's children so far that are no subplan
}

func (t *textParser) warn(msg string) {
	// The line is cloned: it is part of the whole input's memory.
	t.warns = append(t.warns, parse.Warning{Source: t.source, Line: t.ln, Text: strings.Clone(t.in.line()), Msg: msg})
}

// dropSubplan warns about a subplan's name that no node followed.
func (t *textParser) dropSubplan() {
	if t.subplan != "" {
		t.warns = append(t.warns, parse.Warning{Source: t.source, Line: t.subplanLn, Text: strings.Clone(t.subplanRaw), Msg: "subplan name without its plan node"})
		t.subplan = ""
	}
}

// notFirstLine starts the error of a text whose first line is not a
// plan's.
const notFirstLine = "expected the first line of an EXPLAIN plan"

func (t *textParser) line(col int, s string) error {
	if t.plan.Root == nil {
		n, problem := t.nodeLine(s, true)
		if n == nil {
			return parse.Errorf(t.source, t.ln, notFirstLine+" (a plan node such as \"Seq Scan on t  (cost=...)\"), found %q", shorten(s))
		}
		if problem != "" {
			t.warn(problem)
		}
		t.plan.Root = n
		t.stack = append(t.stack[:0], frame{node: n, col: col})
		return nil
	}
	if rest, ok := strings.CutPrefix(s, "->  "); ok && col > 0 && !t.inSummary {
		return t.child(col, rest)
	}
	t.dropSubplan()
	if col == 0 || t.inSummary {
		t.inSummary = true
		return t.summary(col, s)
	}
	// A detail line belongs to the deepest node whose name is to its left.
	for len(t.stack) > 1 && t.stack[len(t.stack)-1].col >= col {
		t.stack = t.stack[:len(t.stack)-1]
	}
	owner := t.stack[len(t.stack)-1].node
	if t.worker != nil && (t.workerOf != owner || col <= t.workerCol) {
		t.worker = nil
	}
	if t.worker == nil && isSubplanName(s) {
		t.subplan, t.subplanCol, t.subplanLn, t.subplanRaw = s, col, t.ln, t.in.line()
		return nil
	}
	if num, rest, ok := workerLine(s); ok {
		owner.Workers = append(owner.Workers, Worker{WorkerNumber: num})
		t.worker, t.workerOf, t.workerCol = &owner.Workers[len(owner.Workers)-1], owner, col
		return t.workerDetail(rest)
	}
	if t.worker != nil {
		return t.workerDetail(s)
	}
	return t.nodeDetail(owner, s)
}

// child reads a "->  " node line whose arrow is at column col.
func (t *textParser) child(col int, s string) error {
	for len(t.stack) > 1 && t.stack[len(t.stack)-1].col >= col {
		t.stack = t.stack[:len(t.stack)-1]
	}
	parent := t.stack[len(t.stack)-1]
	if parent.col >= col {
		t.warn("plan node to the left of its parent; ignored")
		return nil
	}
	n, problem := t.nodeLine(s, false)
	if problem != "" {
		t.warn(problem)
	}
	if t.subplan != "" && t.subplanCol < col && t.subplanCol > parent.col {
		n.SubplanName, t.subplan = t.subplan, ""
	}
	t.dropSubplan()
	if t.worker != nil { // a pointer stored, nil too, runs the write barrier while the collector marks
		t.worker = nil
	}
	p := parent.node
	if p.Plans == nil {
		p.Plans = t.kids.One(n)
	} else {
		p.Plans = append(p.Plans, n)
	}
	relate(p, n, parent.kids)
	if n.SubplanName == "" {
		t.stack[len(t.stack)-1].kids++
	}
	t.stack = append(t.stack, frame{node: n, col: col + 4})
	return nil
}

func isSubplanName(s string) bool {
	if s == "" || s[0] != 'I' && s[0] != 'S' && s[0] != 'C' { // most detail lines, at a glance
		return false
	}
	for _, p := range []string{"InitPlan ", "SubPlan ", "CTE "} {
		if strings.HasPrefix(s, p) && !strings.Contains(s, ": ") {
			return true
		}
	}
	return false
}

// workerLine splits "Worker 3:  rest".
func workerLine(s string) (int, string, bool) {
	rest, ok := strings.CutPrefix(s, "Worker ")
	if !ok {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(rest, ":")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, strings.TrimLeft(rest, " "), true
}

// relate sets the relationship of c, p's last child, to p, which text does
// not print, the way the server assigns it; kids is the count of p's
// children before c that are no subplan (the first is the Outer).
func relate(p, c *Node, kids int) {
	switch {
	case strings.HasPrefix(c.SubplanName, "SubPlan "):
		c.ParentRelationship = "SubPlan"
	case c.SubplanName != "":
		c.ParentRelationship = "InitPlan"
	case p.NodeType == "Append" || p.NodeType == "Merge Append" || p.NodeType == "BitmapAnd" || p.NodeType == "BitmapOr":
		c.ParentRelationship = "Member"
	case p.NodeType == "Subquery Scan":
		c.ParentRelationship = "Subquery"
	case p.NodeType == "Custom Scan":
		c.ParentRelationship = "child"
		if len(p.Plans) > 1 {
			c.ParentRelationship = "children"
		}
	case kids > 0:
		c.ParentRelationship = "Inner"
	default:
		c.ParentRelationship = "Outer"
	}
	if p.NodeType == "Custom Scan" && len(p.Plans) == 2 { // the first child is one of children now
		if first := p.Plans[0]; first.ParentRelationship == "child" {
			first.ParentRelationship = "children"
		}
	}
}
