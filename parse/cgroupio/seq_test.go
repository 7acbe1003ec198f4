package cgroupio

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// seqIOStat gathers what IOStatSeq yields as ParseIOStat returns it.
func seqIOStat(in string) (IOStat, []parse.Warning, error) {
	st := IOStat{Devices: []IOStatLine{}} // an empty io.stat has none: []
	var warns []parse.Warning
	for d, err := range IOStatSeq(strings.NewReader(in), "in", func(w parse.Warning) { warns = append(warns, w) }) {
		if err != nil {
			return IOStat{}, warns, err
		}
		st.Devices = append(st.Devices, d)
	}
	return st, warns, nil
}

// seqRWStat gathers what RWStatSeq yields as ParseRWStat returns it.
func seqRWStat(in string) (RWStat, []parse.Warning, error) {
	var st RWStat
	var warns []parse.Warning
	for e, err := range RWStatSeq(strings.NewReader(in), "in", func(w parse.Warning) { warns = append(warns, w) }) {
		switch {
		case err != nil:
			return RWStat{}, warns, err
		case e.Group:
			st.Total = e.Total
		default:
			st.Devices = append(st.Devices, e.RWStatLine)
		}
	}
	return st, warns, nil
}

// sameResult says how two parses of one input differ, or "".
func sameResult(got, want any, gotW, wantW []parse.Warning, gotErr, wantErr error) string {
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gotW, wantW) {
		return fmt.Sprintf("warnings %v, error %v; want %v, %v", gotW, gotErr, wantW, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%+v; want %+v", got, want)
	}
	return ""
}

// seqInputs are inputs of every case the readers tell apart.
var seqInputs = []string{
	"", "\n \n", "\x00",
	"8:0 rbytes=1 wbytes=2 rios=3 wios=4\n\n8:1 rbytes=x\nsda rbytes=1\n8:2 wios=0 cost.usage=7\n",
	"cpu 1 2 3\n8:0 rbytes=1 rbytes=2\n",
	"8:0 Read 1\n8:0 Read 2\n8:0 Frobnicate 3\n8:1 Write 4\n8:0 Write 5\nTotal x\nTotal 6\nTotal 7\n",
	"8:0 Read 1\nTotal 1\n8:0 Write 2\n8:1 Frob 3\n",
	"8:0 Frob 1\n8:1 Frob 2\n",
	"Total 0\n",
	"bad\n8:0 Read 1\n\t8:0   Write\t2  \n8:0 Total 3\nTotal 3\n",
}

// TestSeqAsParse: the sequences yield what the parsers return for the
// same input, warnings in order and the error last, fixtures included.
func TestSeqAsParse(t *testing.T) {
	ins := append([]string{}, seqInputs...)
	for _, dir := range []string{"v1", "v2"} {
		for _, file := range golden.Files(t, dir, "*.txt") {
			ins = append(ins, golden.Text(t, file))
		}
	}
	for _, in := range ins {
		st, w, err := seqIOStat(in)
		pst, pw, perr := ParseIOStat(strings.NewReader(in), "in")
		if d := sameResult(st, pst, w, pw, err, perr); d != "" {
			t.Errorf("IOStatSeq(%q): %s", in, d)
		}
		rst, w, err := seqRWStat(in)
		prst, pw, perr := ParseRWStat(strings.NewReader(in), "in")
		if d := sameResult(rst, prst, w, pw, err, perr); d != "" {
			t.Errorf("RWStatSeq(%q): %s", in, d)
		}
	}
}

// TestRWStatSeqOrder: a block is yielded once the next device's line
// (or the end) shows it complete, the group's Total as it comes; a
// consumer that stops stops the reading.
func TestRWStatSeqOrder(t *testing.T) {
	const in = "8:0 Read 1\n8:0 Write 2\n8:0 Total 3\nTotal 3\n8:16 Read 4\n"
	var got []string
	for e, err := range RWStatSeq(strings.NewReader(in), "in", nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d:%d %v %d", e.Major, e.Minor, e.Group, *e.Total))
		if len(got) == 2 {
			break
		}
	}
	if want := []string{"0:0 true 3", "8:0 false 3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("yielded %q, want %q", got, want)
	}
}

// TestSeqMemory: a series longer than the parsers read (past maxLines)
// reads in bounded memory: 400,000 io.stat snapshots (60 MB), and a v1
// file of 50,000 devices, whose numbers are all the sequence holds.
func TestSeqMemory(t *testing.T) {
	snap := []byte(golden.Text(t, "testdata/v2/kernel-doc.txt"))
	v1 := manyDevices([]byte(golden.Text(t, "testdata/v1/root-io_service_bytes.txt")), 50_000)
	for _, tc := range []struct {
		name  string
		want  int
		count func(func()) error
	}{
		{"io.stat", 800_000, func(tick func()) error {
			for _, err := range IOStatSeq(parsetest.Repeat(snap, 400_000), "series", nil) {
				if err != nil {
					return err
				}
				tick()
			}
			return nil
		}},
		{"blkio", 50_001, func(tick func()) error {
			for _, err := range RWStatSeq(parsetest.Repeat(v1, 1), "many", nil) {
				if err != nil {
					return err
				}
				tick()
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			n := 0
			var maxHeap uint64
			err := tc.count(func() {
				if n++; n%10_000 == 0 {
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					maxHeap = max(maxHeap, m.HeapAlloc)
				}
			})
			if err != nil || n != tc.want {
				t.Fatalf("%d records, error %v; want %d", n, err, tc.want)
			}
			// The line reader's buffer, batches of counters dropped as
			// the records are, and (v1) 50,000 device numbers in 1 MiB.
			if grown := int64(maxHeap) - int64(before.HeapAlloc); grown > 16<<20 {
				t.Errorf("the heap grew by %d KiB; want at most 16 MiB", grown>>10)
			}
		})
	}
}

// TestTooManyDevices: RWStatSeq, which has no bound on lines, refuses a
// file of more than maxLines devices at the line of the one past it.
func TestTooManyDevices(t *testing.T) {
	in := string(manyDevices([]byte("8:0 Read 1\n"), maxLines+1))
	_, _, err := seqRWStat(in)
	want := fmt.Sprintf("in:%d: more than %d devices", maxLines+1, maxLines)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want one starting %q", err, want)
	}
	if _, _, err := ParseRWStat(strings.NewReader(in+"8:0 Read 1\n"), "in"); err == nil || !strings.Contains(err.Error(), "more than 100000 lines") {
		t.Errorf("ParseRWStat: %v", err)
	}
}

// TestDevSet: the devices' table tells a device seen before, past its
// scan of 16 and through its growth, the largest number included.
func TestDevSet(t *testing.T) {
	var s devSet
	seen := map[[2]uint32]bool{}
	for i := range 5000 {
		d := [2]uint32{uint32(i*7919) % 1024, uint32(i*104729) % 64}
		if i%100 == 99 {
			d = [2]uint32{1<<32 - 1, 1<<32 - 1}
		}
		if got := s.add(d[0], d[1]); got != seen[d] {
			t.Fatalf("%d: device %v seen %v, want %v", i, d, got, seen[d])
		}
		seen[d] = true
	}
	if s.n != len(seen) {
		t.Errorf("%d devices counted, want %d", s.n, len(seen))
	}
}

// TestAbsentNotZero: a counter the file does not print is nil, one it
// prints as 0 is 0, through the fast path and the general one (a key of
// another policy or a 20-digit number send a line there).
func TestAbsentNotZero(t *testing.T) {
	for _, line := range []string{
		"8:0 rbytes=0 wbytes=0 rios=0 wios=0",
		"8:0 rbytes=0 wbytes=0 rios=0 wios=0 cost.usage=5",
		"8:0 rbytes=00000000000000000000 wbytes=0\trios=0 wios=0",
	} {
		st, warns, err := ParseIOStat(strings.NewReader(line+"\n8:1 rbytes=1 dbytes=0\n"), "in")
		if err != nil || len(warns) > 0 || len(st.Devices) != 2 {
			t.Fatal(line, st, warns, err)
		}
		d, e := st.Devices[0], st.Devices[1]
		if *d.RBytes != 0 || *d.WIOs != 0 || d.DBytes != nil || d.DIOs != nil ||
			*e.RBytes != 1 || e.WBytes != nil || *e.DBytes != 0 || e.DIOs != nil {
			t.Errorf("%q: %+v %+v", line, d, e)
		}
	}
	st, _, err := ParseRWStat(strings.NewReader("8:0 Read 0\n8:0 Write 0\n8:0 Total 0\n8:16 Discard 0\nTotal 0\n"), "in")
	if err != nil || len(st.Devices) != 2 {
		t.Fatal(st, err)
	}
	if d, e := st.Devices[0], st.Devices[1]; *d.Read != 0 || d.Discard != nil || d.Sync != nil || *e.Discard != 0 || e.Read != nil || *st.Total != 0 {
		t.Errorf("%+v %+v", d, e)
	}
}
