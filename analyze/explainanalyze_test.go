package analyze_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/parse/explain"
)

// TestExplainAnalyzeFacts reads real EXPLAIN (ANALYZE, BUFFERS, WAL) plans
// of PostgreSQL 13 and 18 (parse/explain's fixtures): the top node's
// blocks and WAL, the I/O times summed over shared, local and temporary
// blocks where track_io_timing was on and nil where it was off, and a text
// plan, which prints no zero time, leaving track_io_timing unknown.
func TestExplainAnalyzeFacts(t *testing.T) {
	read := func(name string) *explain.Plan {
		b, err := os.ReadFile(filepath.Join("..", "parse", "explain", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		parse := explain.JSON
		if strings.HasSuffix(name, ".txt") {
			parse = explain.Text
		}
		p, _, err := parse(strings.NewReader(string(b)), name)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	i := func(p *int64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	f := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	b := func(p *bool) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for name, want := range map[string][]any{
		// hit, read, dirtied, written, io timing, read ms, write ms, WAL records, FPI, bytes, planning, execution
		"pg18-update-io.json":          {int64(9141), int64(44), int64(57), int64(16), true, 2.121, 0.236, int64(3057), int64(41), int64(615373), 25.959, 59.416},
		"pg18-update.json":             {int64(6074), int64(24), int64(46), int64(19), false, nil, nil, int64(3017), int64(26), int64(501915), 48.307, 119.221},
		"pg13-bitmap-heapscan-io.json": {int64(0), int64(385), int64(0), int64(0), true, 125.581, 0.0, int64(0), int64(0), int64(0), 2.177, 152.408},
	} {
		a := analyze.ExplainAnalyzeFacts(read(name))
		got := []any{i(a.SharedHitBlocks), i(a.SharedReadBlocks), i(a.SharedDirtiedBlocks), i(a.SharedWrittenBlocks), b(a.IOTiming),
			f(a.IOReadMs), f(a.IOWriteMs), i(a.WALRecords), i(a.WALFPI), i(a.WALBytes), f(a.PlanningMs), f(a.ExecutionMs)}
		for k := range want {
			if got[k] != want[k] {
				t.Errorf("%s: got %v\nwant %v", name, got, want)
				break
			}
		}
	}
	if a := analyze.ExplainAnalyzeFacts(read("pg18-update-io.txt")); a.IOTiming != nil || a.IOReadMs == nil || a.SharedReadBlocks == nil {
		t.Errorf("text plan: %+v", a)
	}
}
