package cgroupio

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// BenchmarkParseRWStat parses the root group's real
// blkio.throttle.io_service_bytes, as the analysis parses each snapshot
// a run recorded: "4dev" is the fixture, "256dev" a host with 256 devices
// (the fixture's device blocks in turn, renumbered).
func BenchmarkParseRWStat(b *testing.B) {
	in, err := os.ReadFile("testdata/v1/root-io_service_bytes.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name string
		in   []byte
	}{{"4dev", in}, {"256dev", manyDevices(in, 256)}} {
		b.Run(bm.name, func(b *testing.B) {
			golden.Bench(b, bm.in)
			for b.Loop() {
				s, _, err := ParseRWStat(bytes.NewReader(bm.in), "bench")
				if err != nil || len(s.Devices) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseIOStat parses io.stat of a host with 256 devices: the
// kernel documentation's two lines in turn, renumbered.
func BenchmarkParseIOStat(b *testing.B) {
	in, err := os.ReadFile("testdata/v2/kernel-doc.txt")
	if err != nil {
		b.Fatal(err)
	}
	big := manyDevices(in, 256)
	golden.Bench(b, big)
	for b.Loop() {
		s, _, err := ParseIOStat(bytes.NewReader(big), "bench")
		if err != nil || len(s.Devices) != 256 {
			b.Fatal(err, len(s.Devices))
		}
	}
}

// BenchmarkSeq reads the 256-device inputs through IOStatSeq and
// RWStatSeq, a record at a time, keeping nothing.
func BenchmarkSeq(b *testing.B) {
	v1, err := os.ReadFile("testdata/v1/root-io_service_bytes.txt")
	if err != nil {
		b.Fatal(err)
	}
	v2, err := os.ReadFile("testdata/v2/kernel-doc.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("v1", func(b *testing.B) {
		in := manyDevices(v1, 256)
		golden.Bench(b, in)
		for b.Loop() {
			var n uint64
			for e, err := range RWStatSeq(bytes.NewReader(in), "bench", nil) {
				if err != nil || e.Total == nil {
					b.Fatal(err)
				}
				n += *e.Total
			}
		}
	})
	b.Run("v2", func(b *testing.B) {
		in := manyDevices(v2, 256)
		golden.Bench(b, in)
		for b.Loop() {
			var n uint64
			for d, err := range IOStatSeq(bytes.NewReader(in), "bench", nil) {
				if err != nil {
					b.Fatal(err)
				}
				n += *d.RBytes
			}
		}
	})
}

// manyDevices is a cgroup file with n devices: the lines of in by device
// in turn, each block under a new device number 8:16k; other lines (a v1
// Total) at the end.
func manyDevices(in []byte, n int) []byte {
	var order []string
	blocks := map[string][]string{}
	var tail []string
	for _, l := range strings.SplitAfter(string(in), "\n") {
		dev, rest, ok := strings.Cut(l, " ")
		if !ok || !strings.Contains(dev, ":") {
			tail = append(tail, l)
			continue
		}
		if _, seen := blocks[dev]; !seen {
			order = append(order, dev)
		}
		blocks[dev] = append(blocks[dev], rest)
	}
	var out bytes.Buffer
	var total uint64 // the group's, the devices' Totals summed as the kernel sums them
	for i := range n {
		for _, rest := range blocks[order[i%len(order)]] {
			fmt.Fprintf(&out, "%d:%d %s", 8+i/16, 16*(i%16), rest)
			if v, ok := strings.CutPrefix(strings.TrimSpace(rest), "Total "); ok {
				c, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					panic(err)
				}
				total += c
			}
		}
	}
	for _, l := range tail {
		if strings.HasPrefix(l, "Total ") {
			l = fmt.Sprintf("Total %d\n", total)
		}
		out.WriteString(l)
	}
	return out.Bytes()
}
