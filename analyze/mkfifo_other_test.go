//go:build !unix

package analyze_test

import "errors"

// mkfifo cannot make a FIFO here; the tests run on Linux only.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
