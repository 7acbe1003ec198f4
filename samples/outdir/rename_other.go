//go:build !linux

package outdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// renameNew renames from to to, failing (fs.ErrExist) when to exists. Off
// Linux there is no atomic form: another process may create to between
// the check and the rename.
func renameNew(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EEXIST}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(from, to)
}
