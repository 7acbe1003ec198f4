//go:build !linux

package collect

import (
	"errors"
	"os"
)

// Off Linux pgstudy reads captures and does not collect them: these stand
// in for disk_linux.go so that the package builds, and Collect refuses to
// start (needLinux).

// errNeedsLinux says why collect cannot run here, and what can.
var errNeedsLinux = errors.New("collect needs Linux: it reads /proc/diskstats, /proc/self/mountinfo and sysfs, " +
	"and empties the page cache through /proc/sys/vm/drop_caches or posix_fadvise; " +
	"analyze, check, report and compare read a capture on any system")

// needLinux says why collect cannot run on this system.
func needLinux() error { return errNeedsLinux }

func deviceOf(string) (disk, mount string, err error) { return "", "", errNeedsLinux }

func dropCaches() error { return errNeedsLinux }

// CanDropCaches says whether drop-caches can work here: it cannot.
func CanDropCaches() error { return errNeedsLinux }

func dropFilePages(*os.File) error { return errNeedsLinux }
