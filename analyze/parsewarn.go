package analyze

import (
	"fmt"
	"slices"

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

// add counts the warnings of one parse, and its error, under what.
func (p *parseWarnings) add(what string, ws []parse.Warning, err error) {
	if len(ws) == 0 && err == nil {
		return
	}
	if *p == nil {
		*p = parseWarnings{}
	}
	for _, w := range ws {
		p.count(parseWarningKey{what, w.Msg}, parseWarningCount{first: w})
	}
	if err != nil {
		p.count(parseWarningKey{what, "not read"}, parseWarningCount{err: err})
	}
}

// count adds one of a kind, c being its first.
func (p parseWarnings) count(k parseWarningKey, c parseWarningCount) {
	if prev := p[k]; prev != nil {
		prev.n++
		return
	}
	c.n = 1
	p[k] = &c
}

// messages says each kind of warning once, sorted.
func (p parseWarnings) messages() []string {
	var out []string
	for k, c := range p {
		msg := fmt.Sprintf("%s: a line not understood: %s", k.what, c.first)
		if c.err != nil {
			msg = fmt.Sprintf("%s: %s: %v", k.what, k.msg, c.err)
		}
		if c.n > 1 {
			msg += fmt.Sprintf(" (and %d more like it)", c.n-1)
		}
		out = append(out, msg)
	}
	slices.Sort(out)
	return out
}

// warnParse keeps the warnings of one parse of the run's output, what
// naming it ("psql output", "diskstats").
func (r *Run) warnParse(what string, ws []parse.Warning) {
	if len(ws) == 0 {
		return
	}
	problems.Lock()
	defer problems.Unlock()
	r.parseWarnings.add(what, ws, nil)
}

// rowError keeps a row of a statistics view that could not be read, once
// per view with a count, as a parse warning is.
func (r *Run) rowError(view string, err error) {
	problems.Lock()
	defer problems.Unlock()
	if r.parseWarnings == nil {
		r.parseWarnings = parseWarnings{}
	}
	r.parseWarnings.count(parseWarningKey{view, "a row not read"}, parseWarningCount{err: err})
}

// flushParseWarnings turns the run's parse warnings into problems, which
// become findings.
func (r *Run) flushParseWarnings() {
	r.Problems = append(r.Problems, r.parseWarnings.messages()...)
	r.parseWarnings = nil
}
