package analyze

import (
	"strings"
	"testing"
)

// TestWithinRunChange: a throughput run whose per-second queries fall by
// a third halfway through (what a checkpoint or a used-up burst allowance
// looks like in pgbench's progress lines) is named with the second the
// level changed; a steady run is not. The intervals are as pgbench prints
// them; the first (connections opening) is left out.
func TestWithinRunChange(t *testing.T) {
	steady, falling := &ThroughputRun{QPS: 1000}, &ThroughputRun{QPS: 800}
	for s := 1; s <= 20; s++ {
		wobble := float64(s%3) * 5
		steady.Intervals = append(steady.Intervals, Interval{EndS: float64(s), QPS: 1000 + wobble})
		q := 1000.0
		if s > 10 {
			q = 650
		}
		falling.Intervals = append(falling.Intervals, Interval{EndS: float64(s), QPS: q + wobble})
	}
	falling.Intervals[0].QPS = 300 // connections opening
	a := &Analysis{Hosts: []string{"h"}, Tests: []string{"tpcb"}, Configs: []string{"a"}}
	a.Runs = []*Run{
		{Host: "h", Test: "tpcb", Config: "a", RunID: 1, Round: 1, Status: "ok", Kind: "throughput", Throughput: steady},
		{Host: "h", Test: "tpcb", Config: "a", RunID: 2, Round: 2, Status: "ok", Kind: "throughput", Throughput: falling},
	}
	a.guardWithinRuns(Options{Alpha: 0.05})
	if len(a.Findings) != 1 || len(a.Findings[0].Runs) != 1 || a.Findings[0].Runs[0] != 2 ||
		!strings.Contains(a.Findings[0].Message, "run 2 from 10 s by -34.8% (1005 to 655 q/s)") {
		t.Errorf("%+v", a.Findings)
	}
}
