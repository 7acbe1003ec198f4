//go:build unix

package pgtest

import (
	"io/fs"
	"syscall"
)

// ownedByRoot reports whether root owns the file fi describes.
func ownedByRoot(fi fs.FileInfo) bool {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	return ok && sys.Uid == 0
}
