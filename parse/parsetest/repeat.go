// Package parsetest helps the tests of the parsers and of the commands
// that run them: inputs of any size made as they are read.
package parsetest

import "io"

// Repeat reads b n times over, without holding more than b: a test of a
// parser's memory can feed it gigabytes that exist nowhere.
func Repeat(b []byte, n int) *Repeated {
	return &Repeated{b: b, n: n}
}

// Repeated is Repeat's reader.
type Repeated struct {
	b    []byte
	n    int
	rest []byte
}

func (r *Repeated) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		if r.n == 0 {
			return 0, io.EOF
		}
		r.rest, r.n = r.b, r.n-1
	}
	k := copy(p, r.rest)
	r.rest = r.rest[k:]
	return k, nil
}

// Left is how many of the copies were not begun: how far a reader that
// stopped early read.
func (r *Repeated) Left() int { return r.n }
