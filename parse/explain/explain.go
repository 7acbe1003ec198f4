package explain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
)

// Plan is one EXPLAIN of one statement, from PostgreSQL 13 to 18.
//
// JSON and Text read what the server returns for
// EXPLAIN (ANALYZE, BUFFERS, SETTINGS, WAL, TIMING, FORMAT JSON|TEXT) and
// every subset of those options: the raw server output as psql -XAt prints
// it, psql's unaligned output with its "QUERY PLAN" header and "(N rows)"
// footer, and psql's default aligned output, where every row starts with a
// space and a JSON document is one row whose lines end in a "+" continuation
// marker (what users paste).
//
// Both return the same Plan. Fields the server prints under a name this
// package knows land in typed fields; in JSON, every other key of a node is
// kept in the node's Extra map, as decoded (numbers as json.Number); in text,
// the detail lines the package knows but does not type (Filter, Sort Key,
// Output, ...) are kept in Extra as strings under their label, and any other
// line is returned as a Warning. Where the two formats differ:
//
//   - JSON prints every counter of BUFFERS and WAL, zeros included; text
//     leaves out the counters that are zero, and a whole line when all are.
//     A counter a printed line leaves out is zero (all ten block counters
//     for "Buffers:", the shared times and those of the scopes the line
//     names for "I/O Timings:", records, fpi and bytes for "WAL:"); with
//     no line, the counters are nil, as text cannot tell zero from the
//     option being off.
//   - JSON prints "Scan Direction" for every index scan; text says only
//     "Backward", so ScanDirection is "Backward" or empty in text.
//   - JSON prints the Alias always; text only when it differs from the
//     relation's name, and then Alias is set to that name (as the server
//     would print it).
//   - Text does not name a node's relationship to its parent; Text
//     infers it the way the server assigns it (InitPlan, SubPlan, Member,
//     Subquery, Outer, Inner) from 14 on. (13 printed the child of a
//     ModifyTable as a Member; text infers Outer.)
//
// Versions differ too, and land in the same fields: 18 prints actual rows
// with two decimals (rows are per loop, so a parallel scan's are a
// fraction; ActualRows is a float64 for every version), and adds "Index
// Searches", "Disabled" and "WAL Buffers Full"; 17 split the I/O timings
// into shared, local and temp (before, "I/O Read Time" counted shared and
// local blocks together, and lands in SharedIOReadTimeMs; 15 and 16 added
// temp); 14 added "Async Capable".
type Plan struct {
	Format string `json:"format"` // "json" or "text": what was parsed
	Root   *Node  `json:"root"`

	// Settings are the settings that differ from their defaults and
	// affect planning (EXPLAIN option SETTINGS), as the server prints them.
	Settings map[string]string `json:"settings,omitempty"`

	PlanningTimeMs *float64 `json:"planning_time_ms,omitempty"`
	// PlanningBuffers is the buffer use of planning (BUFFERS, 13+).
	PlanningBuffers           *Buffers `json:"planning_buffers,omitempty"`
	PlanningMemoryUsedKB      *int64   `json:"planning_memory_used_kb,omitempty"`      // MEMORY, 17+
	PlanningMemoryAllocatedKB *int64   `json:"planning_memory_allocated_kb,omitempty"` // MEMORY, 17+
	ExecutionTimeMs           *float64 `json:"execution_time_ms,omitempty"`

	Triggers      []Trigger      `json:"triggers,omitempty"`
	JIT           *JIT           `json:"jit,omitempty"`
	Serialization *Serialization `json:"serialization,omitempty"` // SERIALIZE, 17+

	// Extra holds the other top-level entries: in JSON the keys this
	// package does not map (such as "Query Identifier"), in text the
	// labelled lines it knows but does not type.
	Extra map[string]any `json:"extra,omitempty"`
}

// Node is one node of a plan tree. Pointer fields are nil when the
// server did not print them (an option was off, the version does not have
// them, or, in text, a counter was zero).
type Node struct {
	// NodeType is the JSON "Node Type": "Aggregate", "Hash Join",
	// "ModifyTable", "Seq Scan". Text names such as "Finalize
	// HashAggregate", "Hash Left Join" or "Update" are split into NodeType
	// and the fields below, as JSON prints them.
	NodeType           string `json:"node_type"`
	Strategy           string `json:"strategy,omitempty"`     // Aggregate, SetOp: Plain, Sorted, Hashed, Mixed
	PartialMode        string `json:"partial_mode,omitempty"` // Aggregate: Simple, Partial, Finalize
	Operation          string `json:"operation,omitempty"`    // ModifyTable, Foreign Scan: Select, Insert, Update, Delete, Merge
	JoinType           string `json:"join_type,omitempty"`    // Inner, Left, Full, Right, Semi, Anti, Right Semi, Right Anti
	Command            string `json:"command,omitempty"`      // SetOp: Intersect, Intersect All, Except, Except All
	ParentRelationship string `json:"parent_relationship,omitempty"`
	SubplanName        string `json:"subplan_name,omitempty"`
	CustomPlanProvider string `json:"custom_plan_provider,omitempty"`
	ParallelAware      *bool  `json:"parallel_aware,omitempty"`
	AsyncCapable       *bool  `json:"async_capable,omitempty"` // 14+

	RelationName  string `json:"relation_name,omitempty"`
	FunctionName  string `json:"function_name,omitempty"`
	CTEName       string `json:"cte_name,omitempty"`
	Schema        string `json:"schema,omitempty"` // VERBOSE only
	Alias         string `json:"alias,omitempty"`
	IndexName     string `json:"index_name,omitempty"`
	ScanDirection string `json:"scan_direction,omitempty"` // Forward, Backward, NoMovement

	StartupCost *float64 `json:"startup_cost,omitempty"`
	TotalCost   *float64 `json:"total_cost,omitempty"`
	PlanRows    *float64 `json:"plan_rows,omitempty"`
	PlanWidth   *int64   `json:"plan_width,omitempty"`

	// Actual times and rows are per loop, as the server prints them.
	ActualStartupTimeMs *float64 `json:"actual_startup_time_ms,omitempty"`
	ActualTotalTimeMs   *float64 `json:"actual_total_time_ms,omitempty"`
	ActualRows          *float64 `json:"actual_rows,omitempty"`
	ActualLoops         *int64   `json:"actual_loops,omitempty"`
	// NeverExecuted is true when ANALYZE ran the statement but not this
	// node: text says "(never executed)", JSON "Actual Loops": 0.
	NeverExecuted bool  `json:"never_executed,omitempty"`
	Disabled      *bool `json:"disabled,omitempty"` // 18+

	// Rows removed are averages per loop, as the server prints them.
	RowsRemovedByFilter       *float64 `json:"rows_removed_by_filter,omitempty"`
	RowsRemovedByIndexRecheck *float64 `json:"rows_removed_by_index_recheck,omitempty"`
	RowsRemovedByJoinFilter   *float64 `json:"rows_removed_by_join_filter,omitempty"`
	HeapFetches               *int64   `json:"heap_fetches,omitempty"`
	IndexSearches             *int64   `json:"index_searches,omitempty"` // 18+
	ExactHeapBlocks           *int64   `json:"exact_heap_blocks,omitempty"`
	LossyHeapBlocks           *int64   `json:"lossy_heap_blocks,omitempty"`
	WorkersPlanned            *int64   `json:"workers_planned,omitempty"`
	WorkersLaunched           *int64   `json:"workers_launched,omitempty"`

	Buffers
	WAL

	// Workers are the per-worker figures of a node run by parallel
	// workers (VERBOSE, or sort and hash details).
	Workers []Worker `json:"workers,omitempty"`

	Extra map[string]any `json:"extra,omitempty"`
	Plans []*Node        `json:"plans,omitempty"`
}

// Worker is what one parallel worker did in a node.
type Worker struct {
	WorkerNumber        int      `json:"worker_number"`
	ActualStartupTimeMs *float64 `json:"actual_startup_time_ms,omitempty"`
	ActualTotalTimeMs   *float64 `json:"actual_total_time_ms,omitempty"`
	ActualRows          *float64 `json:"actual_rows,omitempty"`
	ActualLoops         *int64   `json:"actual_loops,omitempty"`
	Buffers
	WAL
	Extra map[string]any `json:"extra,omitempty"`
}

// Buffers is the BUFFERS part of a node, of planning or of
// serialization, with the I/O timings of track_io_timing.
type Buffers struct {
	SharedHitBlocks     *int64 `json:"shared_hit_blocks,omitempty"`
	SharedReadBlocks    *int64 `json:"shared_read_blocks,omitempty"`
	SharedDirtiedBlocks *int64 `json:"shared_dirtied_blocks,omitempty"`
	SharedWrittenBlocks *int64 `json:"shared_written_blocks,omitempty"`
	LocalHitBlocks      *int64 `json:"local_hit_blocks,omitempty"`
	LocalReadBlocks     *int64 `json:"local_read_blocks,omitempty"`
	LocalDirtiedBlocks  *int64 `json:"local_dirtied_blocks,omitempty"`
	LocalWrittenBlocks  *int64 `json:"local_written_blocks,omitempty"`
	TempReadBlocks      *int64 `json:"temp_read_blocks,omitempty"`
	TempWrittenBlocks   *int64 `json:"temp_written_blocks,omitempty"`

	// SharedIOReadTimeMs is "Shared I/O Read Time" (17+), or "I/O Read
	// Time" before 17, which counted shared and local blocks together
	// (text: "I/O Timings: read=" in 13-14, "shared/local read=" in 15-16,
	// "shared read=" from 17). Likewise for writes.
	SharedIOReadTimeMs  *float64 `json:"shared_io_read_time_ms,omitempty"`
	SharedIOWriteTimeMs *float64 `json:"shared_io_write_time_ms,omitempty"`
	LocalIOReadTimeMs   *float64 `json:"local_io_read_time_ms,omitempty"`  // 17+
	LocalIOWriteTimeMs  *float64 `json:"local_io_write_time_ms,omitempty"` // 17+
	TempIOReadTimeMs    *float64 `json:"temp_io_read_time_ms,omitempty"`   // 15+
	TempIOWriteTimeMs   *float64 `json:"temp_io_write_time_ms,omitempty"`  // 15+
}

// WAL is the WAL part of a node (EXPLAIN option WAL, 13+).
type WAL struct {
	WALRecords     *int64 `json:"wal_records,omitempty"`
	WALFPI         *int64 `json:"wal_fpi,omitempty"` // full page images
	WALBytes       *int64 `json:"wal_bytes,omitempty"`
	WALBuffersFull *int64 `json:"wal_buffers_full,omitempty"` // 18+
}

// Trigger is the time spent in one trigger (ANALYZE).
type Trigger struct {
	Name           string         `json:"name,omitempty"`
	ConstraintName string         `json:"constraint_name,omitempty"`
	Relation       string         `json:"relation,omitempty"`
	TimeMs         *float64       `json:"time_ms,omitempty"`
	Calls          *int64         `json:"calls,omitempty"`
	Extra          map[string]any `json:"extra,omitempty"`
}

// JIT is the JIT compilation summary.
type JIT struct {
	Functions      *int64         `json:"functions,omitempty"`
	Inlining       *bool          `json:"inlining,omitempty"`
	Optimization   *bool          `json:"optimization,omitempty"`
	Expressions    *bool          `json:"expressions,omitempty"`
	Deforming      *bool          `json:"deforming,omitempty"`
	GenerationMs   *float64       `json:"generation_ms,omitempty"`
	DeformMs       *float64       `json:"deform_ms,omitempty"` // 17+, part of GenerationMs
	InliningMs     *float64       `json:"inlining_ms,omitempty"`
	OptimizationMs *float64       `json:"optimization_ms,omitempty"`
	EmissionMs     *float64       `json:"emission_ms,omitempty"`
	TotalMs        *float64       `json:"total_ms,omitempty"`
	Extra          map[string]any `json:"extra,omitempty"`
}

// Serialization is the cost of sending the result (EXPLAIN option
// SERIALIZE, 17+).
type Serialization struct {
	TimeMs   *float64 `json:"time_ms,omitempty"`
	OutputKB *int64   `json:"output_kb,omitempty"`
	Format   string   `json:"format,omitempty"`
	Buffers
	Extra map[string]any `json:"extra,omitempty"`
}

// maxDepth bounds the nesting of JSON values and plan nodes.
const maxDepth = 10000

// JSON parses the output of EXPLAIN (FORMAT JSON): a JSON array of
// one object per statement (or the single object auto_explain logs), raw or
// as psql prints it. Only the first statement's plan is returned; a further
// one is a Warning.
func JSON(r io.Reader, source string) (*Plan, []parse.Warning, error) {
	data, err := jsonInput(r, source)
	if err != nil {
		return nil, nil, err
	}
	d := newJSONDecoder(data, source)
	switch c := d.peek(); c {
	case 0:
		return nil, nil, parse.Errorf(source, 0, "empty input; expected EXPLAIN (FORMAT JSON) output")
	case '[', '{':
	default:
		return nil, nil, parse.Errorf(source, d.line(), "expected EXPLAIN (FORMAT JSON) output (a JSON array or object), found %q", firstWord(data[d.pos:]))
	}
	p := &Plan{Format: "json"}
	var warns []parse.Warning
	if d.peek() == '{' {
		if err := d.query(p); err != nil {
			return nil, nil, err
		}
	} else {
		n := 0
		start := d.line()
		err := d.array("plans", func(line int) error {
			q := p
			if n > 0 {
				q = &Plan{Format: "json"}
				warns = append(warns, parse.Warning{Source: source, Line: line, Text: lineText(data, line),
					Msg: fmt.Sprintf("plan of statement %d not returned (only the first statement's is)", n+1)})
			}
			n++
			return d.query(q)
		})
		if err != nil {
			return nil, nil, err
		}
		if n == 0 {
			return nil, nil, parse.Errorf(source, start, "empty JSON array; expected a plan")
		}
	}
	if d.peek() != 0 {
		line := d.line()
		warns = append(warns, parse.Warning{Source: source, Line: line, Text: lineText(data, line), Msg: "text after the JSON plan, ignored"})
	}
	return p, warns, nil
}

// query reads a statement's object.
func (d *jsonDecoder) query(p *Plan) error {
	if d.peek() != '{' {
		return d.mismatch("", "a JSON object with a \"Plan\"")
	}
	return d.queryBody(p, d.line())
}

// queryBody reads the members of a statement's object.
func (d *jsonDecoder) queryBody(p *Plan, line int) error {
	err := d.object("plan", func(key string, line int) error {
		var err error
		switch key {
		case "Plan":
			if p.Root != nil {
				return d.errorf(line, "a second \"Plan\" in one statement")
			}
			p.Root = &Node{}
			return d.node(p.Root)
		case "Planning Time":
			p.PlanningTimeMs, err = d.float(key, line)
		case "Execution Time":
			p.ExecutionTimeMs, err = d.float(key, line)
		case "Planning":
			var b Buffers
			var extra map[string]any
			err = d.object(strconv.Quote(key), func(k string, line int) error {
				switch k {
				case "Memory Used":
					p.PlanningMemoryUsedKB, err = d.integer(k, line)
					return err
				case "Memory Allocated":
					p.PlanningMemoryAllocatedKB, err = d.integer(k, line)
					return err
				}
				if ok, err := d.buffers(&b, k, line); ok || err != nil {
					return err
				}
				return d.extra(&extra, k)
			})
			if b != (Buffers{}) {
				p.PlanningBuffers = &b
			}
			if extra != nil {
				put(&p.Extra, key, extra)
			}
		case "Settings":
			p.Settings = map[string]string{}
			err = d.object(strconv.Quote(key), func(k string, line int) error {
				v, err := d.value()
				if s, ok := v.(string); ok {
					p.Settings[k] = s
				} else if err == nil {
					b, _ := json.Marshal(v)
					p.Settings[k] = string(b)
				}
				return err
			})
		case "Triggers":
			p.Triggers = []Trigger{}
			err = d.array(strconv.Quote(key), func(line int) error {
				t, err := d.trigger()
				p.Triggers = append(p.Triggers, t)
				return err
			})
		case "JIT":
			p.JIT = &JIT{}
			err = d.jit(p.JIT)
		case "Serialization":
			s := &Serialization{}
			p.Serialization = s
			err = d.object(strconv.Quote(key), func(k string, line int) error {
				var err error
				switch k {
				case "Time":
					s.TimeMs, err = d.float(k, line)
				case "Output Volume":
					s.OutputKB, err = d.integer(k, line)
				case "Format":
					s.Format, err = d.str(k, line)
				default:
					var ok bool
					if ok, err = d.buffers(&s.Buffers, k, line); !ok && err == nil {
						err = d.extra(&s.Extra, k)
					}
				}
				return err
			})
		default:
			err = d.extra(&p.Extra, key)
		}
		return err
	})
	if err != nil {
		return err
	}
	if p.Root == nil {
		return d.errorf(line, "no \"Plan\" in this object; expected EXPLAIN (FORMAT JSON) output")
	}
	return nil
}

func (d *jsonDecoder) trigger() (Trigger, error) {
	var t Trigger
	err := d.object("trigger", func(k string, line int) error {
		var err error
		switch k {
		case "Trigger Name":
			t.Name, err = d.str(k, line)
		case "Constraint Name":
			t.ConstraintName, err = d.str(k, line)
		case "Relation":
			t.Relation, err = d.str(k, line)
		case "Time":
			t.TimeMs, err = d.float(k, line)
		case "Calls":
			t.Calls, err = d.integer(k, line)
		default:
			err = d.extra(&t.Extra, k)
		}
		return err
	})
	return t, err
}

func (d *jsonDecoder) jit(j *JIT) error {
	return d.object("\"JIT\"", func(k string, line int) error {
		var err error
		switch k {
		case "Functions":
			j.Functions, err = d.integer(k, line)
		case "Options":
			err = d.object(strconv.Quote(k), func(k string, line int) error {
				var err error
				switch k {
				case "Inlining":
					j.Inlining, err = d.boolean(k, line)
				case "Optimization":
					j.Optimization, err = d.boolean(k, line)
				case "Expressions":
					j.Expressions, err = d.boolean(k, line)
				case "Deforming":
					j.Deforming, err = d.boolean(k, line)
				default:
					err = d.extra(&j.Extra, "Options/"+k)
				}
				return err
			})
		case "Timing":
			err = d.object(strconv.Quote(k), func(k string, line int) error {
				var err error
				switch k {
				case "Generation":
					// A number before 17, {"Deform": ms, "Total": ms} from 17.
					var v any
					if v, err = d.value(); err != nil {
						return err
					}
					switch v := v.(type) {
					case json.Number:
						j.GenerationMs = jsonNumber(v)
					case map[string]any:
						if n, ok := v["Total"].(json.Number); ok {
							j.GenerationMs = jsonNumber(n)
						}
						if n, ok := v["Deform"].(json.Number); ok {
							j.DeformMs = jsonNumber(n)
						}
					default:
						return d.errorf(line, "%q: expected a number or an object", k)
					}
				case "Inlining":
					j.InliningMs, err = d.float(k, line)
				case "Optimization":
					j.OptimizationMs, err = d.float(k, line)
				case "Emission":
					j.EmissionMs, err = d.float(k, line)
				case "Total":
					j.TotalMs, err = d.float(k, line)
				default:
					err = d.extra(&j.Extra, "Timing/"+k)
				}
				return err
			})
		default:
			err = d.extra(&j.Extra, k)
		}
		return err
	})
}

func jsonNumber(n json.Number) *float64 {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil
	}
	return &f
}

// buffers reads key if it is a BUFFERS or I/O timing key.
func (d *jsonDecoder) buffers(b *Buffers, key string, line int) (bool, error) {
	var ip **int64
	var fp **float64
	switch key {
	case "Shared Hit Blocks":
		ip = &b.SharedHitBlocks
	case "Shared Read Blocks":
		ip = &b.SharedReadBlocks
	case "Shared Dirtied Blocks":
		ip = &b.SharedDirtiedBlocks
	case "Shared Written Blocks":
		ip = &b.SharedWrittenBlocks
	case "Local Hit Blocks":
		ip = &b.LocalHitBlocks
	case "Local Read Blocks":
		ip = &b.LocalReadBlocks
	case "Local Dirtied Blocks":
		ip = &b.LocalDirtiedBlocks
	case "Local Written Blocks":
		ip = &b.LocalWrittenBlocks
	case "Temp Read Blocks":
		ip = &b.TempReadBlocks
	case "Temp Written Blocks":
		ip = &b.TempWrittenBlocks
	case "Shared I/O Read Time", "I/O Read Time":
		fp = &b.SharedIOReadTimeMs
	case "Shared I/O Write Time", "I/O Write Time":
		fp = &b.SharedIOWriteTimeMs
	case "Local I/O Read Time":
		fp = &b.LocalIOReadTimeMs
	case "Local I/O Write Time":
		fp = &b.LocalIOWriteTimeMs
	case "Temp I/O Read Time":
		fp = &b.TempIOReadTimeMs
	case "Temp I/O Write Time":
		fp = &b.TempIOWriteTimeMs
	default:
		return false, nil
	}
	var err error
	if ip != nil {
		*ip, err = d.integer(key, line)
	} else {
		*fp, err = d.float(key, line)
	}
	return true, err
}

// wal reads key if it is a WAL key.
func (d *jsonDecoder) wal(w *WAL, key string, line int) (bool, error) {
	var p **int64
	switch key {
	case "WAL Records":
		p = &w.WALRecords
	case "WAL FPI":
		p = &w.WALFPI
	case "WAL Bytes":
		p = &w.WALBytes
	case "WAL Buffers Full":
		p = &w.WALBuffersFull
	default:
		return false, nil
	}
	var err error
	*p, err = d.integer(key, line)
	return true, err
}

// node reads a plan node object.
func (d *jsonDecoder) node(n *Node) error {
	start := -1
	err := d.object("plan node", func(k string, line int) error {
		if start < 0 {
			start = line
		}
		var err error
		switch k {
		case "Node Type":
			n.NodeType, err = d.str(k, line)
		case "Strategy":
			n.Strategy, err = d.str(k, line)
		case "Partial Mode":
			n.PartialMode, err = d.str(k, line)
		case "Operation":
			n.Operation, err = d.str(k, line)
		case "Join Type":
			n.JoinType, err = d.str(k, line)
		case "Command":
			n.Command, err = d.str(k, line)
		case "Parent Relationship":
			n.ParentRelationship, err = d.str(k, line)
		case "Subplan Name":
			n.SubplanName, err = d.str(k, line)
		case "Custom Plan Provider":
			n.CustomPlanProvider, err = d.str(k, line)
		case "Parallel Aware":
			n.ParallelAware, err = d.boolean(k, line)
		case "Async Capable":
			n.AsyncCapable, err = d.boolean(k, line)
		case "Relation Name":
			n.RelationName, err = d.str(k, line)
		case "Function Name":
			n.FunctionName, err = d.str(k, line)
		case "CTE Name":
			n.CTEName, err = d.str(k, line)
		case "Schema":
			n.Schema, err = d.str(k, line)
		case "Alias":
			n.Alias, err = d.str(k, line)
		case "Index Name":
			n.IndexName, err = d.str(k, line)
		case "Scan Direction":
			n.ScanDirection, err = d.str(k, line)
		case "Startup Cost":
			n.StartupCost, err = d.float(k, line)
		case "Total Cost":
			n.TotalCost, err = d.float(k, line)
		case "Plan Rows":
			n.PlanRows, err = d.float(k, line)
		case "Plan Width":
			n.PlanWidth, err = d.integer(k, line)
		case "Actual Startup Time":
			n.ActualStartupTimeMs, err = d.float(k, line)
		case "Actual Total Time":
			n.ActualTotalTimeMs, err = d.float(k, line)
		case "Actual Rows":
			n.ActualRows, err = d.float(k, line)
		case "Actual Loops":
			n.ActualLoops, err = d.integer(k, line)
			if err == nil && *n.ActualLoops == 0 {
				n.NeverExecuted = true
			}
		case "Disabled":
			n.Disabled, err = d.boolean(k, line)
		case "Rows Removed by Filter":
			n.RowsRemovedByFilter, err = d.float(k, line)
		case "Rows Removed by Index Recheck":
			n.RowsRemovedByIndexRecheck, err = d.float(k, line)
		case "Rows Removed by Join Filter":
			n.RowsRemovedByJoinFilter, err = d.float(k, line)
		case "Heap Fetches":
			n.HeapFetches, err = d.integer(k, line)
		case "Index Searches":
			n.IndexSearches, err = d.integer(k, line)
		case "Exact Heap Blocks":
			n.ExactHeapBlocks, err = d.integer(k, line)
		case "Lossy Heap Blocks":
			n.LossyHeapBlocks, err = d.integer(k, line)
		case "Workers Planned":
			n.WorkersPlanned, err = d.integer(k, line)
		case "Workers Launched":
			n.WorkersLaunched, err = d.integer(k, line)
		case "Workers":
			n.Workers = []Worker{}
			err = d.array(strconv.Quote(k), func(line int) error {
				w, err := d.worker()
				n.Workers = append(n.Workers, w)
				return err
			})
		case "Plans":
			n.Plans = []*Node{}
			err = d.array(strconv.Quote(k), func(line int) error {
				c := &Node{}
				n.Plans = append(n.Plans, c)
				return d.node(c)
			})
		default:
			var ok bool
			if ok, err = d.buffers(&n.Buffers, k, line); ok || err != nil {
				return err
			}
			if ok, err = d.wal(&n.WAL, k, line); ok || err != nil {
				return err
			}
			err = d.extra(&n.Extra, k)
		}
		return err
	})
	if err != nil {
		return err
	}
	if n.NodeType == "" {
		if start < 0 {
			start = d.line()
		}
		return d.errorf(start, "plan node without a \"Node Type\"")
	}
	return nil
}

func (d *jsonDecoder) worker() (Worker, error) {
	var w Worker
	err := d.object("worker", func(k string, line int) error {
		var err error
		switch k {
		case "Worker Number":
			var i *int64
			if i, err = d.integer(k, line); err == nil {
				if *i < 0 || *i > math.MaxInt32 {
					return d.errorf(line, "%q: %d is out of range", k, *i)
				}
				w.WorkerNumber = int(*i)
			}
		case "Actual Startup Time":
			w.ActualStartupTimeMs, err = d.float(k, line)
		case "Actual Total Time":
			w.ActualTotalTimeMs, err = d.float(k, line)
		case "Actual Rows":
			w.ActualRows, err = d.float(k, line)
		case "Actual Loops":
			w.ActualLoops, err = d.integer(k, line)
		default:
			var ok bool
			if ok, err = d.buffers(&w.Buffers, k, line); ok || err != nil {
				return err
			}
			if ok, err = d.wal(&w.WAL, k, line); ok || err != nil {
				return err
			}
			err = d.extra(&w.Extra, k)
		}
		return err
	})
	return w, err
}

// atoi parses a whole number, also when printed with a fraction of zero
// ("3.00"), as PostgreSQL prints some counts.
func atoi(s string) (int64, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, false
	}
	return int64(f), true
}

// put adds a key to an Extra map, making it a list when the key repeats.
func put(m *map[string]any, key string, v any) {
	if *m == nil {
		*m = map[string]any{}
	}
	old, ok := (*m)[key]
	if !ok {
		(*m)[key] = v
		return
	}
	if l, ok := old.([]any); ok {
		(*m)[key] = append(l, v)
		return
	}
	(*m)[key] = []any{old, v}
}

// lineAtOffset is the 1-based line of byte offset off in data.
func lineAtOffset(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// lineText is line n (1-based) of data, without its line break.
func lineText(data []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return ""
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return string(bytes.TrimSuffix(data, []byte{'\r'}))
}

// firstWord is the start of data, for an error message.
func firstWord(data []byte) string {
	if i := bytes.IndexAny(data, " \t\r\n"); i >= 0 {
		data = data[:i]
	}
	const max = 40
	if len(data) > max {
		data = data[:max]
		for len(data) > 0 && !utf8.Valid(data) {
			data = data[:len(data)-1]
		}
	}
	return string(data)
}

// textLines reads the input's lines for Text and strips what
// psql adds (see stripPsql).
func textLines(r io.Reader, source string) ([]string, error) {
	l := parse.NewLines(r, source)
	var lines []string
	for l.Next() {
		lines = append(lines, l.Text())
	}
	if err := l.Err(); err != nil {
		return nil, err
	}
	stripPsql(lines, false)
	return lines, nil
}

// jsonInput reads the input for JSON, refusing binary input
// as parse.NewLines does, and strips what psql adds (see stripPsql).
func jsonInput(r io.Reader, source string) ([]byte, error) {
	text, err := parse.ReadText(r, source)
	if err != nil {
		return nil, err
	}
	data := []byte(text)
	first := bytes.TrimLeft(data, " \t\r\n")
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	if string(bytes.TrimSpace(first)) != "QUERY PLAN" {
		return data, nil
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	stripPsql(lines, true)
	return []byte(strings.Join(lines, "\n")), nil
}

// stripPsql blanks or strips, in place and so keeping line numbers, what
// psql adds around a query's result: the "QUERY PLAN" header, the dashes
// under it (aligned format), the "(N rows)" footer, the space that starts
// every aligned row and, in JSON (continuation is true), the "+" that ends
// every aligned line continued on the next.
func stripPsql(lines []string, continuation bool) {
	first := -1
	for i, s := range lines {
		if strings.TrimSpace(s) != "" {
			first = i
			break
		}
	}
	if first < 0 || strings.TrimSpace(lines[first]) != "QUERY PLAN" {
		return
	}
	lines[first] = ""
	end := len(lines)
	for i := len(lines) - 1; i > first; i-- {
		s := strings.TrimSpace(lines[i])
		if s == "" {
			continue
		}
		if isRowCount(s) {
			lines[i] = ""
			end = i
		}
		break
	}
	if first+1 >= end || !isDashes(lines[first+1]) {
		return // unaligned: psql -A without -t
	}
	width := utf8.RuneCountInString(strings.TrimRight(lines[first+1], " "))
	lines[first+1] = ""
	for i := first + 2; i < end; i++ {
		s := strings.TrimPrefix(lines[i], " ")
		if strings.HasSuffix(s, "+") && (continuation || utf8.RuneCountInString(s) == width-1) {
			s = strings.TrimRight(s[:len(s)-1], " ")
		}
		lines[i] = s
	}
}

func isDashes(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "-") == ""
}

// isRowCount reports whether s is psql's footer: "(1 row)", "(19 rows)".
func isRowCount(s string) bool {
	rest, ok := strings.CutPrefix(s, "(")
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return i > 0 && (rest[i:] == " row)" || rest[i:] == " rows)")
}
