package vacuum

import (
	"bytes"
	"testing"
)

// BenchmarkAutovacuum parses server logs with autovacuum entries, 13 to
// 18, about 8 MiB in one call.
func BenchmarkAutovacuum(b *testing.B) {
	in := benchInput(b, "autovacuum", "*.log", 8<<20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		recs, _, err := Autovacuum(bytes.NewReader(in), "bench")
		if err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
}
