//go:build !unix

package infile

import "os"

// Off Unix there are no FIFOs to block on at open.
func openNonblocking(path string) (*os.File, error) { return os.Open(path) }

func setBlocking(*os.File) error { return nil }

const nonblock = 0

// waitReadable has nothing to wait for off Unix.
func waitReadable(*os.File) error { return nil }
