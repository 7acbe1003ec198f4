package parse

import "iter"

// Stepper reads a file a line at a time, for StepSeq: Next stops at a
// record or a warning, false at the end, when End is the error of the
// input (nil when it is good); Started tells whether a good line was
// read.
type Stepper[T any] interface {
	Next() bool
	Warning() *Warning
	Record() T
	Started() bool
	End() error
}

// maxHeld bounds the warnings a sequence holds before its first good
// line.
const maxHeld = 4096

// StepSeq yields the records of the reader open makes when the sequence
// is ranged over, holding one line: warnings go to warn (when not nil) as
// they come, but those before the first good line wait for it (up to
// 4,096 of them), so that input of no good line gives its warnings and
// then its error, the last pair, as a parser of the whole input does. A
// consumer that stops ends the reading.
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
				if rd.Started() || len(early) == maxHeld {
					flush()
					warn(*w)
				} else {
					early = append(early, *w)
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
