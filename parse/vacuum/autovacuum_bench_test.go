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

// BenchmarkLogFormats reads the same servers' entries (testdata/logformats,
// 13 to 18) in each format, about 8 MiB of each in one call: the stderr
// log is the baseline of the others.
func BenchmarkLogFormats(b *testing.B) {
	for _, ext := range logFormats {
		b.Run(ext, func(b *testing.B) {
			in := benchInput(b, "logformats", "pg*-logformats."+ext, 8<<20)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			var n int
			cpu := cpuNanos()
			for b.Loop() {
				recs, _, err := Autovacuum(bytes.NewReader(in), "bench")
				if err != nil || len(recs) == 0 {
					b.Fatal(err)
				}
				n = len(recs)
			}
			cpu = cpuNanos() - cpu
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
			// CPU time, which a busy machine inflates less than wall time.
			b.ReportMetric(float64(len(in))*float64(b.N)/(float64(cpu)/1e9)/(1<<20), "cpu-MiB/s")
		})
	}
}
