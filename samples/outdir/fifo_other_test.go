//go:build !unix

package outdir

import "errors"

// mkfifo: this system has no FIFOs in its file system.
func mkfifo(string) error { return errors.ErrUnsupported }
