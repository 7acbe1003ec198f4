package analyze

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/pgstudy/pgstudy/samples"
)

// readAhead is how many parts inOrder reads at once, and so how many it
// holds read and not yet used.
const readAhead = 2

// inOrder calls read for 0 to n-1, readAhead of them at once, and use with
// each result in order: the parts of a table are read side by side, and
// their rows used as if read one after the other. It stops at the first
// error, of read or use, in order; reads already started finish on their
// own.
func inOrder[T any](n int, read func(i int) (T, error), use func(i int, v T) error) error {
	type result struct {
		v   T
		err error
	}
	results := make([]chan result, n)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, readAhead) // taken by a read, given back once it is used
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			go func() {
				v, err := read(i)
				results[i] <- result{v, err}
			}()
		}
	}()
	for i := range n {
		res := <-results[i]
		if res.err != nil {
			return res.err
		}
		if err := use(i, res.v); err != nil {
			return err
		}
		<-slots
	}
	return nil
}

// eachPart reads the parts of T's table (only the columns named, when
// named), readAhead at a time, each into rows from a pool, and calls fn
// with each part's rows in order, as samples.ReadParts does; but fn must
// not keep the rows (what they hold, text included, is its to keep): they
// are read into again. A capture of 100,000 runs has millions of
// statements and steps, and a new slice of rows a part was that much
// more for the garbage collector.
func eachPart[T any](r *samples.Reader, fn func(rows []T) error, columns ...string) error {
	return eachPartRead(r, func(part string, rows []T) ([]T, error) { return samples.ReadPartInto(r, part, rows, columns...) }, fn)
}

// eachPartWhere is eachPart with the text column text decoded only for
// the rows keep accepts (samples.ReadPartWhere).
func eachPartWhere[T any](r *samples.Reader, text string, keep func(*T) bool, fn func(rows []T) error, columns ...string) error {
	return eachPartRead(r, func(part string, rows []T) ([]T, error) {
		return samples.ReadPartWhere(r, part, rows, text, keep, columns...)
	}, fn)
}

// eachPartRead is eachPart of the parts read by read into rows.
func eachPartRead[T any](r *samples.Reader, read func(part string, rows []T) ([]T, error), fn func(rows []T) error) error {
	table, err := tableName[T]()
	if err != nil {
		return err
	}
	parts, err := r.Parts(table)
	if err != nil {
		return err
	}
	var pool rowPool[T]
	return inOrder(len(parts), func(i int) ([]T, error) {
		// After an error the rows are not given back: a read given up on
		// may still write into them.
		return read(parts[i], pool.get())
	}, func(_ int, rows []T) error {
		defer pool.put(rows)
		return fn(rows)
	})
}

// tableName is the name of the table whose rows are T.
func tableName[T any]() (string, error) {
	typ := reflect.TypeFor[T]()
	for _, t := range samples.Tables {
		if t.Type == typ {
			return t.Name, nil
		}
	}
	return "", fmt.Errorf("analyze: %s is not a capture table's row", typ)
}

// rowPool keeps slices of rows between parts.
type rowPool[T any] struct{ p sync.Pool }

func (rp *rowPool[T]) get() []T {
	if s, ok := rp.p.Get().(*[]T); ok {
		return *s
	}
	return nil
}

func (rp *rowPool[T]) put(rows []T) {
	if cap(rows) > 0 {
		rp.p.Put(&rows)
	}
}
