package diskstats

import (
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// repeat reads s n times over, made as it is read.
type repeat struct {
	s    string
	n    int
	left string
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.left == "" {
		if r.n == 0 {
			return 0, io.EOF
		}
		r.left, r.n = r.s, r.n-1
	}
	k := copy(p, r.left)
	r.left = r.left[k:]
	return k, nil
}

// TestReaderMemory: a series of 100,000 real snapshots (61 MB, 1.4 million
// device lines) reads a line at a time in the memory of the line reader's
// buffer and one line's counters, whatever its length; Parse would hold
// 200 MB of records (and refuses that many lines). Every line is read, as
// Parse reads it.
func TestReaderMemory(t *testing.T) {
	snap := golden.Text(t, "testdata/linux-6.18.txt")
	one, _, err := Parse(strings.NewReader(snap), "one")
	if err != nil {
		t.Fatal(err)
	}
	const times = 100_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewReader(&repeat{s: snap, n: times}, "series")
	n := 0
	for r.Next() {
		if w := r.Warning(); w != nil {
			t.Fatalf("warning %v", w)
		}
		if !same(*r.Counters(), one.Devices[n%len(one.Devices)]) {
			t.Fatalf("device %d: %+v, want %+v", n, *r.Counters(), one.Devices[n%len(one.Devices)])
		}
		n++
	}
	runtime.ReadMemStats(&after)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != times*len(one.Devices) {
		t.Errorf("%d device lines, want %d", n, times*len(one.Devices))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<10 {
		t.Errorf("allocated %d KiB for a series of %d MB; want at most 256 KiB", alloc>>10, times*len(snap)>>20)
	}
}

// same compares two lines' counters without allocating.
func same(a, b Counters) bool {
	if (a.Discards == nil) != (b.Discards == nil) || a.Discards != nil && *a.Discards != *b.Discards ||
		(a.Flushes == nil) != (b.Flushes == nil) || a.Flushes != nil && *a.Flushes != *b.Flushes {
		return false
	}
	a.Discards, a.Flushes, b.Discards, b.Flushes = nil, nil, nil, nil
	return a == b
}

// TestReaderAsParse: the Reader stops at each device line and each warning
// in order, and ends with the errors Parse returns.
func TestReaderAsParse(t *testing.T) {
	for _, in := range []string{
		"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n\n   8 1 sda1 1 2 3\n   8 2 sda2 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n",
		"   8 1 sda1 1 2 3\ncpu 1 2 3\n",
		"\n\n",
		"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n\x00",
	} {
		snap, warns, err := Parse(strings.NewReader(in), "d")
		r := NewReader(strings.NewReader(in), "d")
		var devs []Counters
		var ws []string
		for r.Next() {
			if w := r.Warning(); w != nil {
				ws = append(ws, w.String())
				continue
			}
			c := *r.Counters()
			if c.Discards != nil { // the Reader's own, valid until Next
				d := *c.Discards
				c.Discards = &d
			}
			devs = append(devs, c)
		}
		var want []string
		for _, w := range warns {
			want = append(want, w.String())
		}
		if !reflect.DeepEqual(ws, want) || (r.Err() == nil) != (err == nil) || err != nil && r.Err().Error() != err.Error() {
			t.Errorf("%q: warnings %q, error %v; Parse: %q, %v", in, ws, r.Err(), want, err)
		}
		if err == nil && !reflect.DeepEqual(devs, snap.Devices) {
			t.Errorf("%q: devices %+v; Parse: %+v", in, devs, snap.Devices)
		}
	}
}
