package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/explain"
	"github.com/pgstudy/pgstudy/samples"
)

// AnalyzedPlan is what EXPLAIN (ANALYZE, BUFFERS) said about one run's
// statement, from the plan's top node (whose counts include every node
// under it) and its summary. A nil field is one the server did not print.
type AnalyzedPlan struct {
	SharedHitBlocks, SharedReadBlocks, SharedDirtiedBlocks, SharedWrittenBlocks *int64

	// IOTiming says whether track_io_timing was on: a JSON plan prints
	// the I/O times whenever it is, zero or not; nil for a text plan,
	// which leaves out a zero time. IOReadMs and IOWriteMs are the I/O
	// times of shared, local and temporary blocks together (before 17 one
	// time counted shared and local blocks), nil when not printed.
	IOTiming            *bool
	IOReadMs, IOWriteMs *float64

	// WAL the statement generated (EXPLAIN option WAL, 13+).
	WALRecords, WALFPI, WALBytes *int64

	PlanningMs, ExecutionMs *float64
}

// ExplainAnalyzeFacts reads an EXPLAIN (ANALYZE, BUFFERS) plan's figures.
func ExplainAnalyzeFacts(p *explain.Plan) AnalyzedPlan {
	f := AnalyzedPlan{PlanningMs: p.PlanningTimeMs.Ptr(), ExecutionMs: p.ExecutionTimeMs.Ptr()}
	if p.Root == nil {
		return f
	}
	b, w := p.Root.Buffers, p.Root.WAL
	f.SharedHitBlocks, f.SharedReadBlocks = b.SharedHitBlocks.Ptr(), b.SharedReadBlocks.Ptr()
	f.SharedDirtiedBlocks, f.SharedWrittenBlocks = b.SharedDirtiedBlocks.Ptr(), b.SharedWrittenBlocks.Ptr()
	f.WALRecords, f.WALFPI, f.WALBytes = w.WALRecords.Ptr(), w.WALFPI.Ptr(), w.WALBytes.Ptr()
	f.IOReadMs = sumKnown(b.SharedIOReadTimeMs, b.LocalIOReadTimeMs, b.TempIOReadTimeMs)
	f.IOWriteMs = sumKnown(b.SharedIOWriteTimeMs, b.LocalIOWriteTimeMs, b.TempIOWriteTimeMs)
	if p.Format == "json" {
		on := f.IOReadMs != nil || f.IOWriteMs != nil
		f.IOTiming = &on
	}
	return f
}

// sumKnown is the sum of the values given, or nil when none is.
func sumKnown(xs ...parse.Opt[float64]) *float64 {
	var sum *float64
	for _, x := range xs {
		if x.Valid {
			if sum == nil {
				sum = new(float64)
			}
			*sum += x.V
		}
	}
	return sum
}

// readAnalyzed keeps the figures of a run's EXPLAIN ANALYZE plan: every
// run's own text, so parsed for each run and not kept.
func (run *Run) readAnalyzed(p samples.Plan) {
	src := fmt.Sprintf("run %d %s", p.RunID, p.Kind)
	var plan *explain.Plan
	var err error
	if p.Format == "text" {
		plan, _, err = explain.Text(strings.NewReader(p.Text), src)
	} else {
		plan, _, err = explain.JSON(strings.NewReader(p.Text), src)
	}
	if err != nil {
		return // readPlans says why when it stands in as the run's plan
	}
	f := ExplainAnalyzeFacts(plan)
	run.Analyzed = &f
}

// ioMethods sets each run's io_method from its configuration's settings
// as the server reported them.
func (a *Analysis) ioMethods(byHost map[string]map[string]map[string]*settingValues) {
	for _, r := range a.Runs {
		if v := byHost[r.Host][r.Config]["io_method"]; v != nil {
			r.IOMethod = strings.Join(sortedKeys(v.values), " / ")
		}
	}
}

// ioTimeIs says what EXPLAIN's I/O read time measures under a run's
// io_method: with sync (and before 18) the time the backend spent
// reading; with worker or io_uring the reads run elsewhere, started
// ahead, and the time is only how long the backend waited for them.
func ioTimeIs(method string) string {
	switch method {
	case "", "sync":
		return "reading"
	}
	return "waiting"
}

// explainAnalyzeTable is EXPLAIN (ANALYZE, BUFFERS)'s figures per run.
func (a *Analysis) explainAnalyzeTable() table.Table {
	var rows []*Run
	var off []int64
	for _, r := range a.Runs {
		if r.Analyzed == nil {
			continue
		}
		rows = append(rows, r)
		if r.Analyzed.IOTiming != nil && !*r.Analyzed.IOTiming {
			off = append(off, r.RunID)
		}
	}
	note := "EXPLAIN (ANALYZE, BUFFERS) of each run's statement, run just after the timed run (on the timed session for pgx, " +
		"on a new session with the run's settings for psql) inside a transaction rolled back, " +
		"so on the cache the timed run left, not cold: a second execution, not the timed one. The plan's blocks (8 KiB) and times as the server printed them. " +
		"I/O times (track_io_timing) are comparable only between configurations whose io_method is sync (or before 18): " +
		"with worker or io_uring the reads are started ahead by other processes or the kernel, and the time is " +
		"how long the backend waited for them, not how long reading took (io time is: reading or waiting); " +
		"compare shared read blocks and pg_aios instead. WAL figures are blank where EXPLAIN did not report them."
	var waits []string
	for _, r := range rows {
		if ioTimeIs(r.IOMethod) == "waiting" && r.Analyzed.IOReadMs != nil && !slices.Contains(waits, r.Config) {
			waits = append(waits, r.Config)
		}
	}
	if len(waits) > 0 {
		note += " Waits, not reads, here: " + strings.Join(waits, ", ") + "."
	}
	if len(off) > 0 {
		what := "runs " + table.RangeText(off) + ": their"
		if len(off) == 1 {
			what = "run " + table.RangeText(off) + ": its"
		}
		note += " track_io_timing was off in " + what + " I/O times are blank, not 0."
	}
	t := table.Table{Name: "explain_analyze", Title: "EXPLAIN ANALYZE per run", Note: note}
	get := func(f func(p *AnalyzedPlan) any) func(*Run) any {
		return func(r *Run) any { return f(r.Analyzed) }
	}
	return build(a, t, func(r *Run) string { return r.Host }, []table.Field[*Run]{
		table.On(table.Int("run", "run", ""), func(r *Run) any { return r.RunID }),
		table.On(table.Int("round", "round", ""), func(r *Run) any { return int64(r.Round) }),
		table.On(table.Text("test", "test"), func(r *Run) any { return r.Test }),
		table.On(table.Text("config", "config"), func(r *Run) any { return r.Config }),
		table.On(table.Text("io_method", "io_method"), func(r *Run) any {
			if r.IOMethod == "" {
				return nil // before 18: no such setting, reads are synchronous
			}
			return r.IOMethod
		}),
		table.On(table.Int("shared_hit", "shared hit", "blocks"), get(func(p *AnalyzedPlan) any { return opt(p.SharedHitBlocks) })),
		table.On(table.Int("shared_read", "shared read", "blocks"), get(func(p *AnalyzedPlan) any { return opt(p.SharedReadBlocks) })),
		table.On(table.Int("shared_dirtied", "shared dirtied", "blocks"), get(func(p *AnalyzedPlan) any { return opt(p.SharedDirtiedBlocks) })),
		table.On(table.Int("shared_written", "shared written", "blocks"), get(func(p *AnalyzedPlan) any { return opt(p.SharedWrittenBlocks) })),
		table.On(table.Num("io_read_ms", "I/O read", "ms"), get(func(p *AnalyzedPlan) any { return opt(p.IOReadMs) })),
		table.On(table.Num("io_write_ms", "I/O write", "ms"), get(func(p *AnalyzedPlan) any { return opt(p.IOWriteMs) })),
		table.On(table.Text("io_time_is", "io time is"), func(r *Run) any {
			if r.Analyzed.IOReadMs == nil && r.Analyzed.IOWriteMs == nil {
				return nil
			}
			return ioTimeIs(r.IOMethod)
		}),
		table.On(table.Int("wal_records", "WAL records", ""), get(func(p *AnalyzedPlan) any { return opt(p.WALRecords) })),
		table.On(table.Int("wal_fpi", "WAL FPI", ""), get(func(p *AnalyzedPlan) any { return opt(p.WALFPI) })),
		table.On(table.Int("wal_bytes", "WAL", "B"), get(func(p *AnalyzedPlan) any { return opt(p.WALBytes) })),
		table.On(table.Num("planning_ms", "planning", "ms"), get(func(p *AnalyzedPlan) any { return opt(p.PlanningMs) })),
		table.On(table.Num("execution_ms", "execution", "ms"), get(func(p *AnalyzedPlan) any { return opt(p.ExecutionMs) })),
	}, rows)
}

// analyzedAny says whether any run has an EXPLAIN ANALYZE plan: the table
// is shown only then.
func (a *Analysis) analyzedAny() bool {
	return slices.ContainsFunc(a.Runs, func(r *Run) bool { return r.Analyzed != nil })
}
