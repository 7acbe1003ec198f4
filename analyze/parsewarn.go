package analyze

import (
	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/parse"
)

// parseWarnings are a run's parse warnings, kept until the run is read
// (facts.Warnings: the facts of a run say theirs the same way).
type parseWarnings = facts.Warnings

// warnParse keeps the warnings of one parse of the run's output, what
// naming it ("psql output", "diskstats").
func (r *Run) warnParse(what string, ws []parse.Warning) {
	if len(ws) == 0 {
		return
	}
	problems.Lock()
	defer problems.Unlock()
	r.parseWarnings.Add(what, ws, nil)
}

// rowError keeps a row of a statistics view that could not be read, once
// per view with a count, as a parse warning is.
func (r *Run) rowError(view string, err error) {
	problems.Lock()
	defer problems.Unlock()
	r.parseWarnings.RowError(view, err)
}

// flushParseWarnings turns the run's parse warnings into problems, which
// become findings.
func (r *Run) flushParseWarnings() {
	r.Problems = append(r.Problems, r.parseWarnings.Messages()...)
	r.parseWarnings = nil
}
