package explain

import (
	"io"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// Text parses the output of EXPLAIN in its default text format, raw
// (psql -XAt) or with psql's "QUERY PLAN" header, dashes, leading spaces
// and "(N rows)" footer. Input whose first line is not a plan node (a
// VACUUM VERBOSE log, say) is an error; a line it does not understand is a
// Warning. Only the first statement's plan is returned; a further one is a
// Warning.
func Text(r io.Reader, source string) (*Plan, []parse.Warning, error) {
	lines, err := textLines(r, source)
	if err != nil {
		return nil, nil, err
	}
	t := &textParser{source: source, plan: &Plan{Format: "text"}}
	for i, s := range lines {
		t.ln, t.raw = i+1, s
		s = strings.TrimRight(s, " \t")
		if strings.TrimSpace(s) == "" {
			continue
		}
		content := strings.TrimLeft(s, " ")
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
	relationships(t.plan.Root)
	return t.plan, t.warns, nil
}

// textParser is the state of Text.
type textParser struct {
	source string
	plan   *Plan
	warns  []parse.Warning
	ln     int    // current line number
	raw    string // current line
	base   int    // the root's column
	done   bool

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

type frame struct {
	node *Node
	col  int // column of the node's name; details are to the right of it
}

func (t *textParser) warn(msg string) {
	t.warns = append(t.warns, parse.Warning{Source: t.source, Line: t.ln, Text: t.raw, Msg: msg})
}

// dropSubplan warns about a subplan's name that no node followed.
func (t *textParser) dropSubplan() {
	if t.subplan != "" {
		t.warns = append(t.warns, parse.Warning{Source: t.source, Line: t.subplanLn, Text: t.subplanRaw, Msg: "subplan name without its plan node"})
		t.subplan = ""
	}
}

func (t *textParser) line(col int, s string) error {
	if t.plan.Root == nil {
		n, problem := nodeLine(s, true)
		if n == nil {
			return parse.Errorf(t.source, t.ln, "expected the first line of an EXPLAIN plan (a plan node such as \"Seq Scan on t  (cost=...)\"), found %q", shorten(s))
		}
		if problem != "" {
			t.warn(problem)
		}
		t.plan.Root = n
		t.stack = []frame{{n, col}}
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
		t.subplan, t.subplanCol, t.subplanLn, t.subplanRaw = s, col, t.ln, t.raw
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
	n, problem := nodeLine(s, false)
	if problem != "" {
		t.warn(problem)
	}
	if t.subplan != "" && t.subplanCol < col && t.subplanCol > parent.col {
		n.SubplanName, t.subplan = t.subplan, ""
	}
	t.dropSubplan()
	t.worker = nil
	parent.node.Plans = append(parent.node.Plans, n)
	t.stack = append(t.stack, frame{n, col + 4})
	return nil
}

// summary reads the lines after the tree: times, settings, triggers, JIT.
func (t *textParser) summary(col int, s string) error {
	p := t.plan
	if col > 0 {
		switch t.section {
		case "Planning":
			if p.PlanningBuffers == nil {
				p.PlanningBuffers = &Buffers{}
			}
			label, value, _ := strings.Cut(s, ": ")
			switch label {
			case "Buffers", "I/O Timings":
				t.buffersLine(p.PlanningBuffers, label, value)
			case "Memory":
				for _, kv := range strings.Fields(value) {
					k, v, _ := strings.Cut(kv, "=")
					i, ok := atoi(strings.TrimSuffix(v, "kB"))
					switch {
					case !ok:
						t.warn("planning memory not understood")
					case k == "used":
						p.PlanningMemoryUsedKB = &i
					case k == "allocated":
						p.PlanningMemoryAllocatedKB = &i
					default:
						t.warn("planning memory not understood")
					}
				}
			default:
				t.warn("unknown planning line")
			}
			if *p.PlanningBuffers == (Buffers{}) {
				p.PlanningBuffers = nil
			}
		case "JIT":
			t.jitLine(s)
		case "Serialization":
			label, value, _ := strings.Cut(s, ": ")
			if label == "Buffers" || label == "I/O Timings" {
				t.buffersLine(&p.Serialization.Buffers, label, value)
			} else {
				t.warn("unknown serialization line")
			}
		default:
			t.warn("not understood")
		}
		return nil
	}
	t.section = ""
	t.stack = t.stack[:1]
	label, value, found := strings.Cut(s, ": ")
	if !found {
		label = strings.TrimSuffix(s, ":")
	}
	switch label {
	case "Planning Time", "Execution Time":
		f, ok := parseMs(value)
		if !ok {
			t.warn("time not understood")
			return nil
		}
		if label == "Planning Time" {
			p.PlanningTimeMs = &f
		} else {
			p.ExecutionTimeMs = &f
		}
	case "Planning", "JIT":
		if found {
			t.warn("not understood")
			return nil
		}
		t.section = label
		if label == "JIT" {
			p.JIT = &JIT{}
		}
	case "Settings":
		if p.Settings, found = parseSettings(value); !found {
			t.warn("settings not understood")
		}
	case "Serialization":
		t.section = label
		p.Serialization = &Serialization{}
		t.serialization(value)
	case "Query Identifier", "Query Text":
		put(&p.Extra, label, value)
	default:
		if strings.HasPrefix(s, "Trigger ") || strings.HasPrefix(s, "Trigger:") {
			t.trigger(s)
			return nil
		}
		if n, _ := nodeLine(s, true); n != nil {
			t.warn("the plan of a further statement; not parsed")
			t.done = true
			return nil
		}
		t.warn("not understood")
	}
	return nil
}

func (t *textParser) serialization(value string) {
	s := t.plan.Serialization
	for _, kv := range strings.Fields(value) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "time":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				s.TimeMs = &f
				continue
			}
		case "ms":
			continue
		case "output":
			if i, ok := atoi(strings.TrimSuffix(v, "kB")); ok {
				s.OutputKB = &i
				continue
			}
		case "format":
			s.Format = v
			continue
		}
		t.warn("serialization not understood")
		return
	}
}

// trigger reads "Trigger name[ for constraint c][ on rel]: time=ms calls=n".
func (t *textParser) trigger(s string) {
	i := strings.LastIndex(s, ": ")
	if i < 0 {
		t.warn("trigger not understood")
		return
	}
	var tr Trigger
	head, stats := strings.TrimPrefix(s[:i], "Trigger"), s[i+2:]
	if j := strings.LastIndex(head, " on "); j >= 0 {
		head, tr.Relation = head[:j], head[j+4:]
	}
	if j := strings.Index(head, " for constraint "); j >= 0 {
		head, tr.ConstraintName = head[:j], head[j+len(" for constraint "):]
	}
	tr.Name = strings.TrimPrefix(head, " ")
	for _, kv := range strings.Fields(stats) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "time":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				tr.TimeMs = &f
				continue
			}
		case "calls":
			if n, ok := atoi(v); ok {
				tr.Calls = &n
				continue
			}
		}
		t.warn("trigger not understood")
		return
	}
	t.plan.Triggers = append(t.plan.Triggers, tr)
}

// jitLine reads a line of the JIT block.
func (t *textParser) jitLine(s string) {
	j := t.plan.JIT
	label, value, _ := strings.Cut(s, ": ")
	switch label {
	case "Functions":
		if n, ok := atoi(value); ok {
			j.Functions = &n
			return
		}
	case "Options":
		// Inlining false, Optimization false, Expressions true, Deforming true
		ok := true
		for _, opt := range strings.Split(value, ", ") {
			name, v, _ := strings.Cut(opt, " ")
			b, err := strconv.ParseBool(v)
			if err != nil {
				ok = false
				continue
			}
			switch name {
			case "Inlining":
				j.Inlining = &b
			case "Optimization":
				j.Optimization = &b
			case "Expressions":
				j.Expressions = &b
			case "Deforming":
				j.Deforming = &b
			default:
				ok = false
			}
		}
		if ok {
			return
		}
	case "Timing":
		// Generation 1.2 ms (Deform 0.3 ms), Inlining 0.0 ms, ..., Total 5.9 ms
		ok := true
		for _, part := range strings.Split(value, ", ") {
			var deform string
			if i := strings.Index(part, " ("); i >= 0 && strings.HasSuffix(part, ")") {
				part, deform = part[:i], part[i+2:len(part)-1]
			}
			name, v, _ := strings.Cut(part, " ")
			f, good := parseMs(v)
			if !good {
				ok = false
				continue
			}
			switch name {
			case "Generation":
				j.GenerationMs = &f
			case "Inlining":
				j.InliningMs = &f
			case "Optimization":
				j.OptimizationMs = &f
			case "Emission":
				j.EmissionMs = &f
			case "Total":
				j.TotalMs = &f
			default:
				ok = false
			}
			if deform != "" {
				name, v, _ := strings.Cut(deform, " ")
				if f, good := parseMs(v); good && name == "Deform" {
					j.DeformMs = &f
				} else {
					ok = false
				}
			}
		}
		if ok {
			return
		}
	}
	t.warn("JIT line not understood")
}

// textExtra are the detail labels kept as text in a node's Extra. The
// labels in textPairs start a line of several "Label: value" pairs
// separated by two spaces, each kept under its own label.
var textExtra = map[string]bool{
	"Output": true, "Filter": true, "Index Cond": true, "Recheck Cond": true, "Order By": true,
	"Join Filter": true, "Hash Cond": true, "Merge Cond": true, "One-Time Filter": true,
	"TID Cond": true, "Sort Key": true, "Presorted Key": true, "Group Key": true, "Hash Key": true,
	"Sampling": true, "Function Call": true, "Table Function Call": true, "Cache Key": true,
	"Cache Mode": true, "Window": true, "Run Condition": true, "Conflict Resolution": true,
	"Conflict Arbiter Indexes": true, "Conflict Filter": true, "Rows Removed by Conflict Filter": true,
	"Tuples Inserted": true, "Conflicting Tuples": true, "Tuples": true, "Subplans Removed": true,
	"Full-sort Groups": true, "Pre-sorted Groups": true, "Single Copy": true, "Inner Unique": true,
	"Remote SQL": true, "Relations": true, "Heap Blocks": true, "JIT": true, "Functions": true,
	"Options": true, "Timing": true, "Custom Plan Provider": true,
}

var textPairs = map[string]bool{
	"Sort Method": true, "Buckets": true, "Batches": true, "Hits": true, "Storage": true,
	"Planned Partitions": true,
}

// nodeDetail reads a detail line of node n.
func (t *textParser) nodeDetail(n *Node, s string) error {
	label, value, found := strings.Cut(s, ": ")
	if !found && strings.HasSuffix(s, ":") {
		label, found = strings.TrimSuffix(s, ":"), true
	}
	if !found {
		if n.NodeType == "ModifyTable" && isModifyTarget(s) {
			put(&n.Extra, "Target Tables", s)
			return nil
		}
		t.warn("detail line not understood")
		return nil
	}
	var ip **int64
	var fp **float64
	switch label {
	case "Workers Planned":
		ip = &n.WorkersPlanned
	case "Workers Launched":
		ip = &n.WorkersLaunched
	case "Heap Fetches":
		ip = &n.HeapFetches
	case "Index Searches":
		ip = &n.IndexSearches
	case "Rows Removed by Filter":
		fp = &n.RowsRemovedByFilter
	case "Rows Removed by Index Recheck":
		fp = &n.RowsRemovedByIndexRecheck
	case "Rows Removed by Join Filter":
		fp = &n.RowsRemovedByJoinFilter
	case "Disabled":
		b, err := strconv.ParseBool(value)
		if err != nil {
			t.warn("not true or false")
			return nil
		}
		n.Disabled = &b
		return nil
	case "Heap Blocks":
		for _, kv := range strings.Fields(value) {
			k, v, _ := strings.Cut(kv, "=")
			i, ok := atoi(v)
			switch {
			case ok && k == "exact":
				n.ExactHeapBlocks = &i
			case ok && k == "lossy":
				n.LossyHeapBlocks = &i
			default:
				t.warn("heap blocks not understood")
				return nil
			}
		}
		return nil
	}
	switch {
	case ip != nil:
		i, ok := atoi(value)
		if !ok {
			t.warn("not a whole number")
			return nil
		}
		*ip = &i
		return nil
	case fp != nil:
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.warn("not a number")
			return nil
		}
		*fp = &f
		return nil
	}
	if t.common(&n.Buffers, &n.WAL, &n.Extra, label, value, s) {
		return nil
	}
	t.warn("unknown detail line")
	return nil
}

// workerDetail reads a line of a "Worker N:" block.
func (t *textParser) workerDetail(s string) error {
	w := t.worker
	if rest, ok := strings.CutPrefix(s, "actual "); ok {
		if !parseActual(rest, &w.ActualStartupTimeMs, &w.ActualTotalTimeMs, &w.ActualRows, &w.ActualLoops) {
			t.warn("worker's actual figures not understood")
		}
		return nil
	}
	label, value, found := strings.Cut(s, ": ")
	if !found && strings.HasSuffix(s, ":") {
		label, found = strings.TrimSuffix(s, ":"), true
	}
	if found && t.common(&w.Buffers, &w.WAL, &w.Extra, label, value, s) {
		return nil
	}
	t.warn("worker line not understood")
	return nil
}

// common reads the detail lines nodes and workers share: buffers, I/O
// timings, WAL and the labels kept as text.
func (t *textParser) common(b *Buffers, w *WAL, extra *map[string]any, label, value, s string) bool {
	switch {
	case label == "Buffers" || label == "I/O Timings":
		t.buffersLine(b, label, value)
	case label == "WAL":
		t.walLine(w, value)
	case textPairs[label]:
		for _, pair := range strings.Split(s, "  ") {
			k, v, _ := strings.Cut(strings.TrimSpace(pair), ": ")
			put(extra, k, v)
		}
	case textExtra[label]:
		put(extra, label, value)
	default:
		return false
	}
	return true
}

// buffersLine reads "shared hit=1 read=2 dirtied=3 written=4, local ...,
// temp read=5 written=6" (Buffers) or "shared read=1.0 write=2.0, local
// ..., temp ..." (I/O Timings; "read=1.0 write=2.0" in 13-14 and
// "shared/local read=" in 15-16).
//
// Text leaves out the counters that are zero. Those a printed line leaves
// out are set to zero: all ten block counters for Buffers; for I/O
// Timings, the shared read and write times and those of the other scopes
// the line names (the scopes a version has are not known from the text).
func (t *textParser) buffersLine(b *Buffers, label, value string) {
	if label == "Buffers" {
		for _, p := range []**int64{&b.SharedHitBlocks, &b.SharedReadBlocks, &b.SharedDirtiedBlocks,
			&b.SharedWrittenBlocks, &b.LocalHitBlocks, &b.LocalReadBlocks, &b.LocalDirtiedBlocks,
			&b.LocalWrittenBlocks, &b.TempReadBlocks, &b.TempWrittenBlocks} {
			zeroInt(p)
		}
	} else {
		zeroFloat(&b.SharedIOReadTimeMs)
		zeroFloat(&b.SharedIOWriteTimeMs)
	}
	for _, group := range strings.Split(value, ", ") {
		fields := strings.Fields(group)
		scope := "shared"
		if len(fields) > 0 && !strings.Contains(fields[0], "=") {
			scope, fields = fields[0], fields[1:]
		}
		if scope == "shared/local" {
			scope = "shared"
		}
		if label == "I/O Timings" {
			switch scope {
			case "local":
				zeroFloat(&b.LocalIOReadTimeMs)
				zeroFloat(&b.LocalIOWriteTimeMs)
			case "temp":
				zeroFloat(&b.TempIOReadTimeMs)
				zeroFloat(&b.TempIOWriteTimeMs)
			}
		}
		for _, kv := range fields {
			k, v, _ := strings.Cut(kv, "=")
			if !t.bufferCounter(b, label, scope, k, v) {
				t.warn(strings.ToLower(label) + " not understood")
				return
			}
		}
	}
}

func (t *textParser) bufferCounter(b *Buffers, label, scope, k, v string) bool {
	if label == "I/O Timings" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return false
		}
		var p **float64
		switch scope + " " + k {
		case "shared read":
			p = &b.SharedIOReadTimeMs
		case "shared write":
			p = &b.SharedIOWriteTimeMs
		case "local read":
			p = &b.LocalIOReadTimeMs
		case "local write":
			p = &b.LocalIOWriteTimeMs
		case "temp read":
			p = &b.TempIOReadTimeMs
		case "temp write":
			p = &b.TempIOWriteTimeMs
		default:
			return false
		}
		*p = &f
		return true
	}
	i, ok := atoi(v)
	if !ok {
		return false
	}
	var p **int64
	switch scope + " " + k {
	case "shared hit":
		p = &b.SharedHitBlocks
	case "shared read":
		p = &b.SharedReadBlocks
	case "shared dirtied":
		p = &b.SharedDirtiedBlocks
	case "shared written":
		p = &b.SharedWrittenBlocks
	case "local hit":
		p = &b.LocalHitBlocks
	case "local read":
		p = &b.LocalReadBlocks
	case "local dirtied":
		p = &b.LocalDirtiedBlocks
	case "local written":
		p = &b.LocalWrittenBlocks
	case "temp read":
		p = &b.TempReadBlocks
	case "temp written":
		p = &b.TempWrittenBlocks
	default:
		return false
	}
	*p = &i
	return true
}

func zeroInt(p **int64) {
	if *p == nil {
		*p = new(int64)
	}
}

func zeroFloat(p **float64) {
	if *p == nil {
		*p = new(float64)
	}
}

// walLine reads "records=1 fpi=2 bytes=3 buffers full=4". Records, full
// page images and bytes the line leaves out are zero.
func (t *textParser) walLine(w *WAL, value string) {
	zeroInt(&w.WALRecords)
	zeroInt(&w.WALFPI)
	zeroInt(&w.WALBytes)
	fields := strings.Fields(strings.ReplaceAll(value, "buffers full=", "buffers_full="))
	for _, kv := range fields {
		k, v, _ := strings.Cut(kv, "=")
		i, ok := atoi(v)
		if !ok {
			t.warn("WAL not understood")
			return
		}
		switch k {
		case "records":
			w.WALRecords = &i
		case "fpi":
			w.WALFPI = &i
		case "bytes":
			w.WALBytes = &i
		case "buffers_full":
			w.WALBuffersFull = &i
		default:
			t.warn("WAL not understood")
			return
		}
	}
}

// exMs parses "1.234 ms" or "1.234".
func parseMs(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, " ms"), 64)
	return f, err == nil
}

// parseSettings parses "name = 'value', name2 = 'value2'". Values are printed
// without escaping, so a value ends at the quote followed by ", name = " or
// by the end.
func parseSettings(s string) (map[string]string, bool) {
	m := map[string]string{}
	for s != "" {
		name, rest, ok := strings.Cut(s, " = ")
		if !ok || name == "" || strings.ContainsAny(name, " '") {
			return m, false
		}
		if r, ok := strings.CutPrefix(rest, "NULL"); ok && (r == "" || strings.HasPrefix(r, ", ")) {
			m[name] = ""
			s = strings.TrimPrefix(r, ", ")
			continue
		}
		rest, ok = strings.CutPrefix(rest, "'")
		if !ok {
			return m, false
		}
		end := -1
		for i := 0; i < len(rest); i++ {
			if rest[i] != '\'' {
				continue
			}
			if i == len(rest)-1 {
				end = i
				break
			}
			if after, ok := strings.CutPrefix(rest[i+1:], ", "); ok {
				if n, _, ok := strings.Cut(after, " = "); ok && n != "" && !strings.ContainsAny(n, " '") {
					end = i
					break
				}
			}
		}
		if end < 0 {
			return m, false
		}
		m[name] = rest[:end]
		s = strings.TrimPrefix(rest[end+1:], ", ")
	}
	return m, true
}

func isSubplanName(s string) bool {
	for _, p := range []string{"InitPlan ", "SubPlan ", "CTE "} {
		if strings.HasPrefix(s, p) && !strings.Contains(s, ": ") {
			return true
		}
	}
	return false
}

func isModifyTarget(s string) bool {
	s = strings.TrimPrefix(s, "Foreign ")
	for _, op := range []string{"Insert", "Update", "Delete", "Merge"} {
		if strings.HasPrefix(s, op+" on ") {
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

// shorten cuts a line for an error message.
func shorten(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if s[i]&0xC0 != 0x80 {
			return s[:i] + "..."
		}
	}
	return s[:max]
}

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
// else n is nil; a child line is always a node.
func nodeLine(s string, root bool) (n *Node, problem string) {
	n = &Node{}
	head := s
	var stats []string
	// The parenthesized groups at the end: "  (cost=...)", " (actual ...)",
	// " (never executed)".
	for strings.HasSuffix(head, ")") {
		i := strings.LastIndex(head, " (")
		if i < 0 {
			break
		}
		g := head[i+2 : len(head)-1]
		if !strings.HasPrefix(g, "cost=") && !strings.HasPrefix(g, "actual ") && g != "never executed" {
			break
		}
		stats = append(stats, g)
		head = strings.TrimRight(head[:i], " ")
	}
	ok := true
	for _, g := range stats {
		switch {
		case g == "never executed":
			n.NeverExecuted = true
			var zero int64
			var rows float64
			n.ActualLoops, n.ActualRows = &zero, &rows
		case strings.HasPrefix(g, "cost="):
			ok = parseCost(g, n) && ok
		default:
			ok = parseActual(strings.TrimPrefix(g, "actual "), &n.ActualStartupTimeMs, &n.ActualTotalTimeMs, &n.ActualRows, &n.ActualLoops) && ok
		}
	}
	f := false
	n.ParallelAware = &f
	if rest, ok := strings.CutPrefix(head, "Parallel "); ok {
		t := true
		n.ParallelAware, head = &t, rest
	}
	if rest, ok := strings.CutPrefix(head, "Async "); ok {
		t := true
		n.AsyncCapable, head = &t, rest
	}
	name, rest := matchName(head)
	spec, known := nodeNames[name]
	if !known && strings.HasPrefix(head, "Custom Scan (") {
		if i := strings.Index(head, ")"); i >= 0 {
			known, name, rest = true, head[:i+1], strings.TrimPrefix(head[i+1:], " ")
			spec = nodeSpec{nodeType: "Custom Scan"}
			n.CustomPlanProvider = strings.TrimSuffix(strings.TrimPrefix(name, "Custom Scan ("), ")")
		}
	}
	if !known {
		if root && len(stats) == 0 {
			return nil, "not a plan node"
		}
		n.NodeType = head
		if head == "" {
			n.NodeType = s
		}
		return n, "unknown node type"
	}
	n.NodeType, n.Strategy, n.PartialMode = spec.nodeType, spec.strategy, spec.partialMode
	n.Operation, n.JoinType, n.Command = spec.operation, spec.joinType, spec.command
	if !parseTarget(n, rest) {
		put(&n.Extra, "Target", rest)
		return n, "target of the node not understood"
	}
	if !ok {
		return n, "figures of the node not understood"
	}
	return n, ""
}

// matchName finds the longest known node name that head starts with,
// followed by a space or the end.
func matchName(head string) (string, string) {
	best := -1
	for i := 0; i <= len(head); i++ {
		if i < len(head) && head[i] != ' ' {
			continue
		}
		if _, ok := nodeNames[head[:i]]; ok {
			best = i
		}
		if i > 40 {
			break
		}
	}
	if best < 0 {
		return "", head
	}
	return head[:best], strings.TrimPrefix(head[best:], " ")
}

// parseCost parses "cost=0.00..1.23 rows=4 width=5".
func parseCost(g string, n *Node) bool {
	for _, kv := range strings.Fields(g) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "cost":
			a, b, ok := strings.Cut(v, "..")
			fa, err1 := strconv.ParseFloat(a, 64)
			fb, err2 := strconv.ParseFloat(b, 64)
			if !ok || err1 != nil || err2 != nil {
				return false
			}
			n.StartupCost, n.TotalCost = &fa, &fb
		case "rows":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return false
			}
			n.PlanRows = &f
		case "width":
			i, ok := atoi(v)
			if !ok {
				return false
			}
			n.PlanWidth = &i
		default:
			return false
		}
	}
	return true
}

// parseActual parses "time=0.1..2.3 rows=4 loops=1" or "rows=4.00 loops=1".
func parseActual(g string, start, total, rows **float64, loops **int64) bool {
	for _, kv := range strings.Fields(g) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "time":
			a, b, ok := strings.Cut(v, "..")
			fa, err1 := strconv.ParseFloat(a, 64)
			fb, err2 := strconv.ParseFloat(b, 64)
			if !ok || err1 != nil || err2 != nil {
				return false
			}
			*start, *total = &fa, &fb
		case "rows":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return false
			}
			*rows = &f
		case "loops":
			i, ok := atoi(v)
			if !ok {
				return false
			}
			*loops = &i
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

// relationships fills in each node's relationship to its parent, which
// text does not print, the way the server assigns it.
func relationships(n *Node) {
	stack := []*Node{n}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ordinal := 0
		for _, c := range p.Plans {
			switch {
			case strings.HasPrefix(c.SubplanName, "SubPlan "):
				c.ParentRelationship = "SubPlan"
			case c.SubplanName != "":
				c.ParentRelationship = "InitPlan"
			default:
				switch p.NodeType {
				case "Append", "Merge Append", "BitmapAnd", "BitmapOr":
					c.ParentRelationship = "Member"
				case "Subquery Scan":
					c.ParentRelationship = "Subquery"
				case "Custom Scan":
					c.ParentRelationship = "child"
					if len(p.Plans) != 1 {
						c.ParentRelationship = "children"
					}
				default:
					c.ParentRelationship = "Outer"
					if ordinal > 0 {
						c.ParentRelationship = "Inner"
					}
				}
				ordinal++
			}
			stack = append(stack, c)
		}
	}
}
