package analyze

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
