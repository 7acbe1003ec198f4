package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// heapFloor keeps the garbage collector's heap goal near floorBytes while
// parse streams records with a small live heap: at the default goal,
// twice the live heap or 4 MiB, a stream's live heap of a few MiB had it
// collect every few MiB allocated, and psql's records (a statement, its
// tables and messages: several times the input's bytes) spent a third of
// the command's CPU time collecting. A large live heap (a psql
// statement's result of tens of MB) keeps the default goal of twice its
// size, so the memory of parse is what it was, plus floorBytes at most.
// GOGC set in the environment is left as it is.
type heapFloor struct {
	live    []metrics.Sample
	pct     int // the percent set last
	restore int // the percent before
}

// floorBytes is the heap goal parse keeps at least: 8 MiB, which saves
// most of what larger floors save (instructions counted writing psql's
// and a server log's records: the default 4 MiB, 100%; 8 MiB, 85%;
// 12 MiB, 82%; 16 MiB, 83%) and adds about 4 MiB to the peak RSS of a
// stream (TestParseLogMemory: 51 MiB for a server log, of which the
// binary and the runtime are about 35), where 12 MiB added 9 and 24 MiB
// passed 64 MiB.
const floorBytes = 8 << 20

// heapMinimum is the runtime's least heap goal at GOGC=100, which it
// scales with GOGC: the percent set is capped so that it stays below
// floorBytes.
const heapMinimum = 4 << 20

// startHeapFloor starts keeping the floor, or returns nil where GOGC is
// set.
func startHeapFloor() *heapFloor {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	h := &heapFloor{live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, pct: 100}
	h.restore = debug.SetGCPercent(100)
	return h
}

// adjust sets the percent that makes the goal floorBytes for the live
// heap the last collection found, or 100 past half of it.
func (h *heapFloor) adjust() {
	if h == nil {
		return
	}
	metrics.Read(h.live)
	pct := floorPercent(int(h.live[0].Value.Uint64()))
	if pct < h.pct*9/10 || pct > h.pct*11/10 {
		debug.SetGCPercent(pct)
		h.pct = pct
	}
}

// floorPercent is the GC percent whose goal for a live heap of live bytes
// (0: none measured yet) is floorBytes, between 100 and the percent that
// scales the runtime's least goal to floorBytes.
func floorPercent(live int) int {
	if live <= 0 {
		return 100
	}
	return min(max(floorBytes*100/live-100, 100), floorBytes*100/heapMinimum)
}

// stop puts back the percent from before.
func (h *heapFloor) stop() {
	if h != nil {
		debug.SetGCPercent(h.restore)
	}
}
