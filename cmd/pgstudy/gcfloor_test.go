package main

import (
	"runtime/debug"
	"testing"
)

// TestFloorPercent: the goal a live heap gets, live·(1+percent/100) and
// at least the runtime's least goal scaled by the percent, is floorBytes
// for a small live heap, and twice the live heap (the default) past half
// of floorBytes.
func TestFloorPercent(t *testing.T) {
	goal := func(live int) int {
		pct := floorPercent(live)
		return max(live*(100+pct)/100, heapMinimum*pct/100)
	}
	for _, live := range []int{1 << 10, 1 << 20, 2 << 20, 3 << 20, floorBytes/2 - 1} {
		if g := goal(live); g < floorBytes*99/100 || g > floorBytes*11/10 { // percents are whole
			t.Errorf("live heap %d: goal %d, want about %d", live, g, floorBytes)
		}
	}
	for _, live := range []int{floorBytes / 2, floorBytes, 1 << 30} {
		if p := floorPercent(live); p != 100 {
			t.Errorf("live heap %d: percent %d, want 100", live, p)
		}
	}
	if p := floorPercent(0); p != 100 {
		t.Errorf("no live heap measured: percent %d, want 100", p)
	}
}

// TestParseRestoresGCPercent: parse puts back the GC percent it found.
func TestParseRestoresGCPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	if code, _, stderr := runInProcess("parse", "diskstats", "--format", "jsonl", "../../parse/diskstats/testdata/linux-6.18.txt"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if p := debug.SetGCPercent(150); p != 150 {
		t.Errorf("GC percent %d after parse, want 150", p)
	}
}
