package analyze

import (
	"fmt"

	"github.com/pgstudy/pgstudy/parse"
)

// parseWarnings are the lines a parser read but did not understand in one
// run's outputs, by what was parsed and the kind of warning: a silently
// degraded parse (a field missing, a line skipped) is said, once per kind,
// with its first line and how many more there were.
type parseWarnings map[parseWarningKey]*parseWarningCount

type parseWarningKey struct{ what, msg string }

type parseWarningCount struct {
	first parse.Warning
	err   error // for a row not read: the first error
	n     int
}

// warnParse keeps the warnings of one parse of the run's output, what
// naming it ("psql output", "diskstats").
func (r *Run) warnParse(what string, ws []parse.Warning) {
	if len(ws) == 0 {
		return
	}
	problems.Lock()
	defer problems.Unlock()
	if r.parseWarnings == nil {
		r.parseWarnings = parseWarnings{}
	}
	for _, w := range ws {
		k := parseWarningKey{what, w.Msg}
		if c := r.parseWarnings[k]; c != nil {
			c.n++
			continue
		}
		r.parseWarnings[k] = &parseWarningCount{first: w, n: 1}
	}
}

// rowError keeps a row of a statistics view that could not be read, once
// per view with a count, as a parse warning is.
func (r *Run) rowError(view string, err error) {
	problems.Lock()
	defer problems.Unlock()
	if r.parseWarnings == nil {
		r.parseWarnings = parseWarnings{}
	}
	k := parseWarningKey{view, "a row not read"}
	if c := r.parseWarnings[k]; c != nil {
		c.n++
		return
	}
	r.parseWarnings[k] = &parseWarningCount{err: err, n: 1}
}

// flushParseWarnings turns the run's parse warnings into problems, which
// become findings.
func (r *Run) flushParseWarnings() {
	for k, c := range r.parseWarnings {
		msg := fmt.Sprintf("%s: a line not understood: %s", k.what, c.first)
		if c.err != nil {
			msg = fmt.Sprintf("%s: %s: %v", k.what, k.msg, c.err)
		}
		if c.n > 1 {
			msg += fmt.Sprintf(" (and %d more like it)", c.n-1)
		}
		r.Problems = append(r.Problems, msg)
	}
	r.parseWarnings = nil
}
