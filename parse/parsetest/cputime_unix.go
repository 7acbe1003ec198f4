//go:build unix

package parsetest

import "syscall"

// CPUNanos is the CPU time (user and system, all threads) the process has
// used: a benchmark's cost that other work on a busy machine inflates
// much less than the wall-clock time.
func CPUNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
