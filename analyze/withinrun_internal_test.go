package analyze

import (
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze/stats"
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

// TestOffLevel: a slowdown that ended (runs 9-16 of 24 slower, then back)
// leaves out runs 9-16 only, not the runs back at the main level (found by
// an outsider: the guard printed --exclude run=9-24).
func TestOffLevel(t *testing.T) {
	var runs []*Run
	var ys []float64
	for i := 1; i <= 24; i++ {
		runs = append(runs, &Run{RunID: int64(i)})
		y := 1.0 + 0.01*float64(i%3)
		if i >= 9 && i <= 16 {
			y *= 1.9
		}
		ys = append(ys, y)
	}
	cps := stats.ChangePoints(ys, 0.05, 3)
	off, ex := offLevel(runs, ys, cps)
	if len(cps) != 2 || len(off) != 8 || off[0] != 9 || off[7] != 16 || len(ex) != 1 || ex[0] != "--exclude run=9-16" {
		t.Errorf("change points %+v: off %v, %v", cps, off, ex)
	}
}
