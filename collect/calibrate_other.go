//go:build !linux

package collect

import (
	"context"
	"errors"
	"time"
)

// Off Linux pgstudy analyses captures and does not calibrate: these stand
// in for calibrate_linux.go so that the package builds.

const directIO = false

var errNoDirectIO = errors.New("calibration reads with O_DIRECT, which this build of pgstudy does only on Linux")

type readResult struct {
	Bytes, Requests int64
	Elapsed         time.Duration
}

func writeCalibrationFile(context.Context, string, int64) error { return errNoDirectIO }

func directReads(context.Context, string, int64, int64, bool, int, time.Duration) (readResult, error) {
	return readResult{}, errNoDirectIO
}

func freeBytes(string) (int64, int64, error) { return 0, 0, errNoDirectIO }

func sameDevice(string, string) bool { return false }
