package vacuum

import (
	"bytes"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// BenchmarkAutovacuum parses server logs with autovacuum entries, 13 to
// 18, about 8 MiB in one call.
func BenchmarkAutovacuum(b *testing.B) {
	in := benchInput(b, "autovacuum", "*.log", 8<<20)
	golden.Bench(b, in)
	for b.Loop() {
		recs, _, err := Autovacuum(bytes.NewReader(in), "bench")
		if err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkAutovacuumSeq reads the same input as BenchmarkAutovacuum,
// a record at a time, as pgstudy parse does.
func BenchmarkAutovacuumSeq(b *testing.B) {
	benchSeq(b, benchInput(b, "autovacuum", "*.log", 8<<20), AutovacuumSeq)
}

// BenchmarkLogFormats reads the same servers' entries (testdata/logformats,
// 13 to 18) in each format, about 8 MiB of each in one call: the stderr
// log is the baseline of the others.
func BenchmarkLogFormats(b *testing.B) {
	for _, ext := range logFormats {
		b.Run(ext, func(b *testing.B) {
			in := benchInput(b, "logformats", "pg*-logformats."+ext, 8<<20)
			golden.Bench(b, in)
			var n int
			for b.Loop() {
				recs, _, err := Autovacuum(bytes.NewReader(in), "bench")
				if err != nil || len(recs) == 0 {
					b.Fatal(err)
				}
				n = len(recs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}

// BenchmarkLogFormatsSeq reads the same inputs as BenchmarkLogFormats a
// record at a time, as pgstudy parse autovacuum-log does.
func BenchmarkLogFormatsSeq(b *testing.B) {
	for _, ext := range logFormats {
		b.Run(ext, func(b *testing.B) {
			benchSeq(b, benchInput(b, "logformats", "pg*-logformats."+ext, 8<<20), AutovacuumSeq)
		})
	}
}
