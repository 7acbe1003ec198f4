package parsetest

import "testing"

// Bench makes b report its throughput over size bytes an iteration: MB/s
// of wall time, and cpu-MB/s over the CPU time the process used (all
// threads, the garbage collector's too), which other work on a busy
// machine inflates much less; with its allocations.
func Bench(b *testing.B, size int) {
	b.Helper()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpu := CPUNanos()
	b.Cleanup(func() {
		if d := CPUNanos() - cpu; cpu > 0 && d > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/float64(d)*1e3, "cpu-MB/s")
		}
	})
}
