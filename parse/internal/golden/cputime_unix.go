//go:build unix

package golden

import "syscall"

// cpuNanos is the CPU time (user and system, all threads) the process has
// used: a benchmark's cost that other work on a busy machine inflates
// much less than the wall-clock time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
