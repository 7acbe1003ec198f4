//go:build !linux

package pgtest

import "errors"

// stop stops a postmaster through a pidfd, which only Linux has; the
// servers pgtest runs are Linux binaries besides.
func (c *Cluster) stop() (string, error) {
	return "", errors.New("pgtest: stopping a server needs Linux (pidfd_open)")
}
