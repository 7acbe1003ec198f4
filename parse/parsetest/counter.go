package parsetest

import "io"

// Counter counts the bytes read through it, and hides its reader's size
// and methods, as a pipe does: a test of how much of an input a parser
// reads before it refuses it.
type Counter struct {
	R io.Reader
	N int64
}

func (c *Counter) Read(p []byte) (int, error) {
	k, err := c.R.Read(p)
	c.N += int64(k)
	return k, err
}
