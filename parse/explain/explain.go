package explain

import (
	"math"
	"strconv"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
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
//     no line, the counters are not Valid, as text cannot tell zero from the
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

	PlanningTimeMs parse.Opt[float64] `json:"planning_time_ms,omitzero"`
	// PlanningBuffers is the buffer use of planning (BUFFERS, 13+).
	PlanningBuffers           *Buffers           `json:"planning_buffers,omitempty"`
	PlanningMemoryUsedKB      parse.Opt[int64]   `json:"planning_memory_used_kb,omitzero"`      // MEMORY, 17+
	PlanningMemoryAllocatedKB parse.Opt[int64]   `json:"planning_memory_allocated_kb,omitzero"` // MEMORY, 17+
	ExecutionTimeMs           parse.Opt[float64] `json:"execution_time_ms,omitzero"`

	Triggers      []Trigger      `json:"triggers,omitempty"`
	JIT           *JIT           `json:"jit,omitempty"`
	Serialization *Serialization `json:"serialization,omitempty"` // SERIALIZE, 17+

	// Extra holds the other top-level entries: in JSON the keys this
	// package does not map (such as "Query Identifier"), in text the
	// labelled lines it knows but does not type.
	Extra map[string]any `json:"extra,omitempty"`
}

// Node is one node of a plan tree. A figure (a parse.Opt) is not Valid
// when the server did not print it (an option was off, the version does
// not have it, or, in text, a counter was zero). Figures are values, not
// pointers: a pointer a figure (some fifty a node) cost its allocation, the
// write barrier and the collector's scan.
type Node struct {
	// NodeType is the JSON "Node Type": "Aggregate", "Hash Join",
	// "ModifyTable", "Seq Scan". Text names such as "Finalize
	// HashAggregate", "Hash Left Join" or "Update" are split into NodeType
	// and the fields below, as JSON prints them.
	NodeType           string          `json:"node_type"`
	Strategy           string          `json:"strategy,omitempty"`     // Aggregate, SetOp: Plain, Sorted, Hashed, Mixed
	PartialMode        string          `json:"partial_mode,omitempty"` // Aggregate: Simple, Partial, Finalize
	Operation          string          `json:"operation,omitempty"`    // ModifyTable, Foreign Scan: Select, Insert, Update, Delete, Merge
	JoinType           string          `json:"join_type,omitempty"`    // Inner, Left, Full, Right, Semi, Anti, Right Semi, Right Anti
	Command            string          `json:"command,omitempty"`      // SetOp: Intersect, Intersect All, Except, Except All
	ParentRelationship string          `json:"parent_relationship,omitempty"`
	SubplanName        string          `json:"subplan_name,omitempty"`
	CustomPlanProvider string          `json:"custom_plan_provider,omitempty"`
	ParallelAware      parse.Opt[bool] `json:"parallel_aware,omitzero"`
	AsyncCapable       parse.Opt[bool] `json:"async_capable,omitzero"` // 14+

	RelationName  string `json:"relation_name,omitempty"`
	FunctionName  string `json:"function_name,omitempty"`
	CTEName       string `json:"cte_name,omitempty"`
	Schema        string `json:"schema,omitempty"` // VERBOSE only
	Alias         string `json:"alias,omitempty"`
	IndexName     string `json:"index_name,omitempty"`
	ScanDirection string `json:"scan_direction,omitempty"` // Forward, Backward, NoMovement

	StartupCost parse.Opt[float64] `json:"startup_cost,omitzero"`
	TotalCost   parse.Opt[float64] `json:"total_cost,omitzero"`
	PlanRows    parse.Opt[float64] `json:"plan_rows,omitzero"`
	PlanWidth   parse.Opt[int64]   `json:"plan_width,omitzero"`

	// Actual times and rows are per loop, as the server prints them.
	ActualStartupTimeMs parse.Opt[float64] `json:"actual_startup_time_ms,omitzero"`
	ActualTotalTimeMs   parse.Opt[float64] `json:"actual_total_time_ms,omitzero"`
	ActualRows          parse.Opt[float64] `json:"actual_rows,omitzero"`
	ActualLoops         parse.Opt[int64]   `json:"actual_loops,omitzero"`
	// NeverExecuted is true when ANALYZE ran the statement but not this
	// node: text says "(never executed)", JSON "Actual Loops": 0.
	NeverExecuted bool            `json:"never_executed,omitempty"`
	Disabled      parse.Opt[bool] `json:"disabled,omitzero"` // 18+

	// Rows removed are averages per loop, as the server prints them.
	RowsRemovedByFilter       parse.Opt[float64] `json:"rows_removed_by_filter,omitzero"`
	RowsRemovedByIndexRecheck parse.Opt[float64] `json:"rows_removed_by_index_recheck,omitzero"`
	RowsRemovedByJoinFilter   parse.Opt[float64] `json:"rows_removed_by_join_filter,omitzero"`
	HeapFetches               parse.Opt[int64]   `json:"heap_fetches,omitzero"`
	IndexSearches             parse.Opt[int64]   `json:"index_searches,omitzero"` // 18+
	ExactHeapBlocks           parse.Opt[int64]   `json:"exact_heap_blocks,omitzero"`
	LossyHeapBlocks           parse.Opt[int64]   `json:"lossy_heap_blocks,omitzero"`
	WorkersPlanned            parse.Opt[int64]   `json:"workers_planned,omitzero"`
	WorkersLaunched           parse.Opt[int64]   `json:"workers_launched,omitzero"`

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
	WorkerNumber        int                `json:"worker_number"`
	ActualStartupTimeMs parse.Opt[float64] `json:"actual_startup_time_ms,omitzero"`
	ActualTotalTimeMs   parse.Opt[float64] `json:"actual_total_time_ms,omitzero"`
	ActualRows          parse.Opt[float64] `json:"actual_rows,omitzero"`
	ActualLoops         parse.Opt[int64]   `json:"actual_loops,omitzero"`
	Buffers
	WAL
	Extra map[string]any `json:"extra,omitempty"`
}

// Buffers is the BUFFERS part of a node, of planning or of
// serialization, with the I/O timings of track_io_timing.
type Buffers struct {
	SharedHitBlocks     parse.Opt[int64] `json:"shared_hit_blocks,omitzero"`
	SharedReadBlocks    parse.Opt[int64] `json:"shared_read_blocks,omitzero"`
	SharedDirtiedBlocks parse.Opt[int64] `json:"shared_dirtied_blocks,omitzero"`
	SharedWrittenBlocks parse.Opt[int64] `json:"shared_written_blocks,omitzero"`
	LocalHitBlocks      parse.Opt[int64] `json:"local_hit_blocks,omitzero"`
	LocalReadBlocks     parse.Opt[int64] `json:"local_read_blocks,omitzero"`
	LocalDirtiedBlocks  parse.Opt[int64] `json:"local_dirtied_blocks,omitzero"`
	LocalWrittenBlocks  parse.Opt[int64] `json:"local_written_blocks,omitzero"`
	TempReadBlocks      parse.Opt[int64] `json:"temp_read_blocks,omitzero"`
	TempWrittenBlocks   parse.Opt[int64] `json:"temp_written_blocks,omitzero"`

	// SharedIOReadTimeMs is "Shared I/O Read Time" (17+), or "I/O Read
	// Time" before 17, which counted shared and local blocks together
	// (text: "I/O Timings: read=" in 13-14, "shared/local read=" in 15-16,
	// "shared read=" from 17). Likewise for writes.
	SharedIOReadTimeMs  parse.Opt[float64] `json:"shared_io_read_time_ms,omitzero"`
	SharedIOWriteTimeMs parse.Opt[float64] `json:"shared_io_write_time_ms,omitzero"`
	LocalIOReadTimeMs   parse.Opt[float64] `json:"local_io_read_time_ms,omitzero"`  // 17+
	LocalIOWriteTimeMs  parse.Opt[float64] `json:"local_io_write_time_ms,omitzero"` // 17+
	TempIOReadTimeMs    parse.Opt[float64] `json:"temp_io_read_time_ms,omitzero"`   // 15+
	TempIOWriteTimeMs   parse.Opt[float64] `json:"temp_io_write_time_ms,omitzero"`  // 15+
}

// WAL is the WAL part of a node (EXPLAIN option WAL, 13+).
type WAL struct {
	WALRecords     parse.Opt[int64] `json:"wal_records,omitzero"`
	WALFPI         parse.Opt[int64] `json:"wal_fpi,omitzero"` // full page images
	WALBytes       parse.Opt[int64] `json:"wal_bytes,omitzero"`
	WALBuffersFull parse.Opt[int64] `json:"wal_buffers_full,omitzero"` // 18+
}

// Trigger is the time spent in one trigger (ANALYZE).
type Trigger struct {
	Name           string             `json:"name,omitempty"`
	ConstraintName string             `json:"constraint_name,omitempty"`
	Relation       string             `json:"relation,omitempty"`
	TimeMs         parse.Opt[float64] `json:"time_ms,omitzero"`
	Calls          parse.Opt[int64]   `json:"calls,omitzero"`
	Extra          map[string]any     `json:"extra,omitempty"`
}

// JIT is the JIT compilation summary.
type JIT struct {
	Functions      parse.Opt[int64]   `json:"functions,omitzero"`
	Inlining       parse.Opt[bool]    `json:"inlining,omitzero"`
	Optimization   parse.Opt[bool]    `json:"optimization,omitzero"`
	Expressions    parse.Opt[bool]    `json:"expressions,omitzero"`
	Deforming      parse.Opt[bool]    `json:"deforming,omitzero"`
	GenerationMs   parse.Opt[float64] `json:"generation_ms,omitzero"`
	DeformMs       parse.Opt[float64] `json:"deform_ms,omitzero"` // 17+, part of GenerationMs
	InliningMs     parse.Opt[float64] `json:"inlining_ms,omitzero"`
	OptimizationMs parse.Opt[float64] `json:"optimization_ms,omitzero"`
	EmissionMs     parse.Opt[float64] `json:"emission_ms,omitzero"`
	TotalMs        parse.Opt[float64] `json:"total_ms,omitzero"`
	Extra          map[string]any     `json:"extra,omitempty"`
}

// Serialization is the cost of sending the result (EXPLAIN option
// SERIALIZE, 17+).
type Serialization struct {
	TimeMs   parse.Opt[float64] `json:"time_ms,omitzero"`
	OutputKB parse.Opt[int64]   `json:"output_kb,omitzero"`
	Format   string             `json:"format,omitempty"`
	Buffers
	Extra map[string]any `json:"extra,omitempty"`
}

// maxDepth bounds the nesting of JSON values and plan nodes.
const maxDepth = 10000

// maxReserved bounds the nodes a parse allocates before it reads them,
// counted from the input ("->  " in text, "Node Type" keys in JSON), which
// an input that is no plan may hold by the million: 4,096 nodes, 3.6 MiB.
// The nodes of a larger plan come in batches as they are read.
const maxReserved = 4096

// atoi parses a whole number, also when printed with a fraction of zero
// ("3.00"), as PostgreSQL prints some counts.
func atoi(s string) (int64, bool) {
	if i, ok := num.Int(s); ok { // strconv.ParseInt's value, without its call
		return i, true
	}
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
