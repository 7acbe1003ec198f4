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
	got  []T // kept, not yet handed over
	n    int // rows taken so far, handed over or not
	// full, when set, is signalled (without waiting) each time the
	// ticking keeps limit rows or more: time they were handed over.
	full  chan<- struct{}
	limit int
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
			n := s.n
			s.mu.Unlock()
			rows, more := take(n)
			s.mu.Lock()
			s.got = append(s.got, rows...)
			s.n += len(rows)
			full := s.full != nil && len(s.got) >= s.limit
			s.mu.Unlock()
			if full {
				select {
				case s.full <- struct{}{}:
				default:
				}
			}
			if !more {
				return
			}
		}
	}()
	return s
}

// ended is a ticking that sampled nothing but rows.
func ended[T any](rows ...T) *ticking[T] {
	s := &ticking[T]{stop: make(chan struct{}), done: make(chan struct{}), got: rows, n: len(rows)}
	close(s.done)
	return s
}

// signalAt has full signalled each time the ticking keeps limit rows or
// more, for Take to hand them over while it goes on.
func (s *ticking[T]) signalAt(limit int, full chan<- struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit, s.full = max(limit, 1), full
}

// Take hands over the rows kept so far; the ticking goes on.
func (s *ticking[T]) Take() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.got
	s.got = nil
	return got
}

// Stop ends the sampling and hands over the rows kept since the last
// Take: each row is handed over once.
func (s *ticking[T]) Stop() []T {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	return s.Take()
}
