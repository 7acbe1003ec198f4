package pgtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// stopTimeout bounds the wait for a postmaster to exit after SIGQUIT.
const stopTimeout = time.Minute

func (c *Cluster) stop() (string, error) {
	pid, err := c.postmasterPID()
	if err != nil || pid == 0 {
		return "", err
	}
	// A pidfd names this process and no later one with the same pid.
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return "", nil // a stale pid file: the server is gone
	}
	if err != nil {
		return "", fmt.Errorf("pidfd_open of postmaster %d: %w", pid, err)
	}
	defer unix.Close(fd)
	if again, err := c.postmasterPID(); err != nil || again != pid {
		return "", err // it exited, and perhaps another started, meanwhile
	}
	// A stale pid file can name a pid another process has since taken:
	// a postmaster works in its data directory.
	if cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil {
		if want, _ := filepath.EvalSymlinks(c.DataDir); cwd != want && cwd != c.DataDir {
			return "", nil // not this cluster's postmaster: the server is gone
		}
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGQUIT, nil, 0); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return "", nil
		}
		return "", fmt.Errorf("signal postmaster %d: %w", pid, err)
	}
	deadline := time.Now().Add(stopTimeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return tail(readFrom(c.Log, 0), 20), fmt.Errorf("postmaster %d still runs %s after SIGQUIT", pid, stopTimeout)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("wait for postmaster %d: %w", pid, err)
		}
		if n > 0 {
			return "", nil // readable: the process has exited
		}
	}
}
