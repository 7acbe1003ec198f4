package parse

import (
	"bytes"
	"testing"
)

// BenchmarkAutovacuumLog parses server logs with autovacuum entries, 13 to
// 18, about 8 MiB in one call.
func BenchmarkAutovacuumLog(b *testing.B) {
	in := vacBenchInput(b, "autovacuum", "*.log", 8<<20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		recs, _, err := AutovacuumLog(bytes.NewReader(in), "bench")
		if err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
}
