package procstat

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkParse reads this machine's /proc/stat as the collector records
// it, twice a throughput run.
func BenchmarkParse(b *testing.B) {
	in, err := os.ReadFile("testdata/linux-6.18.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := string(in)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse(strings.NewReader(text), "stat"); err != nil {
			b.Fatal(err)
		}
	}
}
