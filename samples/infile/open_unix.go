//go:build unix

package infile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// setBlocking clears O_NONBLOCK, which a regular file ignores anyway; it
// keeps reads of what was opened plain.
func setBlocking(f *os.File) error {
	return syscall.SetNonblock(int(f.Fd()), false)
}

// nonblock opens without blocking: see Open.
const nonblock = syscall.O_NONBLOCK

// waitReadable waits until the FIFO f has data to read or a writer that
// came has gone (poll's POLLHUP, which Linux gives only for a writer that
// opened after f was), so that a read after it blocks no more than a
// pipe's and a FIFO with no writer yet is not read as empty.
func waitReadable(f *os.File) error {
	fds := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case fds[0].Revents != 0:
			return nil
		}
	}
}
