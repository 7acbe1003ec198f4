package diskstats

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"

	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// TestSeqMemory: a series of 100,000 real snapshots (61 MB, 1.4 million
// device lines) reads a line at a time in bounded memory, whatever its
// length; Parse would hold 200 MB of records (and refuses that many
// lines). Every line is read, as Parse reads it.
func TestSeqMemory(t *testing.T) {
	snap := golden.Text(t, "testdata/linux-6.18.txt")
	one, _, err := Parse(strings.NewReader(snap), "one")
	if err != nil {
		t.Fatal(err)
	}
	const times = 100_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	var maxHeap uint64
	for c, err := range ParseSeq(parsetest.Repeat([]byte(snap), times), "series", func(w parse.Warning) { t.Fatalf("warning %v", w) }) {
		if err != nil {
			t.Fatal(err)
		}
		if c != one.Devices[n%len(one.Devices)] {
			t.Fatalf("device %d: %+v, want %+v", n, c, one.Devices[n%len(one.Devices)])
		}
		if n++; n%100_000 == 0 {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			maxHeap = max(maxHeap, m.HeapAlloc)
		}
	}
	runtime.ReadMemStats(&after)
	if n != times*len(one.Devices) {
		t.Errorf("%d device lines, want %d", n, times*len(one.Devices))
	}
	// What is allocated is the line reader's buffer (a device line
	// allocates nothing: its name is interned, its optional groups are
	// values): the heap stays within a few MiB, where Parse's records
	// would take 200 MB.
	if grown := int64(maxHeap) - int64(before.HeapAlloc); grown > 16<<20 {
		t.Errorf("the heap grew by %d KiB while reading a series of %d MB; want at most 16 MiB", grown>>10, times*len(snap)>>20)
	}
	t.Logf("allocated %d MiB in all, the heap grew by at most %d KiB", (after.TotalAlloc-before.TotalAlloc)>>20, (int64(maxHeap)-int64(before.HeapAlloc))>>10)
}

// TestSeqAsParse: ParseSeq yields the devices Parse returns, hands out
// its warnings in order, and ends with its error; the counters it yields
// stay as they were when the next come; a consumer that stops stops it.
func TestSeqAsParse(t *testing.T) {
	for _, in := range []string{
		"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n\n   8 1 sda1 1 2 3\n   8 2 sda2 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n",
		"   8 1 sda1 1 2 3\ncpu 1 2 3\n",
		"\n\n",
		"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n\x00",
	} {
		snap, warns, err := Parse(strings.NewReader(in), "d")
		var devs []Counters
		var ws []string
		var serr error
		for c, err := range ParseSeq(strings.NewReader(in), "d", func(w parse.Warning) { ws = append(ws, w.String()) }) {
			if err != nil {
				serr = err
				break
			}
			devs = append(devs, c)
		}
		var want []string
		for _, w := range warns {
			want = append(want, w.String())
		}
		if !reflect.DeepEqual(ws, want) || (serr == nil) != (err == nil) || err != nil && serr.Error() != err.Error() {
			t.Errorf("%q: warnings %q, error %v; Parse: %q, %v", in, ws, serr, want, err)
		}
		if err == nil && !reflect.DeepEqual(devs, snap.Devices) {
			t.Errorf("%q: devices %+v; Parse: %+v", in, devs, snap.Devices)
		}
	}
	n := 0
	for range ParseSeq(strings.NewReader(strings.Repeat("   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", 5)), "d", nil) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d devices after a stop at 2", n)
	}
}
