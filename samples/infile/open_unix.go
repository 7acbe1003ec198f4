//go:build unix

package infile

import (
	"os"
	"syscall"
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
