//go:build unix

package samples

import (
	"errors"
	"fmt"
	"os"
	"sync"
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
			return nil, fmt.Errorf("samples: %s is in use by another pgstudy (a collect, an import, a compact, an analysis storing facts beside it, or one reading the fleet): wait for it to end, then run this again", dir)
		}
		return nil, fmt.Errorf("samples: lock %s: %w", dir, err)
	}
	return f, nil
}

// readLock takes a shared lock on a fleet folder, waiting for a publish
// under way (which holds lockDir's exclusive lock) to end: a partition is
// published table by table, and a reader that began part way would read
// some tables of the old capture and some of the new. The lock is held
// until ReleaseReadLocks, or the process's end; a publish meanwhile is
// refused.
func readLock(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("samples: lock %s: %w", dir, err)
	}
	heldLocks.Lock()
	defer heldLocks.Unlock()
	heldLocks.files = append(heldLocks.files, f) // kept open: the lock lasts as long
	return nil
}

// ReleaseReadLocks releases the fleets' read locks the process holds: a
// command calls it once it has read what it reads.
func ReleaseReadLocks() {
	heldLocks.Lock()
	defer heldLocks.Unlock()
	for _, f := range heldLocks.files {
		f.Close()
	}
	heldLocks.files = nil
}

// heldLocks are the read locks this process holds.
var heldLocks struct {
	sync.Mutex
	files []*os.File
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
