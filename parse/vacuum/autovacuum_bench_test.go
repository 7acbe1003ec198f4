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
	cpu := cpuNanos()
	for b.Loop() {
		recs, _, err := Autovacuum(bytes.NewReader(in), "bench")
		if err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
	reportCPU(b, len(in), cpuNanos()-cpu)
}

// BenchmarkAutovacuumSeq reads the same input as BenchmarkAutovacuum,
// a record at a time, as pgstudy parse does.
func BenchmarkAutovacuumSeq(b *testing.B) {
	benchSeq(b, benchInput(b, "autovacuum", "*.log", 8<<20), AutovacuumSeq)
}

// reportCPU reports the input over the process's CPU time, which a busy
// machine inflates less than wall time.
func reportCPU(b *testing.B, size int, cpu int64) {
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/(float64(cpu)/1e9)/(1<<20), "cpu-MiB/s")
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
			reportCPU(b, len(in), cpu)
		})
	}
}
