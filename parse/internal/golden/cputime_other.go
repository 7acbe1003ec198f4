//go:build !unix

package golden

// cpuNanos is 0 where getrusage is not: no cpu-MB/s is reported.
func cpuNanos() int64 { return 0 }
