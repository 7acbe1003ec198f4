//go:build !unix

package pgtest

import "io/fs"

// ownedByRoot: without Unix owners no copy counts as root's.
func ownedByRoot(fs.FileInfo) bool { return false }
