package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// BenchmarkParse reads /proc/stat as the collector records it, twice a
// throughput run: "2cpu" is this machine's (the fixture); "256cpu" is a
// large host's, the fixture with its two cpuN lines in turn for 256 CPUs.
func BenchmarkParse(b *testing.B) {
	in, err := os.ReadFile("testdata/linux-6.18.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name string
		in   []byte
	}{{"2cpu", in}, {"256cpu", manyCPUs(b, in, 256)}} {
		b.Run(bm.name, func(b *testing.B) {
			golden.Bench(b, bm.in)
			for b.Loop() {
				if _, _, err := Parse(bytes.NewReader(bm.in), "stat"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// manyCPUs is the snapshot in with n cpuN lines, its own in turn,
// renumbered.
func manyCPUs(b *testing.B, in []byte, n int) []byte {
	var cpus []string
	var out bytes.Buffer
	for _, l := range strings.SplitAfter(string(in), "\n") {
		if name, rest, _ := strings.Cut(l, " "); strings.HasPrefix(name, "cpu") && name != "cpu" {
			cpus = append(cpus, rest)
			if len(cpus) > 1 {
				continue
			}
			for i := range n {
				fmt.Fprintf(&out, "cpu%d %s", i, cpus[i%len(cpus)])
			}
			continue
		}
		out.WriteString(l)
	}
	if len(cpus) == 0 {
		b.Fatal("no cpuN lines")
	}
	return out.Bytes()
}
