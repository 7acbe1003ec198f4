package cgroupio

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParseRWStat parses the root group's real
// blkio.throttle.io_service_bytes, as the analysis parses each snapshot
// a run recorded.
func BenchmarkParseRWStat(b *testing.B) {
	in, err := os.ReadFile("testdata/v1/root-io_service_bytes.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		s, _, err := ParseRWStat(bytes.NewReader(in), "bench")
		if err != nil || len(s.Devices) == 0 {
			b.Fatal(err)
		}
	}
}
