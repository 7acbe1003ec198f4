package outdir

import (
	"os"

	"golang.org/x/sys/unix"
)

// renameNew renames from to to, failing (fs.ErrExist) when to exists:
// nothing of anyone's is ever replaced by a rename.
func renameNew(from, to string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
