package analyze

import (
	"math"
	"testing"
)

// TestDiskSteps: a last interval shorter than half the one before it is
// merged into it with its bytes and seconds, so its rate shows as no
// spike; a longer one stays; an interval that could not be measured
// breaks the line.
func TestDiskSteps(t *testing.T) {
	iv := func(end, secs, mibs float64) DiskInterval {
		return DiskInterval{OffsetS: end, Stats: IntervalStats{Seconds: secs, RKiBPerS: mibs * 1024}}
	}
	steps := diskSteps([]DiskInterval{iv(0.25, 0.25, 100), iv(0.5, 0.25, 100), iv(0.525, 0.025, 1000)})
	if len(steps) != 2 {
		t.Fatalf("%d steps, want the partial interval merged into the one before: %+v", len(steps), steps)
	}
	// 100 MiB/s for 0.25 s and 1000 for 0.025 s: 50 MiB over 0.275 s.
	if last := steps[1]; last.StartS != 0.25 || last.EndS != 0.525 || math.Abs(last.ReadMiBs-50/0.275) > 1e-9 {
		t.Errorf("merged step %+v, want 0.25 to 0.525 s at %.3f MiB/s", last, 50/0.275)
	}
	if steps := diskSteps([]DiskInterval{iv(0.25, 0.25, 100), iv(0.45, 0.2, 300)}); len(steps) != 2 || steps[1].ReadMiBs != 300 {
		t.Errorf("a last interval of 0.2 s after 0.25 s was changed: %+v", steps)
	}
	reset := DiskInterval{OffsetS: 0.5, Stats: IntervalStats{Seconds: 0.25, Reset: true}}
	steps = diskSteps([]DiskInterval{iv(0.25, 0.25, 100), reset, iv(0.75, 0.25, 100), iv(1, 0.25, 100)})
	if len(steps) != 3 || steps[0].Break || !steps[1].Break || steps[2].Break {
		t.Errorf("steps around a reset: %+v", steps)
	}
	if steps := diskSteps([]DiskInterval{{OffsetS: 0.1, Stats: IntervalStats{}}}); len(steps) != 0 {
		t.Errorf("an unmeasured interval made steps: %+v", steps)
	}
}
