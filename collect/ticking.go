package collect

import (
	"context"
	"sync"
	"time"
)

// ticking calls take at each tick, on a goroutine of its own, while the
// timed statement runs, and keeps what it returns: the diskstats and
// pg_aios samplers. Its work per tick is the sampler's only: it must not
// perturb the statement it watches.
type ticking[T any] struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	got  []T
}

// startTicking starts calling take(rows so far) every interval until Stop,
// ctx's end, or take saying there is no more; end, when set, runs once
// the goroutine is done. A zero interval samples nothing.
func startTicking[T any](ctx context.Context, every time.Duration, take func(n int) ([]T, bool), end func()) *ticking[T] {
	s := &ticking[T]{stop: make(chan struct{}), done: make(chan struct{})}
	if every <= 0 {
		close(s.done)
		if end != nil {
			end()
		}
		return s
	}
	go func() {
		defer close(s.done)
		if end != nil {
			defer end()
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			s.mu.Lock()
			n := len(s.got)
			s.mu.Unlock()
			rows, more := take(n)
			s.mu.Lock()
			s.got = append(s.got, rows...)
			s.mu.Unlock()
			if !more {
				return
			}
		}
	}()
	return s
}

// ended is a ticking that sampled nothing but rows.
func ended[T any](rows ...T) *ticking[T] {
	s := &ticking[T]{stop: make(chan struct{}), done: make(chan struct{}), got: rows}
	close(s.done)
	return s
}

// Stop ends the sampling and returns what it kept.
func (s *ticking[T]) Stop() []T {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got
}
