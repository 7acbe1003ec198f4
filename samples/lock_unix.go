//go:build unix

package samples

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive advisory lock on the capture folder itself, so
// that two collectors cannot append to one capture at the same time. The
// lock goes away with the process, so a killed collector never leaves a
// stale lock behind.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("samples: %s is in use by another pgstudy (a collect, an import, or an analysis storing facts beside it)", dir)
		}
		return nil, fmt.Errorf("samples: lock %s: %w", dir, err)
	}
	return f, nil
}

// freeBytes is the space left to an unprivileged user on dir's file
// system.
func freeBytes(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
