//go:build !unix

package samples

import "os"

// lockDir does not lock where flock is missing: captures are taken on Unix
// systems; elsewhere a capture is only read.
func lockDir(dir string) (*os.File, error) { return nil, nil }

// freeBytes is unknown here.
func freeBytes(string) (int64, bool) { return 0, false }

// readLock does not lock where flock is missing.
func readLock(string) error { return nil }

// ReleaseReadLocks has none to release here.
func ReleaseReadLocks() {}
