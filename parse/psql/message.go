package psql

import (
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/psqlloc"
)

// severities are the severities the server sends, as psql prints them.
var severities = []string{"ERROR", "FATAL", "PANIC", "WARNING", "NOTICE", "INFO", "LOG", "DEBUG"}

// fieldLabels are the lines that go on a message, with the name they are
// kept under. "LINE n: " is read apart.
var fieldLabels = []string{"DETAIL", "HINT", "QUERY", "CONTEXT", "LOCATION", "STATEMENT",
	"SCHEMA NAME", "TABLE NAME", "COLUMN NAME", "DATATYPE NAME", "CONSTRAINT NAME"}

// maxLabel is the length of the longest of fieldLabels.
const maxLabel = len("CONSTRAINT NAME")

// clientStarts are psql's own messages that carry no severity.
var clientStarts = []string{
	"invalid command \\",
	"server closed the connection unexpectedly",
	"connection to server was lost",
	"The connection to the server was lost.",
	"no connection to the server",
	"You are currently not connected to a database.",
}

// severityLabel reads "SEVERITY:  text" (and "SEVERITY:  SQLSTATE: text"),
// returning the byte offset where the text starts.
func severityLabel(s string) (sev, state string, text int, ok bool) {
	if len(s) < 5 {
		return "", "", 0, false
	}
	v := severityAt[s[0]]
	if v == "" || !strings.HasPrefix(s, v) || !strings.HasPrefix(s[len(v):], ":  ") {
		return "", "", 0, false
	}
	text = len(v) + 3
	// VERBOSITY verbose: "ERROR:  42P01: relation ...".
	if r := s[text:]; len(r) >= 7 && r[5] == ':' && r[6] == ' ' && isSQLState(r[:5]) {
		return v, r[:5], text + 7, true
	}
	return v, "", text, true
}

// severityAt is the severity a line may start with, by its first byte:
// no two severities start with the same letter (TestSeverityAt), so a
// line is compared with one, not eight.
var severityAt = func() (at [256]string) {
	for _, v := range severities {
		at[v[0]] = v
	}
	return at
}()

// clientFirst are the first bytes of clientStarts; msgFirst those a
// message's first line may start with: those, a severity's, "psql:" and
// "psql: error: "'s, and a meta-command's ("\\pset: unknown option").
var clientFirst, msgFirst = func() (client, msg [256]bool) {
	for _, s := range clientStarts {
		client[s[0]] = true
	}
	msg = client
	for _, v := range severities {
		msg[v[0]] = true
	}
	msg['p'], msg['\\'] = true, true
	return client, msg
}()

func isSQLState(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'A' <= s[i] && s[i] <= 'Z') {
			return false
		}
	}
	return true
}

// fieldLabel reads a message field line, "DETAIL:  text", returning its
// name and where its text starts; psql's own "detail: " and "hint: " too.
func fieldLabel(s string) (name string, text int, ok bool) {
	if len(s) < 6 {
		return "", 0, false
	}
	switch s[0] {
	case 'C', 'D', 'H', 'L', 'Q', 'S', 'T':
		// A label has no ':': the line's first is where it would end.
		c := strings.IndexByte(s[:min(len(s), maxLabel+1)], ':')
		if c < 0 || !strings.HasPrefix(s[c:], ":  ") {
			return "", 0, false
		}
		for _, f := range fieldLabels {
			if s[:c] == f {
				return f, c + 3, true
			}
		}
	case 'd':
		if strings.HasPrefix(s, "detail: ") {
			return "DETAIL", len("detail: "), true
		}
	case 'h':
		if strings.HasPrefix(s, "hint: ") {
			return "HINT", len("hint: "), true
		}
	}
	return "", 0, false
}

// quotedLine reads "LINE n: text", psql's quote of the statement line an
// error points at.
func quotedLine(s string) (n int, text int, ok bool) {
	if !strings.HasPrefix(s, "LINE ") {
		return 0, 0, false
	}
	j := len("LINE ")
	for j < len(s) && '0' <= s[j] && s[j] <= '9' {
		j++
	}
	if j == len("LINE ") || !strings.HasPrefix(s[j:], ": ") {
		return 0, 0, false
	}
	n, err := strconv.Atoi(s[len("LINE "):j])
	if err != nil {
		return 0, 0, false
	}
	return n, j + 2, true
}

// caret reads the line under "LINE n:": spaces, then "^". It returns
// the caret's display column.
func caret(s string) (int, bool) {
	if len(s) == 0 || s[len(s)-1] != '^' {
		return 0, false
	}
	for i := 0; i < len(s)-1; i++ {
		if s[i] != ' ' {
			return 0, false
		}
	}
	return len(s) - 1, true
}

// messageStart reads the first line of a message.
type msgStart struct {
	file     string
	input    int
	severity string
	state    string
	text     int // where the text starts in the line
	client   bool
	field    string // a prefixed field line ("psql:f:3: STATEMENT:  ...")
}

func messageStart(line string) (msgStart, bool) {
	if line == "" || !msgFirst[line[0]] {
		return msgStart{}, false
	}
	var m msgStart
	file, n, rest, prefixed := psqlloc.Cut(line)
	off := len(line) - len(rest)
	if prefixed {
		m.file, m.input = file, n
	}
	if sev, state, t, ok := severityLabel(rest); ok {
		m.severity, m.state, m.text = sev, state, off+t
		return m, true
	}
	if prefixed {
		if name, t, ok := fieldLabel(rest); ok && name == "STATEMENT" {
			m.field, m.text = name, off+t
			return m, true
		}
	}
	m.client = true
	if !prefixed && strings.HasPrefix(line, "psql: ") {
		prefixed = true
		rest = line[len("psql: "):]
		off = len("psql: ")
	}
	if prefixed {
		for _, sev := range []string{"error", "warning", "fatal"} {
			if strings.HasPrefix(rest, sev+": ") {
				m.severity, m.text = sev, off+len(sev)+2
				return m, true
			}
		}
		m.text = off
		return m, true
	}
	if line != "" && clientFirst[line[0]] {
		for _, s := range clientStarts {
			if strings.HasPrefix(line, s) {
				return m, true
			}
		}
	}
	// "\pset: unknown option: x", "\timing: extra argument ...".
	if len(line) > 2 && line[0] == '\\' {
		j := 1
		for j < len(line) && ('a' <= line[j] && line[j] <= 'z' || line[j] == '!' || line[j] == '?') {
			j++
		}
		if j > 1 && strings.HasPrefix(line[j:], ": ") {
			return m, true
		}
	}
	return m, false
}

// connLost reports whether a psql message says the connection is
// gone, which concerns the statement that was running.
func connLost(text string) bool {
	return strings.HasPrefix(text, "server closed the connection") || strings.HasPrefix(text, "connection to server was lost")
}

// openMessage is a message being read.
type openMessage struct {
	Message
	stmt  *openStatement
	meta  *Meta
	first int
	last  int
	// The part receiving continuation lines: its name ("" is the text,
	// "-" none) and where its text starts: a line, and an offset in it.
	part     string
	partLine int
	partOff  int
}

// msgGoesOn reports whether line i, of kind k, goes on with the open
// message's text or field: a line of no kind, an empty one, or one that
// looks like SQL but is no echo (no semicolon ends it soon).
func (p *parser) msgGoesOn(i int, k lineKind) bool {
	m := p.msg
	if m.part != "-" && (k == lineUnknown || k == lineBlank || k == lineSQL && !p.sqlAhead(i)) {
		m.last = i // a continuation line
		return true
	}
	return false
}

// forMessage is the statement a server message at line p.i is about:
// notices come before their statement's result, so a message after a
// result starts the next statement unless \timing is on (the statement
// then ends at its Time: line).
func (p *parser) forMessage() *openStatement {
	if c := p.open(); c != nil && (len(c.Results) == 0 && !c.failed || p.timingOn()) {
		return c
	}
	return p.newStmt(p.i)
}

// startMsg opens the message that starts on line i.
func (p *parser) startMsg(i int) {
	l := p.line(i)
	var s msgStart
	if sn := p.seenAt(i, lineMessage); sn != nil {
		s = sn.msg
	} else {
		s, _ = messageStart(l)
	}
	if s.field != "" {
		p.warn(i, "message field with no message before it")
		return
	}
	// One message is read at a time, in the parser's room for it: the
	// message is copied where it goes when it ends.
	p.msgBuf = openMessage{first: i, last: i, partLine: i, partOff: s.text}
	m := &p.msgBuf
	m.Stream, m.File, m.InputLine = p.stream, s.file, s.input
	m.Severity, m.SQLState = s.severity, s.state
	switch {
	case p.msgsOnly:
	case p.meta != nil:
		m.meta = p.meta
	case s.client:
		if connLost(l[s.text:]) {
			m.stmt = p.open()
		}
	default:
		m.stmt = p.forMessage()
		if m.isError() {
			m.stmt.failed = true
		}
	}
	p.msg = m
}

// msgLine reads line i as a field of the open message ("DETAIL:  ...",
// "LINE 2: ..." and its caret), reporting whether it was one.
func (p *parser) msgLine(i int) bool {
	m := p.msg
	l := p.line(i)
	name, t, ok := fieldLabel(l)
	if !ok {
		// \set ECHO errors: "psql:f:3: STATEMENT:  select ...".
		if _, _, rest, pre := psqlloc.Cut(l); pre {
			if n, tt, ok2 := fieldLabel(rest); ok2 && n == "STATEMENT" {
				name, t, ok = n, len(l)-len(rest)+tt, true
			}
		}
	}
	if ok {
		p.endPart()
		m.part, m.partLine, m.partOff, m.last = name, i, t, i
		p.i++
		return true
	}
	n, t, ok := quotedLine(l)
	if !ok {
		return false
	}
	p.endPart()
	pos := &Position{Line: n, Text: l[t:]}
	m.Position, m.part, m.last = pos, "-", i
	p.i++
	if p.has(p.i) {
		if c, ok := caret(p.line(p.i)); ok {
			// The caret's column, counted in characters of the quoted text.
			target := c - width(l[:t])
			col, k := 0, 0
			for _, r := range pos.Text {
				if col >= target {
					break
				}
				col += runeWidth(r)
				k++
			}
			if target >= 0 && col == target {
				pos.Column = k + 1
			}
			m.last = p.i
			p.i++
		}
	}
	return true
}

// endPart keeps the text of the open message's part that has been read.
func (p *parser) endPart() {
	m := p.msg
	if m.part == "-" {
		return
	}
	s := ""
	if m.last >= m.partLine {
		s = p.w.join(m.partLine, m.last)[m.partOff:]
	}
	set := func(f *string) {
		if *f != "" {
			*f += "\n" + s
		} else {
			*f = s
		}
	}
	switch m.part {
	case "":
		set(&m.Text)
	case "DETAIL":
		set(&m.Detail)
	case "HINT":
		set(&m.Hint)
	case "QUERY":
		set(&m.Query)
	case "CONTEXT":
		set(&m.Context)
	case "LOCATION":
		set(&m.Location)
	case "STATEMENT":
		set(&m.Statement)
	default:
		if m.Fields == nil {
			m.Fields = map[string]string{}
		}
		v := m.Fields[m.part]
		set(&v)
		m.Fields[m.part] = v
	}
	m.part = "-"
}

// closeMsg ends the open message and gives it to its statement.
func (p *parser) closeMsg() {
	m := p.msg
	if m == nil {
		return
	}
	for m.last > m.first && strings.TrimSpace(p.line(m.last)) == "" {
		m.last--
	}
	p.endPart()
	p.msg = nil
	m.Line, m.EndLine = m.first+1, m.last+1
	m.Raw = p.w.join(m.first, m.last)
	switch {
	case m.meta != nil:
		p.gather(&m.meta.Messages, &m.Message)
		m.meta.EndLine = max(m.meta.EndLine, m.EndLine)
	case m.stmt != nil:
		p.gather(&m.stmt.Messages, &m.Message)
		m.stmt.EndLine = max(m.stmt.EndLine, m.EndLine)
	default:
		msg := m.Message
		p.addMessage(&msg)
	}
}

// gathered is where the messages of the last statement or meta-command
// given one are gathered: its Messages (owner) are part of buf until
// sealed, when they are copied out at their number. Appended where they
// go, a statement's messages were copied at each growth of the slice,
// 232 bytes each, and were most of the bytes a session allocated.
type gathered struct {
	owner *[]Message
	buf   []Message
}

// gather appends m to *to, the messages of a statement or a
// meta-command, in the room for them.
func (p *parser) gather(to *[]Message, m *Message) {
	g := &p.gathered
	if g.owner != to {
		p.seal()
		g.buf, g.owner = append(g.buf[:0], *to...), to
	}
	g.buf = append(g.buf, *m)
	*to = g.buf
}

// seal gives the messages gathered their own slice, before their record
// is handed out, or the room is needed for another's.
func (p *parser) seal() {
	g := &p.gathered
	if g.owner == nil {
		return
	}
	*g.owner = append([]Message(nil), g.buf...)
	clear(g.buf) // the room keeps no part of the input
	g.owner = nil
}

// messagesOnly reads the input as psql's stderr: messages, their fields
// and continuation lines. It returns the input's error, or a refusal.
func (p *parser) messagesOnly() ([]Message, error) {
	var msgs []Message
	p.emit = func(r Record) bool { msgs = append(msgs, *r.Message); return true }
	for p.has(p.i) && p.err == nil {
		p.w.release(p.keep())
		i := p.i
		if p.msg != nil && p.msgLine(i) {
			continue
		}
		l := p.line(i)
		if _, ok := messageStart(l); ok {
			p.closeMsg()
			p.startMsg(i)
		} else if p.msg != nil && p.msg.part != "-" {
			p.msg.last = i
		} else {
			p.closeMsg()
			if strings.TrimSpace(l) != "" {
				p.warn(i, "not part of any message")
			}
		}
		p.handOut()
		p.i++
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := p.w.err(p.source); err != nil {
		return nil, err
	}
	p.closeMsg()
	p.handOut()
	return msgs, nil
}

// server reports whether the message came from the server (its severity
// in upper case), not from psql.
func (m *Message) server() bool {
	return m.Severity != "" && 'A' <= m.Severity[0] && m.Severity[0] <= 'Z'
}

// attachStreamMessages gives the messages read from stderr to the
// statements read from stdout, by the rules in Streams' comment.
func attachStreamMessages(out *Output, msgs []Message) {
	sts := out.Statements
	if len(sts) == 0 {
		out.Messages = append(out.Messages, msgs...)
		return
	}
	var failed []*Statement
	for k := range sts {
		if len(sts[k].Results) == 0 && sts[k].Err() == nil {
			failed = append(failed, &sts[k])
		}
	}
	last := &sts[len(sts)-1]
	to := make([]*Statement, len(msgs))
	k := 0
	for j := range msgs {
		if msgs[j].isError() {
			to[j] = last
			if k < len(failed) {
				to[j] = failed[k]
				k++
			}
		}
	}
	next := last
	for j := len(msgs) - 1; j >= 0; j-- {
		switch {
		case !msgs[j].server():
		case msgs[j].isError():
			next = to[j]
		default:
			to[j] = next
		}
	}
	for j, m := range msgs {
		if to[j] == nil {
			out.Messages = append(out.Messages, m)
		} else {
			to[j].Messages = append(to[j].Messages, m)
		}
	}
}
