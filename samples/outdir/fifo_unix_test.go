//go:build unix

package outdir

import "syscall"

// mkfifo makes a FIFO (named pipe) at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
