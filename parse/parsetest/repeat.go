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

// Made reads n pieces, piece i (from 0) appended to b by piece, each made
// as it is read, without holding more than one: a test of a parser's
// memory can feed it gigabytes of lines that differ (progress lines whose
// times increase) and exist nowhere.
func Made(n int, piece func(b []byte, i int) []byte) *Pieces {
	return &Pieces{n: n, piece: piece}
}

// Pieces is Made's reader.
type Pieces struct {
	n, i  int
	piece func(b []byte, i int) []byte
	buf   []byte
	rest  []byte
}

func (m *Pieces) Read(p []byte) (int, error) {
	for len(m.rest) == 0 { // an empty piece reads as nothing
		if m.i == m.n {
			return 0, io.EOF
		}
		m.buf = m.piece(m.buf[:0], m.i)
		m.rest, m.i = m.buf, m.i+1
	}
	k := copy(p, m.rest)
	m.rest = m.rest[k:]
	return k, nil
}

// Made is how many pieces were made: how far a reader that stopped early
// read.
func (m *Pieces) Made() int { return m.i }
