package psql

import "strings"

// The echoes of statements (psql -a, -e, \set ECHO_HIDDEN): their lines
// are gathered, then cut into statements at their semicolons.

// echo is an echo being read.
type echo struct {
	first, last int
	cuts        []sqlCut // offsets in the echo's text
	size        int      // the length of its text so far
	sql         bool     // it has SQL, not only comments
	hidden      bool     // after hiddenStart
}

// resultBlock is a finished echo whose statements are still being handed
// out: psql -a echoes "select 1; select 2;" once for both.
type resultBlock struct {
	text  string
	parts []part
	next  int            // the next part to hand out
	owner *openStatement // the statement given the last part handed out
}

type part struct {
	start, end int // offsets in text
	line       int // index of the line it starts on
}

// startEcho opens the echo of a statement (or a comment) on line i.
func (p *parser) startEcho(i int) {
	p.closeStmt()
	p.flushBlock()
	// One echo is read at a time: its room, and that of its cuts, is
	// the parser's, reused.
	p.echoBuf = echo{first: i, last: i, hidden: p.hidden, cuts: p.echoBuf.cuts[:0]}
	p.echo = &p.echoBuf
	p.hidden = false
	p.lex.reset()
	p.echoLine(i)
}

// echoTakes reads line i into the open echo, reporting whether it did: a
// line that cannot go on with it (the output of a statement sent without
// a semicolon, or the end of comments standing alone) ends it instead.
func (p *parser) echoTakes(i int) bool {
	e, line := p.echo, p.line(i)
	switch {
	case !e.sql && p.lex.topLevel() && !isComment(line) && !startsSQL(line):
		p.endEcho()
		return false
	case e.sql && p.lex.topLevel() && p.interrupts(i):
		// psql sent the statement without a semicolon (\g): its output
		// starts here.
		p.endEcho()
		return false
	}
	p.echoLine(i)
	return true
}

// echoLine adds line i to the open echo.
func (p *parser) echoLine(i int) {
	e := p.echo
	if i > e.first {
		e.size++ // the "\n" before it
	}
	base := len(e.cuts)
	var done bool
	l := p.line(i)
	e.cuts, done = p.lex.scan(l, e.cuts)
	for k := base; k < len(e.cuts); k++ {
		e.cuts[k].off += e.size
		if e.cuts[k].sql {
			e.sql = true
		}
	}
	if p.lex.sql {
		e.sql = true
	}
	e.size += len(l)
	e.last = i
	if done {
		p.endEcho()
	}
}

// endEcho finishes the open echo: its first statement opens, the others
// wait for their output.
func (p *parser) endEcho() {
	e := p.echo
	p.echo = nil
	text := p.w.join(e.first, e.last)
	parts := p.parts[:0]
	start := 0
	for _, c := range e.cuts {
		if c.sql {
			parts = append(parts, part{start: start, end: c.off})
			start = c.off
		}
	}
	if p.lex.sql {
		parts = append(parts, part{start: start, end: len(text)})
	} else if len(parts) > 0 {
		parts[len(parts)-1].end = len(text) // a comment after the last semicolon
	}
	p.lex.reset()
	if len(parts) == 0 {
		p.addMeta(&Meta{Line: e.first + 1, EndLine: e.last + 1, Comment: text})
		return
	}
	pos, line := 0, e.first
	for k := range parts {
		off := parts[k].start
		for off < parts[k].end && (text[off] == ' ' || text[off] == '\t' || text[off] == '\n') {
			off++
		}
		line += strings.Count(text[pos:off], "\n")
		parts[k].line, pos = line, off
	}
	st := p.stmtSlab.next()
	st.Line, st.EndLine = e.first+1, e.last+1
	st.SQL = strings.TrimSpace(text[parts[0].start:parts[0].end])
	st.copyOut = copiesOut(st.SQL)
	st.SQLLine = e.first + 1
	st.Hidden = e.hidden
	p.addStmt(st)
	p.cur = st
	if len(parts) > 1 {
		p.block = &resultBlock{text: text, parts: parts, next: 1, owner: st}
		p.parts = nil // the block's now
	} else {
		p.parts = parts
	}
}

// flushBlock gives the statements of the last echo that no output claimed
// to the last statement that had one: "select 1 \; select 2" is one query.
func (p *parser) flushBlock() {
	b := p.block
	if b == nil {
		return
	}
	p.block = nil
	if b.next < len(b.parts) {
		o := b.owner
		o.SQL = strings.TrimSpace(b.text[b.parts[o.part].start:b.parts[len(b.parts)-1].end])
	}
}

// hiddenQuery reads the line of stars before the query a meta-command
// sends (\d), which psql echoes between two lines of stars.
func (p *parser) hiddenQuery() {
	p.closeStmt()
	p.flushBlock()
	p.hidden = true
}

// hiddenQueryEnd reads the line of stars after such a query.
func (p *parser) hiddenQueryEnd(i int) {
	if c := p.accepting(); c != nil && c.Hidden && len(c.pending) == 0 {
		c.EndLine = i + 1
	} else {
		p.warn(i, "not part of any statement, result or message")
	}
}
