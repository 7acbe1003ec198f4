package psql

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The state machine behind Psql; the rules it follows are in psql.go. A
// line is read by what is open (an echo, a message, a meta-command), then
// by its kind (classify.go); the handlers of each kind are in the file of
// their topic: echo.go, statement.go, message.go, meta.go, time.go and
// the tables' files.

type parser struct {
	text   string
	source string
	stream string // Message.Stream for messages read here
	lines  []string
	offs   []int // the byte offset of each line in text
	hasCR  bool
	i      int

	stmts   []*openStatement
	metas   []*Meta
	top     []Message
	warns   []parse.Warning
	markers []Marker

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
		if len(l) > 4 && l[0] == '(' && l[len(l)-1] == ')' {
			p.footerLanguage(i, l)
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

// footerLanguage notes the language of line i, shaped as a row count
// footer: English, another, or none (a line of no footer's shape).
func (p *parser) footerLanguage(i int, l string) {
	if _, ok := footerCount(l); ok {
		p.english = true // what englishFooter matches, without a regexp
		return
	}
	switch {
	case !footerShape.MatchString(l):
	case englishFooter.MatchString(l):
		p.english = true
	case p.foreign == nil:
		p.foreign = &parse.Warning{Source: p.source, Line: i + 1, Text: l}
	}
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

// step reads line p.i and moves on. An open echo, message or
// meta-command takes the lines that go on with it first; any other line
// goes by its kind, a table's to the end of the table.
func (p *parser) step() {
	i := p.i
	if strings.HasPrefix(p.lines[i], markerPrefix) {
		if m, ok := parseMarker(p.lines[i]); ok {
			p.marker(i, m)
			p.i++
			return
		}
	}
	if p.echo != nil && p.echoTakes(i) {
		p.i++
		return
	}
	if p.msg != nil && p.msgLine(i) {
		return
	}
	k := p.kind(i)
	if p.msg != nil {
		if p.msgGoesOn(i, k) {
			p.i++
			return
		}
		p.closeMsg()
	}
	if p.meta != nil && p.metaTakes(i, k) {
		p.i++
		return
	}
	switch k {
	case lineFooter:
		p.footer(i)
		return
	case lineRecord:
		p.expandedTable(i)
		return
	case lineTable:
		p.alignedTable(i)
		return
	case lineBlank:
		p.blankLine(i)
	case lineTime:
		p.timeLine(i)
	case lineMessage:
		p.startMsg(i)
	case lineField:
		p.warn(i, "message field with no message before it")
	case lineTag:
		p.tagLine(i)
	case lineMetaResp:
		p.metaResp(i)
	case lineMetaEcho:
		p.metaEcho(i)
	case lineSQL:
		p.startEcho(i)
	case lineHidden:
		p.hiddenQuery()
	case lineHiddenEnd:
		p.hiddenQueryEnd(i)
	default:
		p.otherLine(i)
	}
	p.i++
}

// output is what was read.
func (p *parser) output() *Output {
	out := &Output{Statements: make([]Statement, len(p.stmts)), Messages: p.top, Markers: p.markers}
	for k, st := range p.stmts {
		out.Statements[k] = st.Statement
	}
	for _, m := range p.metas {
		out.Meta = append(out.Meta, *m)
	}
	return out
}
