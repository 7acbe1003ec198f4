//go:build unix

package samples

import (
	"syscall"
	"time"
)

// cpuTime is the processor time this process has used, user and system:
// it stands still while the process is stopped (Ctrl-Z) or waits.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
