package explain

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"
)

// Shape renders the plan tree on one line, each node as the text format
// names it, without numbers, aliases or schemas:
//
//	Finalize Aggregate > Gather > Partial Aggregate > Parallel Seq Scan on pgbench_accounts
//
// A node with one child is followed by " > " and the child. A node with
// several children lists them in parentheses, separated by ", ", in the
// order the server prints them (init plans, outer, inner, members,
// subplans); a child that is an init plan or a subplan is marked
// "InitPlan: " or "SubPlan: ":
//
//	Hash Join (Seq Scan on a, Hash > Seq Scan on b)
//	Limit (InitPlan: Result, Index Scan Backward using t_pkey on t)
//
// A node's name says what the fingerprint covers: its type with its
// strategy, partial mode, operation, join type or set command ("Finalize
// HashAggregate", "Hash Right Anti Join", "Update", "HashSetOp Except"),
// "Parallel " and "Async " when the node is parallel aware or async
// capable, the index with " using " (" on " for a Bitmap Index Scan) and
// "Backward" for a backward index scan, and the relation or CTE scanned
// with " on " (not the function of a Function Scan, which text cannot
// always tell from its alias). Shape is "" for a Plan without a root.
func (p *Plan) Shape() string {
	if p == nil || p.Root == nil {
		return ""
	}
	w := shapeWriter{}
	w.tree(p.Root)
	if w.full == nil {
		return string(w.b)
	}
	var b strings.Builder
	b.Grow(w.size + len(w.b))
	for _, c := range w.full {
		b.Write(c)
	}
	b.Write(w.b)
	return b.String()
}

// Fingerprint is a stable identifier of the plan's shape: the hex SHA-256
// of a canonical rendering of what Shape shows, with every name quoted so
// that no name can pass for structure. It leaves out every number (costs,
// rows, widths, times, loops, buffers, workers planned and launched), the
// aliases, schemas and subplan names, and the details a run or an option
// adds (ANALYZE, BUFFERS, VERBOSE, "never executed", "Disabled"), so two
// runs of the same plan have the same fingerprint whether EXPLAIN ran with
// ANALYZE or not, printed JSON or text, on any version from 13 to 18. It
// covers: node types with their strategy, partial mode, operation, join
// type and set command; parallel awareness and async capability (a Gather
// and its workers show as the Gather node and Parallel nodes under it);
// relations, CTEs and indexes scanned; backward index scans;
// the order of children (so the join order); and which children are init
// plans or subplans. It is "" for a Plan without a root.
func (p *Plan) Fingerprint() string {
	if p == nil || p.Root == nil {
		return ""
	}
	w := shapeWriter{quote: true, h: sha256.New()}
	w.str("pgstudy explain fingerprint 1\n")
	w.tree(p.Root)
	w.h.Write(w.b)
	return hex.EncodeToString(w.h.Sum(nil))
}

// shapeWriter renders a plan's tree: Shape's, or, quoting every name,
// the fingerprint's, hashed as it is rendered. A plan of a hundred
// thousand nodes renders to megabytes: Shape's rendering is kept in
// chunks, joined once at the end, as a buffer grown by append copied it
// several times over and cleared its room (a tenth of pgstudy parse).
type shapeWriter struct {
	b     []byte
	quote bool
	h     hash.Hash // the fingerprint's hash, which b is written to once it holds 32 KiB; nil for Shape
	full  [][]byte  // Shape's full chunks, before b
	size  int       // their bytes
}

func (w *shapeWriter) str(s string) { w.b = append(w.b, s...) }

// name writes a name, quoted for the fingerprint.
func (w *shapeWriter) name(s string) {
	if w.quote {
		w.b = strconv.AppendQuote(w.b, s)
	} else {
		w.b = append(w.b, s...)
	}
}

// spill writes what the buffer holds to the fingerprint's hash, or keeps
// it as a chunk of Shape's, once it holds 32 KiB.
func (w *shapeWriter) spill() {
	const chunk = 32 << 10
	switch {
	case len(w.b) < chunk:
	case w.h != nil:
		w.h.Write(w.b)
		w.b = w.b[:0]
	default:
		w.full = append(w.full, w.b)
		w.size += len(w.b)
		w.b = make([]byte, 0, chunk+chunk/4)
	}
}

// tree renders n and its children.
func (w *shapeWriter) tree(n *Node) {
	// The children being rendered of each node from n down: an explicit
	// stack, as plans can be deep.
	type frame struct {
		kids  []*Node
		next  int  // the next child to render
		paren bool // the children are in parentheses, not after " > "
	}
	var stack []frame
	enter := func(n *Node) {
		w.label(n)
		w.spill()
		if kids := n.Plans; len(kids) > 0 {
			stack = append(stack, frame{kids: kids, paren: len(kids) > 1 || relation(kids[0]) != ""})
		}
	}
	enter(n)
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next == len(f.kids) {
			if f.paren {
				w.str(")")
			}
			stack = stack[:len(stack)-1]
			continue
		}
		c := f.kids[f.next]
		switch {
		case !f.paren:
			w.str(" > ")
		case f.next == 0:
			w.str(" (")
		default:
			w.str(", ")
		}
		if f.paren {
			w.str(relation(c))
		}
		f.next++
		enter(c)
	}
}

// relation is how Shape marks a child that is an init plan or a subplan.
func relation(c *Node) string {
	switch c.ParentRelationship {
	case "InitPlan":
		return "InitPlan: "
	case "SubPlan":
		return "SubPlan: "
	}
	return ""
}

// label writes a node as Shape shows it.
func (w *shapeWriter) label(n *Node) {
	if n.ParallelAware.V {
		w.str("Parallel ")
	}
	if n.AsyncCapable.V {
		w.str("Async ")
	}
	w.name(displayName(n))
	switch {
	case n.NodeType == "Bitmap Index Scan":
		if n.IndexName != "" {
			w.str(" on ")
			w.name(n.IndexName)
		}
		return
	case n.IndexName != "":
		if n.ScanDirection == "Backward" {
			w.str(" Backward")
		}
		w.str(" using ")
		w.name(n.IndexName)
	}
	// Not the function of a Function Scan: when the server prints one
	// name, text cannot tell the function from the alias (ROWS FROM and
	// other calls print only the alias).
	for _, target := range [...]string{n.RelationName, n.CTEName} {
		if target != "" {
			w.str(" on ")
			w.name(target)
			return
		}
	}
}

// displayName is a node's name as the text format prints it.
func displayName(n *Node) string {
	switch n.NodeType {
	case "Aggregate":
		name, ok := aggNames[n.Strategy]
		if !ok {
			name = "Aggregate"
		}
		if n.PartialMode == "Partial" || n.PartialMode == "Finalize" {
			name = n.PartialMode + " " + name
		}
		return name
	case "ModifyTable":
		if n.Operation != "" {
			return n.Operation
		}
	case "Foreign Scan":
		if n.Operation != "" && n.Operation != "Select" {
			return "Foreign " + n.Operation
		}
	case "Custom Scan":
		if n.CustomPlanProvider != "" {
			return "Custom Scan (" + n.CustomPlanProvider + ")"
		}
	case "Nested Loop", "Hash Join", "Merge Join":
		return joinName(n.NodeType, n.JoinType)
	case "SetOp":
		name := "SetOp"
		if n.Strategy == "Hashed" {
			name = "HashSetOp"
		}
		if n.Command != "" {
			name += " " + n.Command
		}
		return name
	}
	return n.NodeType
}
