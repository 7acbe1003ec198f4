package analyze_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/analyze/internal/gencapture"
)

var updatePeak = flag.Bool("update-peak", false, "record the peak heap of TestPeakHeap as its new baseline")

// peakBaseline is what testdata/peakheap.json records: the peak heap of
// the analysis of a generated capture, and how it was measured.
type peakBaseline struct {
	Runs          int    `json:"runs"`
	RunsPerPart   int    `json:"runs_per_part"`
	PeakHeapBytes uint64 `json:"peak_heap_bytes"`
	Command       string `json:"command"`
}

// peakHeap runs fn and returns the most heap its objects took meanwhile,
// sampled every millisecond after a collection that starts from a clean
// heap.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base := read()
	var peak uint64
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	fn()
	close(stop)
	<-done
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// TestPeakHeap guards the memory of a 10,000-run analysis: it fails when
// the peak heap grows by more than half over the baseline recorded in
// testdata/peakheap.json (memory is stable enough to assert; time is
// not). A change that lowers it records the new baseline with
//
//	go test ./analyze -run TestPeakHeap -update-peak
func TestPeakHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 10,000-run capture")
	}
	file := filepath.Join("testdata", "peakheap.json")
	opt := gencapture.Options{Runs: 10000, RunsPerPart: 100}
	dir := filepath.Join(t.TempDir(), "capture")
	if err := gencapture.Generate(dir, opt); err != nil {
		t.Fatal(err)
	}
	analyzeDir(t, dir) // once, so that the page cache holds the capture
	var peak uint64
	for range 3 { // the least of three: a sample may land on garbage not yet collected
		p := peakHeap(func() { analyzeDir(t, dir) })
		if peak == 0 || p < peak {
			peak = p
		}
	}
	t.Logf("peak heap of the analysis of %d runs: %.1f MiB", opt.Runs, float64(peak)/(1<<20))
	if *updatePeak {
		b, _ := json.MarshalIndent(peakBaseline{Runs: opt.Runs, RunsPerPart: opt.RunsPerPart, PeakHeapBytes: peak,
			Command: "go test ./analyze -run TestPeakHeap -update-peak"}, "", "  ")
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (record a baseline with -update-peak)", err)
	}
	var base peakBaseline
	if err := json.Unmarshal(b, &base); err != nil || base.PeakHeapBytes == 0 || base.Runs != opt.Runs {
		t.Fatalf("%s: not a baseline of %d runs (%v)", file, opt.Runs, err)
	}
	if limit := base.PeakHeapBytes * 3 / 2; peak > limit {
		t.Errorf("the analysis of %d runs peaked at %.1f MiB of heap, over 1.5 times the baseline's %.1f MiB (%s): a regression in memory",
			opt.Runs, float64(peak)/(1<<20), float64(base.PeakHeapBytes)/(1<<20), file)
	}
	if peak < base.PeakHeapBytes/2 {
		t.Logf("the peak is under half the baseline: record the gain with -update-peak")
	}
}
