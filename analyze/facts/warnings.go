package facts

import (
	"fmt"
	"slices"

	"github.com/pgstudy/pgstudy/parse"
)

// Warnings are the lines a parser read but did not understand in one run's
// raw text, by what was parsed and the kind of warning: a silently degraded
// parse (a field missing, a line skipped) is said, once per kind, with its
// first line and how many more there were.
type Warnings map[warningKey]*warningCount

type warningKey struct{ what, msg string }

type warningCount struct {
	first parse.Warning
	err   error // for a row not read: the first error
	n     int
}

// Add counts the warnings of one parse, and its error, under what.
func (p *Warnings) Add(what string, ws []parse.Warning, err error) {
	if len(ws) == 0 && err == nil {
		return
	}
	for _, w := range ws {
		p.count(warningKey{what, w.Msg}, warningCount{first: w})
	}
	if err != nil {
		p.count(warningKey{what, "not read"}, warningCount{err: err})
	}
}

// RowError counts a row of what (a statistics view) that could not be
// read, once per what with a count, as a parse warning is.
func (p *Warnings) RowError(what string, err error) {
	p.count(warningKey{what, "a row not read"}, warningCount{err: err})
}

// count adds one of a kind, c being its first.
func (p *Warnings) count(k warningKey, c warningCount) {
	if *p == nil {
		*p = Warnings{}
	}
	if prev := (*p)[k]; prev != nil {
		prev.n++
		return
	}
	c.n = 1
	(*p)[k] = &c
}

// Messages says each kind of warning once, sorted.
func (p Warnings) Messages() []string {
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
