package diskstats

import (
	"bytes"
	"os"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// BenchmarkParse parses real /proc/diskstats text (the 20-field
// fixture): "1MiB" is the fixture over and over, about a long run's worth
// of 1-second snapshots of a host with a few disks, in one call;
// "snapshot" is the fixture alone, as the analysis parses each recorded
// snapshot.
func BenchmarkParse(b *testing.B) {
	snap, err := os.ReadFile("testdata/linux-6.18.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name string
		in   []byte
	}{
		{"1MiB", bytes.Repeat(snap, (1<<20)/len(snap)+1)},
		{"snapshot", snap},
	} {
		b.Run(bm.name, func(b *testing.B) {
			golden.Bench(b, bm.in)
			for b.Loop() {
				s, _, err := Parse(bytes.NewReader(bm.in), "bench")
				if err != nil || len(s.Devices) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseSeq reads the same 1 MiB a line at a time through
// ParseSeq, as a long series of snapshots is read, keeping nothing.
func BenchmarkParseSeq(b *testing.B) {
	snap, err := os.ReadFile("testdata/linux-6.18.txt")
	if err != nil {
		b.Fatal(err)
	}
	in := bytes.Repeat(snap, (1<<20)/len(snap)+1)
	golden.Bench(b, in)
	for b.Loop() {
		var sectors uint64
		for c, err := range ParseSeq(bytes.NewReader(in), "bench", nil) {
			if err != nil {
				b.Fatal(err)
			}
			sectors += c.ReadSectors
		}
		if sectors == 0 {
			b.Fatal("no sectors")
		}
	}
}

// BenchmarkAppendJSON writes every device line of the fixtures (20, 18
// and 14 fields) into one reused buffer, as pgstudy parse writes its
// jsonl; the bytes are the JSON's.
func BenchmarkAppendJSON(b *testing.B) {
	var devs []Counters
	for _, file := range golden.Files(b, "", "*.txt") {
		f, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		snap, _, err := Parse(f, file)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		devs = append(devs, snap.Devices...)
	}
	var out, buf []byte
	for i := range devs {
		var err error
		if buf, err = devs[i].AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
		out = append(out, buf...)
	}
	golden.Bench(b, out)
	for b.Loop() {
		for i := range devs {
			buf, _ = devs[i].AppendJSON(buf[:0])
		}
	}
}
