package study

import "time"

// Calibrate is protocol.calibrate: measure the read ceiling of the device
// holding each configuration's data directory, before the first round and
// after the last, with O_DIRECT reads of a file pgstudy writes there and
// removes (collect/calibrate.go). Without it nothing is measured, and a
// device's limit is what disk.limits declares, if anything.
type Calibrate struct {
	// Duration is how long each pattern reads (sequential 1 MiB requests,
	// then random 4 KiB ones); 3s when absent.
	Duration Duration `yaml:"duration"`
	// SizeMiB is the calibration file's size; 1024 when absent. Reads
	// around the page cache need no file larger than memory; the file is
	// large so that a sequential pass rarely wraps.
	SizeMiB int64 `yaml:"size_mib"`
	// Depth is how many requests are in flight at once; 8 when absent.
	Depth int `yaml:"depth"`
	// Dir is the folder to make the file in, on the device to measure;
	// by default the parent of each data directory (the data directory
	// itself when its parent is on another file system).
	Dir string `yaml:"dir"`
	Pos Pos
}

// Bounds of a calibration: long enough to be a rate, short enough not to
// use up what it measures (a burst allowance).
const (
	calibrateMaxDuration = time.Minute
	calibrateMinMiB      = 16
	calibrateMaxMiB      = 64 << 10
	calibrateMaxDepth    = 256
)

// checkCalibrate applies protocol.calibrate's defaults and bounds.
func (s *Study) checkCalibrate(d *decoder) {
	c := s.Protocol.Calibrate
	if c == nil {
		return
	}
	if !c.Duration.Set {
		c.Duration.Duration = 3 * time.Second
	} else if c.Duration.Duration > calibrateMaxDuration {
		d.errorAt(c.Pos, "protocol: calibrate: duration must be at most %s per pattern, found %s", calibrateMaxDuration, c.Duration.Duration)
	}
	if c.SizeMiB == 0 {
		c.SizeMiB = 1024
	}
	if c.SizeMiB < calibrateMinMiB || c.SizeMiB > calibrateMaxMiB {
		d.errorAt(c.Pos, "protocol: calibrate: size_mib must be from %d to %d, found %d", calibrateMinMiB, calibrateMaxMiB, c.SizeMiB)
	}
	if c.Depth == 0 {
		c.Depth = 8
	}
	if c.Depth < 1 || c.Depth > calibrateMaxDepth {
		d.errorAt(c.Pos, "protocol: calibrate: depth must be from 1 to %d, found %d", calibrateMaxDepth, c.Depth)
	}
}
