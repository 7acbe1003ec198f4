// Package batch allocates the small values a parser's records point to
// (an optional counter, a *int64 that is nil when a tool did not print
// it) in batches: one allocation for many records instead of one for
// each, and, for values without pointers, memory the garbage collector
// does not scan. A pointer into a batch keeps the whole batch alive, so
// it is for the records of one parse, kept together.
package batch

// Of hands out pointers to values of T from batches that grow from 8 to
// 256 values.
type Of[T any] struct {
	free    []T
	batches int
}

// New returns a pointer to a copy of v.
func (b *Of[T]) New(v T) *T {
	if len(b.free) == 0 {
		b.free = make([]T, 8<<min(b.batches, 5))
		b.batches++
	}
	p := &b.free[0]
	*p = v
	b.free = b.free[1:]
	return p
}
