package psql

import "strings"

// The statements being read, and the lines of output given to them.

// openStatement is a statement being read.
type openStatement struct {
	Statement
	closed  bool       // its Time: line was read
	failed  bool       // it has an error
	pending []pendLine // lines after its echo that may be rows of a result
	part    int        // its part of the echo resultBlock hands out
	copyOut bool       // COPY ... TO STDOUT: its output is data, not psql's lines
	// Room for what most statements have, in their allocation: its
	// Time: line's milliseconds (TimeMs) and its first result, each an
	// allocation of its own otherwise. (Most have no message, and a
	// Message is twice the rest.)
	ms  float64
	res [1]Result
}

// addResult appends r to the statement's results.
func (st *openStatement) addResult(r Result) {
	if st.Results == nil {
		st.Results = st.res[:0:1]
	}
	st.Results = append(st.Results, r)
}

// stmtSlab hands out statements from arrays of them, one allocation for
// many: a session of short statements makes one a few lines. A record
// handed out keeps its array alive, a few KiB.
type stmtSlab []openStatement

func (s *stmtSlab) next() *openStatement {
	if len(*s) == 0 {
		*s = make([]openStatement, 32)
	}
	st := &(*s)[0]
	*s = (*s)[1:]
	return st
}

// pendLine is line i, s, kept as it may be a row of a result: its text
// with it, so that the window need not hold it.
type pendLine struct {
	i int
	s string
}

// open is the statement that is still reading output, or nil.
func (p *parser) open() *openStatement {
	if p.cur != nil && !p.cur.closed {
		return p.cur
	}
	return nil
}

// accepting is the open statement when it has had no result yet, so that
// an unrecognised line may be a row of one.
func (p *parser) accepting() *openStatement {
	c := p.open()
	if c == nil || c.failed || len(c.Results) > 0 {
		return nil
	}
	return c
}

// newStmt opens a statement that psql did not echo (or that shares an
// echo with the one before it), starting at line i.
func (p *parser) newStmt(i int) *openStatement {
	p.closeStmt()
	st := p.stmtSlab.next()
	st.Line, st.EndLine = i+1, i+1
	if b := p.block; b != nil && b.next < len(b.parts) {
		pt := b.parts[b.next]
		st.SQL = strings.TrimSpace(b.text[pt.start:pt.end])
		st.copyOut = copiesOut(st.SQL)
		st.SQLLine = pt.line + 1
		st.part = b.next
		b.next++
		b.owner = st
	}
	p.addStmt(st)
	p.cur = st
	return st
}

func (p *parser) closeStmt() {
	if p.cur != nil {
		p.flushPending(p.cur)
		p.cur = nil
	}
}

// flushPending keeps the lines a statement printed in no format as a
// result of their own.
func (p *parser) flushPending(st *openStatement) {
	pend := st.pending
	st.pending = nil
	for len(pend) > 0 && strings.TrimSpace(pend[len(pend)-1].s) == "" {
		pend = pend[:len(pend)-1]
	}
	if len(pend) == 0 {
		return
	}
	r := Result{Line: pend[0].i + 1, EndLine: pend[len(pend)-1].i + 1, Lines: make([]string, len(pend))}
	for k, l := range pend {
		r.Lines[k] = l.s
	}
	st.addResult(r)
	st.EndLine = max(st.EndLine, r.EndLine)
}

// forResult is the statement a result at line p.i belongs to.
func (p *parser) forResult() *openStatement {
	if c := p.open(); c != nil && !c.failed && (len(c.Results) == 0 || p.timingOn()) {
		return c
	}
	return p.newStmt(p.i)
}

// blankLine keeps an empty line among the lines an open statement may
// have printed as rows, never as the first of them.
func (p *parser) blankLine(i int) {
	if c := p.accepting(); c != nil && len(c.pending) > 0 {
		c.pending = append(c.pending, pendLine{i, p.line(i)})
	}
}

// tagLine reads a command tag ("INSERT 0 3") as a result.
func (p *parser) tagLine(i int) {
	st := p.forResult()
	p.flushPending(st)
	st.addResult(Result{Line: i + 1, EndLine: i + 1, Tag: p.line(i)})
	st.EndLine = i + 1
}

// otherLine keeps a line of no known kind as maybe a row of the open
// statement's output, and warns of it when no statement can have one.
func (p *parser) otherLine(i int) {
	l := p.line(i)
	if s := p.drawnStyle(i); s != "" && !p.unaligned {
		p.refuseStyle(i, s)
		return
	}
	if c := p.accepting(); c != nil && len(c.pending) == 1 && !p.unaligned && borderZeroRule(c.pending[0].s, l) {
		p.refuseStyle(i, `\pset border 0`)
		return
	}
	if mayBeForeign(l) {
		p.lookForeign(i, l)
	}
	if c := p.accepting(); c != nil {
		c.pending = append(c.pending, pendLine{i, l})
	} else {
		p.warn(i, "not part of any statement, result or message")
	}
}

// copiesOut reports whether sql is a COPY ... TO STDOUT, whose output is
// the table's data as it is: lines that may read as anything psql prints.
func copiesOut(sql string) bool {
	sql = skipComments(sql)
	if len(sql) < 4 || !strings.EqualFold(sql[:4], "copy") {
		return false
	}
	f := strings.Fields(strings.ToLower(sql))
	for k := 1; k < len(f); k++ {
		if f[k-1] == "to" && strings.HasPrefix(f[k], "stdout") {
			return true
		}
	}
	return false
}

// copyFails reports whether line i is the error a COPY TO STDOUT failed
// with: "psql:script.sql:4: ERROR:  ...", psql naming the script's line,
// with the fields under it, then what ends a COPY's data (the Time: line,
// the next echo, the input's end). A notice during the data, or data that
// reads as an error, is data (found by outside testers: the error kept
// as a line of data; then a notice that took the rows after it).
func (p *parser) copyFails(i int) bool {
	m, ok := messageStart(p.line(i))
	if !ok || m.file == "" || m.field != "" || m.client || m.severity != "ERROR" && m.severity != "FATAL" && m.severity != "PANIC" {
		return false
	}
	j := i + 1
	for ; j < i+8 && p.has(j); j++ {
		l := p.line(j)
		if _, _, ok := fieldLabel(l); ok || strings.TrimSpace(l) == "^" {
			continue
		}
		if f, ok := messageStart(l); ok && f.field != "" {
			continue
		}
		break
	}
	if !p.has(j) {
		return true
	}
	if p.timing {
		_, ok := parseTime(p.line(j))
		return ok
	}
	return p.echoStarts(j)
}

// skipComments is sql after the comments and blanks it starts with
// ("/* lead */ copy ...", "-- why\ncopy ...").
func skipComments(sql string) string {
	for {
		for sql != "" && (sql[0] == ' ' || sql[0] == '\t' || sql[0] == '\r' || sql[0] == '\n') {
			sql = sql[1:] // strings.TrimLeft's set, without making it each call
		}
		switch {
		case strings.HasPrefix(sql, "--"):
			_, rest, ok := strings.Cut(sql, "\n")
			if !ok {
				return ""
			}
			sql = rest
		case strings.HasPrefix(sql, "/*"):
			_, rest, ok := strings.Cut(sql[2:], "*/")
			if !ok {
				return ""
			}
			sql = rest
		default:
			return sql
		}
	}
}

// copyEnds reports whether line i ends the data of the COPY TO STDOUT
// being read: with \timing on, the Time: line that the next statement's
// or meta-command's echo (or the input's end) follows, psql printing no
// row count or tag after the data; with it off, that echo itself; and a
// server message psql prefixed with the script's name and line.
func (p *parser) copyEnds(i int) bool {
	if p.copyFails(i) {
		return true
	}
	if !p.timing {
		// A command tag ("INSERT 0 1") starts no echo, though it reads
		// as a statement's first words.
		return (!isTag(p.line(i)) || p.tagStartsSQL(i)) && p.echoStarts(i)
	}
	if _, ok := parseTime(p.line(i)); !ok {
		return false
	}
	return !p.has(i+1) || p.echoStarts(i+1)
}

// echoStarts reports whether line i is the start of an echo: of a
// meta-command, of a statement that a semicolon ends within a few lines,
// or one of pgstudy's markers.
func (p *parser) echoStarts(i int) bool {
	l := p.line(i)
	return l != "" && (isMetaCommand(l) || strings.HasPrefix(l, markerPrefix) || startsSQL(l) && p.sqlAhead(i))
}

// isMetaCommand reports whether l is a psql meta-command as psql -a echoes
// it: a backslash and a command's name (\N, COPY's NULL, and \\ are
// not: found by an outside tester).
func isMetaCommand(l string) bool {
	if len(l) < 2 || l[0] != '\\' {
		return false
	}
	if l[1] == '!' || l[1] == '?' {
		return true
	}
	j := 1
	for j < len(l) && ('a' <= l[j] && l[j] <= 'z' || 'A' <= l[j] && l[j] <= 'Z' || '0' <= l[j] && l[j] <= '9' || l[j] == '_') {
		j++
	}
	if j < len(l) && l[j] != ' ' && l[j] != '\t' && l[j] != '+' {
		return false
	}
	name := l[1:j]
	return metaNames[name] || len(name) > 1 && name[0] == 'd' && strings.ToLower(name) == name || name == "dS"
}

// metaNames are psql's meta-commands (16 to 18) but the \d family.
var metaNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`a bind bind_named c connect C cd close close_prepared conninfo copy copyright
		crosstabview d e edit echo ef encoding endif endpipeline elif else errverbose ev f flush flushrequest g gx
		gdesc getenv getresults gexec gset h help H html i include if ir include_relative l list lo_export
		lo_import lo_list lo_unlink o out p print parse password prompt pset q quit qecho r reset restrict s set
		setenv sf sv sendpipeline startpipeline syncpipeline t T timing unrestrict unset w write warn watch x z`) {
		m[n] = true
	}
	return m
}()
