package explain

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// nodeSpec is what a node name in text means in JSON terms.
type nodeSpec struct {
	nodeType, strategy, partialMode, operation, joinType, command string
}

// nodeNames maps the node names of the text format to their JSON fields.
var nodeNames = func() map[string]nodeSpec {
	m := map[string]nodeSpec{}
	for _, s := range []string{
		"Result", "ProjectSet", "Append", "Merge Append", "Recursive Union", "BitmapAnd",
		"BitmapOr", "Seq Scan", "Sample Scan", "Gather", "Gather Merge", "Index Scan",
		"Index Only Scan", "Bitmap Index Scan", "Bitmap Heap Scan", "Tid Scan", "Tid Range Scan",
		"Subquery Scan", "Function Scan", "Table Function Scan", "Values Scan", "CTE Scan",
		"Named Tuplestore Scan", "WorkTable Scan", "Materialize", "Memoize", "Sort",
		"Incremental Sort", "Group", "WindowAgg", "Unique", "LockRows", "Limit", "Hash",
	} {
		m[s] = nodeSpec{nodeType: s}
	}
	for _, op := range []string{"Insert", "Update", "Delete", "Merge"} {
		m[op] = nodeSpec{nodeType: "ModifyTable", operation: op}
		if op != "Merge" {
			m["Foreign "+op] = nodeSpec{nodeType: "Foreign Scan", operation: op}
		}
	}
	m["Foreign Scan"] = nodeSpec{nodeType: "Foreign Scan", operation: "Select"}
	for _, jt := range []string{"Inner", "Left", "Full", "Right", "Semi", "Anti", "Right Semi", "Right Anti"} {
		for _, j := range []string{"Nested Loop", "Merge Join", "Hash Join"} {
			m[joinName(j, jt)] = nodeSpec{nodeType: j, joinType: jt}
		}
	}
	for _, pm := range []string{"Simple", "Partial", "Finalize"} {
		for strategy, name := range aggNames {
			if pm != "Simple" {
				name = pm + " " + name
			}
			m[name] = nodeSpec{nodeType: "Aggregate", strategy: strategy, partialMode: pm}
		}
	}
	for _, cmd := range []string{"Intersect", "Intersect All", "Except", "Except All"} {
		m["SetOp "+cmd] = nodeSpec{nodeType: "SetOp", strategy: "Sorted", command: cmd}
		m["HashSetOp "+cmd] = nodeSpec{nodeType: "SetOp", strategy: "Hashed", command: cmd}
	}
	return m
}()

// customScan is the spec of "Custom Scan (provider)".
var customScan = nodeSpec{nodeType: "Custom Scan"}

var aggNames = map[string]string{"Plain": "Aggregate", "Sorted": "GroupAggregate", "Hashed": "HashAggregate", "Mixed": "MixedAggregate"}

// joinName is the text name of a join: "Hash Left Join", "Nested Loop".
func joinName(nodeType, joinType string) string {
	base := strings.TrimSuffix(nodeType, " Join")
	if joinType == "Inner" || joinType == "" {
		return nodeType
	}
	return base + " " + joinType + " Join"
}

// nodeLine parses a node line (after "->  "): its name, target, costs
// and actual figures. problem is what it did not understand, or "". A
// root line must name a known node type or carry costs or actual figures,
// else n is nil; a child line is always a node. The node comes from the
// parser's batch.
func (t *textParser) nodeLine(s string, root bool) (n *Node, problem string) {
	n = t.nodes.Zero()
	head, stats, ok := s, 1, true
	if h, fast := figuresAsPrinted(s, n); fast {
		head = h
	} else {
		head, stats, ok = t.groups(s, n)
	}
	rest, parallel := strings.CutPrefix(head, "Parallel ")
	if parallel {
		head = rest
	}
	n.ParallelAware = parse.Some(parallel)
	if rest, ok := strings.CutPrefix(head, "Async "); ok {
		n.AsyncCapable, head = parse.Some(true), rest
	}
	spec, name, rest, known := matchName(head)
	if !known && strings.HasPrefix(head, "Custom Scan (") {
		if i := strings.Index(head, ")"); i >= 0 {
			known, name, rest = true, head[:i+1], strings.TrimPrefix(head[i+1:], " ")
			spec = &customScan
			n.CustomPlanProvider = strings.TrimSuffix(strings.TrimPrefix(name, "Custom Scan ("), ")")
		}
	}
	if !known {
		if root && stats == 0 {
			return nil, "not a plan node"
		}
		n.NodeType = head
		if head == "" {
			n.NodeType = s
		}
		return n, "unknown node type"
	}
	n.setSpec(spec)
	if !parseTarget(n, rest) {
		put(&n.Extra, "Target", rest)
		return n, "target of the node not understood"
	}
	if !ok {
		return n, "figures of the node not understood"
	}
	return n, ""
}

// setSpec sets the fields spec names. The node is new, its strings empty:
// those spec leaves empty are not stored (a string stored runs the write
// barrier while the collector marks, and most names set one or two).
func (n *Node) setSpec(spec *nodeSpec) {
	n.NodeType = spec.nodeType
	if spec.strategy != "" {
		n.Strategy = spec.strategy
	}
	if spec.partialMode != "" {
		n.PartialMode = spec.partialMode
	}
	if spec.operation != "" {
		n.Operation = spec.operation
	}
	if spec.joinType != "" {
		n.JoinType = spec.joinType
	}
	if spec.command != "" {
		n.Command = spec.command
	}
}

// groups reads the parenthesized groups at the end of node line s into
// n, from the last: " (cost=...)", " (actual ...)", " (never executed)".
// head is the text before them, stats how many there were, and ok false
// when one was not understood.
func (t *textParser) groups(s string, n *Node) (head string, stats int, ok bool) {
	head, ok = s, true
	for strings.HasSuffix(head, ")") {
		i := lastOpen(head)
		if i < 0 {
			break
		}
		g := head[i+2 : len(head)-1]
		switch {
		case g == "never executed":
			n.setNeverExecuted()
		case strings.HasPrefix(g, "cost="):
			ok = t.parseCost(g, n) && ok
		case strings.HasPrefix(g, "actual "):
			ok = t.parseActual(g[len("actual "):], &n.ActualStartupTimeMs, &n.ActualTotalTimeMs, &n.ActualRows, &n.ActualLoops) && ok
		default:
			return head, stats, ok
		}
		stats++
		head = strings.TrimRight(head[:i], " ")
	}
	return head, stats, ok
}

func (n *Node) setNeverExecuted() {
	n.NeverExecuted = true
	n.ActualLoops, n.ActualRows = parse.Some[int64](0), parse.Some(0.0)
}

// figuresAsPrinted reads the groups of node line s as the server prints
// them, " (cost=...)" and then " (actual ...)", " (never executed)" or
// nothing to the line's end, from a search from the front for " (cost="
// (the search from the last group, lastOpen's, was a tenth of the
// parser's time). What it reads, groups reads too: it is false and sets
// nothing where the line is not so, or where the text before the groups
// ends in ")" (a group groups would look at too). head is that text.
func figuresAsPrinted(s string, n *Node) (head string, ok bool) {
	// A search for "(cost=", whose first byte is rare, then for the
	// space before it: strings.Index(s, " (cost=") stopped at every space.
	i := strings.Index(s, "(cost=") - 1
	if i < 0 || s[i] != ' ' {
		return "", false
	}
	j := strings.IndexByte(s[i:], ')')
	if j < 0 {
		return "", false
	}
	j += i
	c, ok := scanCost(s[i+2 : j])
	head = strings.TrimRight(s[:i], " ")
	if !ok || strings.HasSuffix(head, ")") {
		return "", false
	}
	var a actualFigures
	switch rest := s[j+1:]; {
	case rest == "":
	case rest == " (never executed)":
		n.setNeverExecuted()
	case strings.HasPrefix(rest, " (actual ") && rest[len(rest)-1] == ')':
		if a, ok = scanActual(rest[len(" (actual ") : len(rest)-1]); !ok {
			return "", false
		}
		setActual(a, &n.ActualStartupTimeMs, &n.ActualTotalTimeMs, &n.ActualRows, &n.ActualLoops)
	default:
		return "", false
	}
	n.setCost(c)
	return head, true
}

// lastOpen is strings.LastIndex(s, " (") by a search for the byte '(':
// the search for two bytes was a tenth of the parser's time.
func lastOpen(s string) int {
	for {
		i := strings.LastIndexByte(s, '(')
		if i <= 0 {
			return -1
		}
		if s[i-1] == ' ' {
			return i - 1
		}
		s = s[:i]
	}
}

// matchName finds the longest known node name that head starts with,
// followed by a space or the end, and its spec: one look-up of head's
// first word, then a comparison with each name it starts, longest first
// (a look-up at each of the name's spaces was a twentieth of the parser's
// time).
func matchName(head string) (spec *nodeSpec, name, rest string, known bool) {
	first := head
	if i := strings.IndexByte(head, ' '); i >= 0 {
		first = head[:i]
	}
	for _, c := range namesByWord[first] {
		if strings.HasPrefix(head, c.name) && (len(head) == len(c.name) || head[len(c.name)] == ' ') {
			return c.spec, c.name, strings.TrimPrefix(head[len(c.name):], " "), true
		}
	}
	return nil, "", head, false
}

// nameOf is a node name and its spec.
type nameOf struct {
	name string
	spec *nodeSpec
}

// namesByWord are the node names by their first word, longest first.
var namesByWord = func() map[string][]nameOf {
	m := map[string][]nameOf{}
	for name, spec := range nodeNames {
		first, _, _ := strings.Cut(name, " ")
		m[first] = append(m[first], nameOf{name, &spec})
	}
	for _, names := range m {
		slices.SortFunc(names, func(a, b nameOf) int { return cmp.Compare(len(b.name), len(a.name)) })
	}
	return m
}()

// parseCost parses "cost=0.00..1.23 rows=4 width=5": as the server prints
// it by scanCost, else the fields as strings.Fields splits them.
func (t *textParser) parseCost(g string, n *Node) bool {
	return t.costAsPrinted(g, n) || t.costFields(g, n)
}

func (t *textParser) costAsPrinted(g string, n *Node) bool {
	c, ok := scanCost(g)
	if ok {
		n.setCost(c)
	}
	return ok
}

func (n *Node) setCost(c costFigures) {
	n.StartupCost, n.TotalCost, n.PlanRows = parse.Some(c.startup), parse.Some(c.total), parse.Some(c.rows)
	n.PlanWidth = parse.Some(c.width)
}

func (t *textParser) costFields(g string, n *Node) bool {
	for kv, rest := field(g); kv != ""; kv, rest = field(rest) {
		k, v := cutEq(kv)
		switch k {
		case "cost":
			a, b, ok := cut(v, "..")
			fa, err1 := num.ParseFloat(a)
			fb, err2 := num.ParseFloat(b)
			if !ok || err1 != nil || err2 != nil {
				return false
			}
			n.StartupCost, n.TotalCost = parse.Some(fa), parse.Some(fb)
		case "rows":
			f, err := num.ParseFloat(v)
			if err != nil {
				return false
			}
			n.PlanRows = parse.Some(f)
		case "width":
			i, ok := atoi(v)
			if !ok {
				return false
			}
			n.PlanWidth = parse.Some(i)
		default:
			return false
		}
	}
	return true
}

// parseActual parses "time=0.1..2.3 rows=4 loops=1" or "rows=4.00
// loops=1": as the server prints it by scanActual, else field by field.
func (t *textParser) parseActual(g string, start, total, rows *parse.Opt[float64], loops *parse.Opt[int64]) bool {
	return t.actualAsPrinted(g, start, total, rows, loops) || t.actualFields(g, start, total, rows, loops)
}

func (t *textParser) actualAsPrinted(g string, start, total, rows *parse.Opt[float64], loops *parse.Opt[int64]) bool {
	a, ok := scanActual(g)
	if ok {
		setActual(a, start, total, rows, loops)
	}
	return ok
}

func setActual(a actualFigures, start, total, rows *parse.Opt[float64], loops *parse.Opt[int64]) {
	if a.timed {
		*start, *total = parse.Some(a.startup), parse.Some(a.total)
	}
	*rows, *loops = parse.Some(a.rows), parse.Some(a.loops)
}

func (t *textParser) actualFields(g string, start, total, rows *parse.Opt[float64], loops *parse.Opt[int64]) bool {
	for kv, rest := field(g); kv != ""; kv, rest = field(rest) {
		k, v := cutEq(kv)
		switch k {
		case "time":
			a, b, ok := cut(v, "..")
			fa, err1 := num.ParseFloat(a)
			fb, err2 := num.ParseFloat(b)
			if !ok || err1 != nil || err2 != nil {
				return false
			}
			*start, *total = parse.Some(fa), parse.Some(fb)
		case "rows":
			f, err := num.ParseFloat(v)
			if err != nil {
				return false
			}
			*rows = parse.Some(f)
		case "loops":
			i, ok := atoi(v)
			if !ok {
				return false
			}
			*loops = parse.Some(i)
		default:
			return false
		}
	}
	return true
}

// parseTarget parses what follows a node's name: "using idx on rel alias",
// "Backward using ...", "on rel alias", "on idx" (Bitmap Index Scan).
func parseTarget(n *Node, s string) bool {
	if s == "" {
		return true
	}
	switch n.NodeType {
	case "Index Scan", "Index Only Scan":
		if rest, ok := strings.CutPrefix(s, "Backward "); ok {
			n.ScanDirection, s = "Backward", rest
		}
		rest, ok := strings.CutPrefix(s, "using ")
		if !ok {
			return false
		}
		idx, rest, ok := ident(rest)
		if !ok {
			return false
		}
		n.IndexName = idx
		s = strings.TrimPrefix(rest, " ")
	case "Bitmap Index Scan":
		rest, ok := strings.CutPrefix(s, "on ")
		if !ok {
			return false
		}
		idx, rest, ok := ident(rest)
		if !ok || rest != "" {
			return false
		}
		n.IndexName = idx
		return true
	}
	rest, ok := strings.CutPrefix(s, "on ")
	if !ok {
		return false
	}
	var names []string
	for rest != "" {
		var id string
		if id, rest, ok = ident(rest); !ok {
			return false
		}
		names = append(names, id)
		if strings.HasPrefix(rest, ".") && len(names) == 1 {
			var obj string
			if obj, rest, ok = ident(rest[1:]); !ok {
				return false
			}
			n.Schema, names[0] = names[0], obj
		}
		rest = strings.TrimPrefix(rest, " ")
		if len(names) > 2 {
			return false
		}
	}
	if len(names) == 0 {
		return false
	}
	object, alias := names[0], names[len(names)-1]
	switch n.NodeType {
	case "Values Scan", "Subquery Scan":
		// The server names no object here, only the alias.
		if len(names) > 1 || n.Schema != "" {
			return false
		}
		n.Alias = alias
		return true
	case "Function Scan":
		n.FunctionName = object
	case "CTE Scan", "WorkTable Scan":
		n.CTEName = object
	case "Table Function Scan":
		put(&n.Extra, "Table Function Name", object)
	case "Named Tuplestore Scan":
		put(&n.Extra, "Tuplestore Name", object)
	default:
		n.RelationName = object
	}
	n.Alias = alias
	return true
}

// ident reads an identifier as quote_identifier prints it: bare, or in
// double quotes with "" for a quote. The rest starts after it.
func ident(s string) (string, string, bool) {
	if s == "" {
		return "", "", false
	}
	if s[0] != '"' {
		i := strings.IndexAny(s, " .")
		if i < 0 {
			return s, "", true
		}
		if i == 0 {
			return "", "", false
		}
		return s[:i], s[i:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '"' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		// A name is never empty.
		return b.String(), s[i+1:], b.Len() > 0
	}
	return "", "", false
}
