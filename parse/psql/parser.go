package psql

import (
	"math"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The state machine behind Psql; the rules it follows are in psql.go.

type lineKind uint8

const (
	lineUnknown   lineKind = iota
	lineBlank              // empty or white space
	lineTime               // "Time: 1.234 ms"
	lineMessage            // "ERROR:  ...", "psql:f:3: NOTICE:  ...", psql's own
	lineField              // "DETAIL:  ...", "LINE 1: ..."
	lineFooter             // "(3 rows)"
	lineRecord             // "-[ RECORD 1 ]---"
	lineTable              // an aligned table's header (or title) line
	lineTag                // "SET", "INSERT 0 3"
	lineMetaResp           // "Timing is on."
	lineMetaEcho           // "\timing on", echoed by psql -a
	lineSQL                // the first line of an echoed statement, or a comment
	lineHidden             // "********* QUERY **********" (\set ECHO_HIDDEN)
	lineHiddenEnd          // the line of stars after the query
)

const (
	hiddenStart = "********* QUERY **********"
	hiddenEnd   = "**************************"
)

// openStatement is a statement being read.
type openStatement struct {
	Statement
	closed  bool  // its Time: line was read
	failed  bool  // it has an error
	pending []int // lines after its echo that may be rows of a result
	part    int   // its part of the echo resultBlock hands out
}

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

// openMessage is a message being read.
type openMessage struct {
	Message
	stmt  *openStatement
	meta  *Meta
	first int
	last  int
	// The part receiving continuation lines: its name ("" is the text,
	// "-" none) and the offset in the input where its text starts.
	part    string
	partOff int
}

type parser struct {
	text   string
	source string
	stream string // Message.Stream for messages read here
	lines  []string
	offs   []int // the byte offset of each line in text
	hasCR  bool
	i      int

	stmts []*openStatement
	metas []*Meta
	top   []Message
	warns []parse.Warning

	cur   *openStatement
	echo  *echo
	lex   lexer
	block *resultBlock
	meta  *Meta // an echoed meta-command taking the lines after it
	msg   *openMessage

	msgsOnly  bool   // reading stderr: messages tie to nothing yet
	hidden    bool   // the next echo is a meta-command's query
	timing    bool   // \timing is on
	unaligned bool   // \pset format unaligned was seen last
	expanded  bool   // \x is on
	sep       string // the unaligned field separator

	cells   []string
	marks   []byte
	scratch []int

	foreign       *parse.Warning // the first line in another language
	foreignServer bool           // ... and it is a server's label
	english       bool           // psql's own lines are English
}

func newPsqlParser(text, source, stream string) *parser {
	p := &parser{text: text, source: source, stream: stream, sep: "|"}
	n := strings.Count(text, "\n") + 1
	p.lines = make([]string, 0, n)
	p.offs = make([]int, 0, n)
	for off := 0; off < len(text); {
		j := strings.IndexByte(text[off:], '\n')
		end := len(text)
		if j >= 0 {
			end = off + j
		}
		l := text[off:end]
		if strings.HasSuffix(l, "\r") {
			l = l[:len(l)-1]
			p.hasCR = true
		}
		p.lines = append(p.lines, l)
		p.offs = append(p.offs, off)
		off = end + 1
	}
	return p
}

func (p *parser) warn(i int, msg string) {
	p.warns = append(p.warns, parse.Warning{Source: p.source, Line: i + 1, Text: p.lines[i], Msg: msg})
	p.lookForeign(i)
}

// span is the input from offset a to the end of line last, lines joined
// with "\n".
func (p *parser) span(a, last int) string {
	b := p.offs[last] + len(p.lines[last])
	if b < a {
		return ""
	}
	s := p.text[a:b]
	if p.hasCR {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// join is lines first to last joined with "\n".
func (p *parser) join(first, last int) string {
	return p.span(p.offs[first], last)
}

func (p *parser) run() {
	// psql's row count footer in another language ("(1 fila)") would be
	// read as a row of its table: found here, by its shape, at no cost to
	// the lines that cannot be one.
	for i, l := range p.lines {
		if len(l) > 4 && l[0] == '(' && l[len(l)-1] == ')' && footerShape.MatchString(l) {
			if englishFooter.MatchString(l) {
				p.english = true
			} else if p.foreign == nil {
				p.foreign = &parse.Warning{Source: p.source, Line: i + 1, Text: l}
			}
		}
		if l == "Timing is on." || l == "Timing is off." || strings.HasPrefix(l, "Time: ") && englishTime(l) {
			p.english = true
		}
	}
	// Whether \timing is on from the start (psql -q says nothing): as the
	// first line about it says.
	for _, l := range p.lines {
		if !strings.HasPrefix(l, "Tim") {
			continue
		}
		if _, ok := parseTime(l); ok || l == "Timing is on." {
			p.timing = true
			break
		}
		if l == "Timing is off." {
			break
		}
	}
	for p.i < len(p.lines) {
		p.step()
	}
	p.finish()
}

func (p *parser) finish() {
	p.closeMsg()
	if p.echo != nil {
		p.endEcho()
	}
	p.closeStmt()
	p.closeMeta()
	p.flushBlock()
}

// step reads line p.i and moves on.
func (p *parser) step() {
	i := p.i
	line := p.lines[i]

	if e := p.echo; e != nil {
		switch {
		case !e.sql && p.lex.topLevel() && !isComment(line) && !startsSQL(line):
			// Comments standing alone end here.
			p.endEcho()
		case e.sql && p.lex.topLevel() && p.interrupts(i):
			// psql sent the statement without a semicolon (\g): its
			// output starts here.
			p.endEcho()
		default:
			p.echoLine(i)
			p.i++
			return
		}
	}

	if p.msg != nil && p.msgLine(i) {
		return
	}
	k := p.kind(i)
	if m := p.msg; m != nil {
		if m.part != "-" && (k == lineUnknown || k == lineBlank || k == lineSQL && !p.sqlAhead(i)) {
			m.last = i // a continuation line
			p.i++
			return
		}
		p.closeMsg()
	}
	if p.meta != nil {
		switch k {
		case lineSQL, lineMetaEcho, lineTime:
			p.closeMeta()
		case lineMessage:
		case lineMetaResp:
			p.meta.Response = append(p.meta.Response, line)
			p.meta.EndLine = i + 1
			p.setting(line)
			p.i++
			return
		default:
			p.meta.Output = append(p.meta.Output, line)
			p.meta.EndLine = i + 1
			p.i++
			return
		}
	}

	switch k {
	case lineBlank:
		if c := p.accepting(); c != nil && len(c.pending) > 0 {
			c.pending = append(c.pending, i)
		}
		p.i++
	case lineTime:
		p.timeLine(i)
		p.i++
	case lineMessage:
		p.startMsg(i)
		p.i++
	case lineField:
		p.warn(i, "message field with no message before it")
		p.i++
	case lineFooter:
		p.footer(i)
	case lineRecord:
		p.expandedTable(i)
	case lineTable:
		p.alignedTable(i)
	case lineTag:
		st := p.forResult()
		p.flushPending(st)
		st.Results = append(st.Results, Result{Line: i + 1, EndLine: i + 1, Tag: line})
		st.EndLine = i + 1
		p.i++
	case lineMetaResp:
		p.closeStmt()
		p.flushBlock()
		p.metas = append(p.metas, &Meta{Line: i + 1, EndLine: i + 1, Response: []string{line}})
		p.setting(line)
		p.i++
	case lineMetaEcho:
		if c := p.accepting(); c != nil {
			// psql -a echoes no meta-command between a statement and
			// its output: this is output (COPY data, a row).
			c.pending = append(c.pending, i)
			p.i++
			return
		}
		p.closeStmt()
		p.flushBlock()
		p.meta = &Meta{Line: i + 1, EndLine: i + 1, Command: line}
		p.metas = append(p.metas, p.meta)
		p.i++
	case lineSQL:
		p.closeStmt()
		p.flushBlock()
		p.echo = &echo{first: i, last: i, hidden: p.hidden}
		p.hidden = false
		p.lex.reset()
		p.echoLine(i)
		p.i++
	case lineHidden:
		// The query a meta-command sends (\d), echoed between two lines
		// of stars.
		p.closeStmt()
		p.flushBlock()
		p.hidden = true
		p.i++
	case lineHiddenEnd:
		if c := p.accepting(); c != nil && c.Hidden && len(c.pending) == 0 {
			c.EndLine = i + 1
		} else {
			p.warn(i, "not part of any statement, result or message")
		}
		p.i++
	default:
		if p.foreign == nil && mayBeForeign(p.lines[i]) {
			p.lookForeign(i)
		}
		if c := p.accepting(); c != nil {
			c.pending = append(c.pending, i)
		} else {
			p.warn(i, "not part of any statement, result or message")
		}
		p.i++
	}
}

// kind classifies line i outside an echo.
func (p *parser) kind(i int) lineKind {
	l := p.lines[i]
	if l == "" {
		return lineBlank
	}
	switch l[0] {
	case ' ', '\t':
		if strings.TrimLeft(l, " \t") == "" {
			return lineBlank
		}
	case 'T':
		if _, ok := parseTime(l); ok {
			return lineTime
		}
	case '(':
		if _, ok := footerCount(l); ok {
			return lineFooter
		}
	case '-':
		if isRecord(l) {
			return lineRecord
		}
	case '*':
		switch l {
		case hiddenStart:
			return lineHidden
		case hiddenEnd:
			return lineHiddenEnd
		}
	}
	if _, ok := messageStart(l); ok {
		return lineMessage
	}
	if _, _, ok := fieldLabel(l); ok {
		return lineField
	}
	if _, _, ok := quotedLine(l); ok {
		return lineField
	}
	if _, _, ok := p.tableAt(i, true); ok {
		return lineTable
	}
	if isTag(l) {
		return lineTag
	}
	if isMetaResp(l) {
		return lineMetaResp
	}
	if l[0] == '\\' {
		return lineMetaEcho
	}
	if startsSQL(l) {
		return lineSQL
	}
	return lineUnknown
}

// interrupts reports whether line i, met inside an echo that no semicolon
// has ended, is the statement's output rather than more of its text.
func (p *parser) interrupts(i int) bool {
	l := p.lines[i]
	if l == "" {
		return false
	}
	if _, ok := parseTime(l); ok {
		return true
	}
	if _, ok := footerCount(l); ok {
		return true
	}
	if isRecord(l) || isMetaResp(l) || l == hiddenEnd {
		return true
	}
	if m, ok := messageStart(l); ok && !m.client {
		return true
	}
	if _, _, ok := p.tableAt(i, false); ok {
		return true
	}
	// A line like "DO" or "BEGIN" can be part of a statement; it is a tag
	// when what follows it is not.
	if isTag(l) {
		if i+1 == len(p.lines) {
			return true
		}
		switch p.kind(i + 1) {
		case lineUnknown, lineTag:
			return false
		}
		return true
	}
	return false
}

// sqlAhead reports whether an echoed statement that starts on line i ends
// with a semicolon within a few lines: an echo, not the continuation of a
// message.
func (p *parser) sqlAhead(i int) bool {
	var x lexer
	var cuts []sqlCut
	for j := i; j < len(p.lines) && j < i+20; j++ {
		var done bool
		cuts, done = x.scan(p.lines[j], cuts[:0])
		if done {
			return true
		}
	}
	return false
}

// echoLine adds line i to the open echo.
func (p *parser) echoLine(i int) {
	e := p.echo
	if i > e.first {
		e.size++ // the "\n" before it
	}
	base := len(e.cuts)
	var done bool
	e.cuts, done = p.lex.scan(p.lines[i], e.cuts)
	for k := base; k < len(e.cuts); k++ {
		e.cuts[k].off += e.size
		if e.cuts[k].sql {
			e.sql = true
		}
	}
	if p.lex.sql {
		e.sql = true
	}
	e.size += len(p.lines[i])
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
	text := p.join(e.first, e.last)
	var parts []part
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
		p.metas = append(p.metas, &Meta{Line: e.first + 1, EndLine: e.last + 1, Comment: text})
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
	st := &openStatement{}
	st.Line, st.EndLine = e.first+1, e.last+1
	st.SQL = strings.TrimSpace(text[parts[0].start:parts[0].end])
	st.SQLLine = e.first + 1
	st.Hidden = e.hidden
	p.stmts = append(p.stmts, st)
	p.cur = st
	if len(parts) > 1 {
		p.block = &resultBlock{text: text, parts: parts, next: 1, owner: st}
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
	st := &openStatement{}
	st.Line, st.EndLine = i+1, i+1
	if b := p.block; b != nil && b.next < len(b.parts) {
		pt := b.parts[b.next]
		st.SQL = strings.TrimSpace(b.text[pt.start:pt.end])
		st.SQLLine = pt.line + 1
		st.part = b.next
		b.next++
		b.owner = st
	}
	p.stmts = append(p.stmts, st)
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
	for len(pend) > 0 && strings.TrimSpace(p.lines[pend[len(pend)-1]]) == "" {
		pend = pend[:len(pend)-1]
	}
	if len(pend) == 0 {
		return
	}
	r := Result{Line: pend[0] + 1, EndLine: pend[len(pend)-1] + 1, Lines: make([]string, len(pend))}
	for k, j := range pend {
		r.Lines[k] = p.lines[j]
	}
	st.Results = append(st.Results, r)
	st.EndLine = max(st.EndLine, r.EndLine)
}

// forResult is the statement a result at line p.i belongs to.
func (p *parser) forResult() *openStatement {
	if c := p.open(); c != nil && !c.failed && (len(c.Results) == 0 || p.timing) {
		return c
	}
	return p.newStmt(p.i)
}

func (p *parser) closeMeta() {
	if m := p.meta; m != nil {
		for len(m.Output) > 0 && strings.TrimSpace(m.Output[len(m.Output)-1]) == "" {
			m.Output = m.Output[:len(m.Output)-1]
		}
		p.meta = nil
	}
}

// timeLine reads a Time: line, which ends its statement.
func (p *parser) timeLine(i int) {
	t, _ := parseTime(p.lines[i])
	if t.paren != "" && !t.agree {
		p.warn(i, "Time: the milliseconds and the duration in parentheses disagree")
	}
	st := p.open()
	if st == nil {
		st = p.newStmt(i)
	}
	p.flushPending(st)
	ms := t.ms
	st.TimeMs, st.TimeLine, st.EndLine = &ms, i+1, i+1
	st.closed = true
	p.cur = nil
}

// setting follows the answers to meta-commands that change how later
// output reads.
func (p *parser) setting(line string) {
	switch {
	case line == "Timing is on.":
		p.timing = true
	case line == "Timing is off.":
		p.timing = false
	case strings.HasPrefix(line, "Output format is "):
		p.unaligned = line == "Output format is unaligned."
	case strings.HasPrefix(line, "Expanded display is "):
		p.expanded = line == "Expanded display is on."
	case strings.HasPrefix(line, `Field separator is "`) && strings.HasSuffix(line, `".`):
		p.sep = line[len(`Field separator is "`) : len(line)-2]
	}
}

// metaResps are the beginnings of psql's answers to meta-commands.
var metaResps = []string{
	"Timing is ", "Output format is ", "Expanded display is ", "Border style is ", "Target width is ",
	"Field separator ", "Record separator is ", "Default footer is ", "Line style is ", "Null display is ",
	"Locale-adjusted numeric output is ", "Pager ", "Table attributes ", "Title is ", "Tuples only is ",
	"Unicode border line style is ", "Unicode column line style is ", "Unicode header line style is ",
	"Expanded header width is ", "You are connected to ", "You are now connected to ",
}

func isMetaResp(l string) bool {
	if len(l) < 10 || l[len(l)-1] != '.' {
		return false
	}
	switch l[0] {
	case 'B', 'D', 'E', 'F', 'L', 'N', 'O', 'P', 'R', 'T', 'U', 'Y':
	default:
		return false
	}
	for _, r := range metaResps {
		if strings.HasPrefix(l, r) {
			return true
		}
	}
	return false
}

// tagWords are the first words of PostgreSQL's command tags.
var tagWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`ALTER ANALYZE BEGIN CALL CHECKPOINT CLOSE CLUSTER COMMENT COMMIT COPY
		CREATE DEALLOCATE DECLARE DELETE DISCARD DO DROP EXPLAIN FETCH GRANT IMPORT INSERT LISTEN LOAD LOCK
		MERGE MOVE NOTIFY PREPARE REASSIGN REFRESH REINDEX RELEASE RESET REVOKE ROLLBACK SAVEPOINT SECURITY
		SELECT SET SHOW START TRUNCATE UNLISTEN UPDATE VACUUM`) {
		m[w] = true
	}
	return m
}()

// isTag reports whether l is a command tag: upper-case words, the
// first a command's, then at most two counts ("INSERT 0 3").
func isTag(l string) bool {
	if len(l) < 2 || l[0] < 'A' || l[0] > 'Z' {
		return false
	}
	j := 0
	for j < len(l) && 'A' <= l[j] && l[j] <= 'Z' {
		j++
	}
	if !tagWords[l[:j]] {
		return false
	}
	words, nums := 1, 0
	for j < len(l) {
		if l[j] != ' ' || j+1 == len(l) {
			return false
		}
		j++
		k := j
		switch c := l[j]; {
		case 'A' <= c && c <= 'Z':
			if nums > 0 {
				return false
			}
			for j < len(l) && 'A' <= l[j] && l[j] <= 'Z' {
				j++
			}
			words++
		case '0' <= c && c <= '9':
			for j < len(l) && '0' <= l[j] && l[j] <= '9' {
				j++
			}
			nums++
		}
		if j == k || words > 5 || nums > 2 {
			return false
		}
	}
	return true
}

// timeValue is a parsed Time: line.
type timeValue struct {
	ms    float64
	paren string // "01:01.235" when printed
	agree bool   // the two durations agree (to the millisecond)
}

// parseTime reads "Time: 12.345 ms" and "Time: 61234.567 ms (01:01.235)";
// psql adds the parenthesis from a second on, as mm:ss.sss, hh:mm:ss.sss
// or "N d hh:mm:ss.sss".
func parseTime(l string) (timeValue, bool) {
	var t timeValue
	if !strings.HasPrefix(l, "Time: ") {
		return t, false
	}
	s := l[len("Time: "):]
	sp := strings.IndexByte(s, ' ')
	if sp <= 0 || !strings.HasPrefix(s[sp:], " ms") {
		return t, false
	}
	num := s[:sp]
	ms, err := strconv.ParseFloat(num, 64)
	if err != nil || !decimal(num) {
		return t, false
	}
	t.ms = ms
	rest := s[sp+3:]
	if rest == "" {
		return t, true
	}
	if len(rest) < 4 || rest[0] != ' ' || rest[1] != '(' || rest[len(rest)-1] != ')' {
		return t, false
	}
	t.paren = rest[2 : len(rest)-1]
	d, ok := clock(t.paren)
	if !ok {
		return t, false
	}
	t.agree = math.Abs(d-ms) <= 1
	return t, true
}

// decimal reports whether s is digits with at most one ".", as psql
// prints durations.
func decimal(s string) bool {
	dot := false
	for i := 0; i < len(s); i++ {
		switch {
		case '0' <= s[i] && s[i] <= '9':
		case s[i] == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return s != "" && s != "."
}

// clock reads psql's "[N d ][hh:]mm:ss.sss" into milliseconds.
func clock(s string) (float64, bool) {
	var days float64
	if i := strings.Index(s, " d "); i >= 0 {
		d, err := strconv.ParseFloat(s[:i], 64)
		if err != nil || !decimal(s[:i]) {
			return 0, false
		}
		days, s = d, s[i+3:]
	}
	f := strings.Split(s, ":")
	if len(f) < 2 || len(f) > 3 || days > 0 && len(f) != 3 {
		return 0, false
	}
	var v [3]float64
	for k, x := range f {
		if !decimal(x) {
			return 0, false
		}
		n, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return 0, false
		}
		v[3-len(f)+k] = n
	}
	return ((days*24+v[0])*60+v[1])*60000 + v[2]*1000, true
}

// output is what was read.
func (p *parser) output() *Output {
	out := &Output{Statements: make([]Statement, len(p.stmts)), Messages: p.top}
	for k, st := range p.stmts {
		out.Statements[k] = st.Statement
	}
	for _, m := range p.metas {
		out.Meta = append(out.Meta, *m)
	}
	return out
}
