//go:build !unix

package parsetest

// CPUNanos is 0 where getrusage is not: a benchmark reports no cpu-MB/s.
func CPUNanos() int64 { return 0 }
