//go:build !unix

package samples

import "time"

// processStart stands in for the processor time where it cannot be read.
var processStart = time.Now()

// cpuTime is, where the processor time cannot be read, the time since the
// process started.
func cpuTime() time.Duration { return time.Since(processStart) }
