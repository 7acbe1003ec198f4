// Package batch allocates the small values a parser's records point to
// (an optional counter, a *int64 that is nil when a tool did not print
// it) in batches: one allocation for many records instead of one for
// each, and, for values without pointers, memory the garbage collector
// does not scan. A pointer into a batch keeps the whole batch alive, so
// it is for the records of one parse, kept together. Rows gathers a
// parse's rows in chunks, joined once at the end.
package batch

// Of hands out pointers to values of T from batches that grow from 8 to
// 256 values.
//
// The values handed out are counted, not cut off the batch: storing the
// rest of the batch as a new slice at every value stored a pointer, which
// runs the write barrier while the garbage collector marks.
type Of[T any] struct {
	free    []T // the batch values are handed out from
	used    int // the values of free handed out
	batches int
}

// New returns a pointer to a copy of v.
func (b *Of[T]) New(v T) *T {
	p := b.Zero()
	*p = v
	return p
}

// Zero returns a pointer to a zero value: New(zero value) without the
// copy, which for a large T (a plan node) cost as much as the rest.
func (b *Of[T]) Zero() *T {
	return &b.take()[0]
}

// One returns a slice of one value, v, whose capacity is one: appending
// to it copies it elsewhere, so it never grows into its neighbours (a
// plan node's first child, where most nodes have one).
func (b *Of[T]) One(v T) []T {
	s := b.take()
	s[0] = v
	return s
}

// Run returns n zero values in a row, from one batch.
func (b *Of[T]) Run(n int) []T {
	if n > len(b.free)-b.used {
		size := max(8<<min(b.batches, 5), n)
		b.free, b.used = make([]T, size), 0
		b.batches++
	}
	i := b.used
	b.used += n
	return b.free[i : i+n : i+n]
}

// take hands out the next value as a slice of one.
func (b *Of[T]) take() []T { return b.Run(1) }

// Reserve makes room for n values in one batch, for a caller that knows
// about how many it will take: the batches' doubling leaves up to half of
// the last unused, which for large values (plan nodes) is most of what a
// parse allocates.
func (b *Of[T]) Reserve(n int) {
	if n > len(b.free)-b.used {
		b.free, b.used = make([]T, n), 0
	}
}

// Rows gathers the rows of one parse (a progress line's, an interval's) in
// chunks that grow from 16 to 4096 rows, and joins them once at the end:
// where append grows a long slice by a quarter at a time, allocating
// about five times the rows and copying them at each step, the chunks
// cost the rows twice, and the copy once. With Expect, the rows of an
// input of known size mostly fit in one chunk, which All hands out as it
// is.
type Rows[T any] struct {
	full [][]T // the chunks before cur
	cur  []T
	n    int
	// Room's room is full[room] once full, else cur; the gap rows
	// before it, in full[:room], go to its front at the end. gap is 0
	// without a room.
	room, gap int
}

// Expect makes room for the rows of the left bytes of an input of known
// size, the rows so far having taken perRow bytes each (the first row's
// line, its "\n" included, or the bytes read over the rows read): room
// for a tenth more rows than that, so that lines of about one length,
// as a tool prints its rows, fit in one slice. A few rows so far (up to
// 256, in one chunk or several) are moved into the room; after more, the
// room is the next chunk.
func (r *Rows[T]) Expect(left int64, perRow int) {
	if left <= 0 || perRow <= 0 {
		return
	}
	n := int(left/int64(perRow)*11/10) + 1
	switch {
	case n <= cap(r.cur)-len(r.cur):
	case r.n <= 256:
		room := make([]T, 0, r.n+n)
		for _, c := range r.full {
			room = append(room, c...)
		}
		r.full, r.cur = nil, append(room, r.cur...)
	default:
		if len(r.cur) > 0 {
			r.full = append(r.full, r.cur)
		}
		r.cur = make([]T, 0, n)
	}
}

// Room makes room for left more rows in one slice that All hands out
// with the rows so far in its front: they stay where they are until All
// copies them there, so that a caller may hold pointers to rows until
// the end (Expect moves them), and the rows are copied once at most,
// not all of them at the end as a join of chunks does. For a parser
// whose records refer to each other while it reads (VACUUM's tables and
// their indexes), sized from the records read and the input left.
func (r *Rows[T]) Room(left int) {
	switch {
	case left <= 0 || r.gap > 0:
		return
	case r.n == 0:
		r.cur = make([]T, 0, left)
		return
	}
	if len(r.cur) > 0 {
		r.full = append(r.full, r.cur)
	}
	r.room, r.gap = len(r.full), r.n
	r.cur = make([]T, r.n, r.n+left)
}

// Add appends v.
func (r *Rows[T]) Add(v T) { *r.Next() = v }

// Next appends a row and returns it, to be filled in place: a row set
// field by field where it stays is copied once, not built and then moved
// (a large row with pointers is copied under the write barrier while the
// collector marks). The row is zero: the room past the rows added is
// fresh from make and never written.
func (r *Rows[T]) Next() *T {
	if len(r.cur) == cap(r.cur) {
		if r.cur != nil {
			r.full = append(r.full, r.cur)
		}
		r.cur = make([]T, 0, 16<<min(len(r.full), 8))
	}
	r.cur = r.cur[:len(r.cur)+1]
	r.n++
	return &r.cur[len(r.cur)-1]
}

// Len is the number of rows added.
func (r *Rows[T]) Len() int { return r.n }

// Last is the row added last, to be read or changed; nil when there is
// none.
func (r *Rows[T]) Last() *T {
	switch {
	case r.gap > 0 && r.room == len(r.full) && len(r.cur) == r.gap: // none since Room
		last := r.full[r.room-1]
		return &last[len(last)-1]
	case len(r.cur) == 0:
		return nil
	}
	return &r.cur[len(r.cur)-1]
}

// All is the rows in order, in one slice (the chunk itself when there is
// one); nil when there are none. It is for the end: rows added after it
// are not in it.
func (r *Rows[T]) All() []T {
	switch {
	case r.n == 0:
		return nil
	case len(r.full) == 0:
		return r.cur
	case r.gap > 0 && r.room == len(r.full): // the room holds the rest
		front := r.cur[:0]
		for _, c := range r.full {
			front = append(front, c...)
		}
		return r.cur
	}
	out := make([]T, 0, r.n)
	for i, c := range append(r.full, r.cur) {
		if r.gap > 0 && i == r.room {
			c = c[r.gap:]
		}
		out = append(out, c...)
	}
	return out
}
