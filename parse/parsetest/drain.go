package parsetest

import (
	"iter"

	"github.com/pgstudy/pgstudy/parse"
)

// Drain runs seq, a parser's sequence that hands its warnings to the
// function it is given, to its end: every record, every warning, and the
// error that ended it, as a whole-input function would return them.
func Drain[R any](seq func(warn func(parse.Warning)) iter.Seq2[R, error]) ([]R, []parse.Warning, error) {
	var recs []R
	var warns []parse.Warning
	for rec, err := range seq(func(w parse.Warning) { warns = append(warns, w) }) {
		if err != nil {
			return recs, warns, err
		}
		recs = append(recs, rec)
	}
	return recs, warns, nil
}
