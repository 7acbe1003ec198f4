package parse

import (
	"fmt"
	"iter"
)

// Stepper reads a file a line at a time, for StepSeq: Next stops at a
// record or a warning, false at the end, when End is the error of the
// input (nil when it is good); Started tells whether a good line was
// read; Refuse is the error of an input whose first n lines not
// understood came before any good one (see NoLineOf).
type Stepper[T any] interface {
	Next() bool
	Warning() *Warning
	Record() T
	Started() bool
	End() error
	Refuse(n int) error
}

// Judged is how many lines not understood, before any good one, refuse
// an input in StepSeq: a file of another kind named by mistake is refused
// at once rather than read to its end (a gigabyte took most of a
// minute), and a stream that never ends is refused rather than read
// forever. A real output's lines not understood are a few among good
// ones; its good lines come first.
const Judged = 1000

// NoLineOf says which lines of an input held none of its kind, for the
// error that refuses it: "no line of it" when the whole was read,
// "none of its first N lines" when the reading stopped after n
// (Judged).
func NoLineOf(n int) string {
	if n == 0 {
		return "no line of it"
	}
	return fmt.Sprintf("none of its first %d lines", n)
}

// StepSeq yields the records of the reader open makes when the sequence
// is ranged over, holding one line: warnings go to warn (when not nil) as
// they come, but those before the first good line wait for it, so that
// input of no good line gives its warnings and then its error, the last
// pair, as a parser of the whole input does. Judged warnings before any
// good line end the reading with the reader's Refuse. A consumer that
// stops ends the reading.
func StepSeq[T any](open func() Stepper[T], warn func(Warning)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		if warn == nil {
			warn = func(Warning) {}
		}
		var early []Warning
		flush := func() {
			for _, w := range early {
				warn(w)
			}
			early = nil
		}
		rd := open()
		for rd.Next() {
			if w := rd.Warning(); w != nil {
				if rd.Started() {
					flush()
					warn(*w)
					continue
				}
				if early = append(early, *w); len(early) == Judged {
					flush()
					var zero T
					yield(zero, rd.Refuse(Judged))
					return
				}
				continue
			}
			flush()
			if !yield(rd.Record(), nil) {
				return
			}
		}
		flush()
		if err := rd.End(); err != nil {
			var zero T
			yield(zero, err)
		}
	}
}
