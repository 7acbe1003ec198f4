package psql

import (
	"io"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The state machine behind ParseSeq, Parse and Streams; the rules it
// follows are in psql.go. A line is read by what is open (an echo, a
// message, a meta-command), then by its kind (classify.go); the handlers
// of each kind are in the file of their topic: echo.go, statement.go,
// message.go, meta.go, time.go and the tables' files. The lines come
// through a window (window.go), which holds the lines still needed; the
// records made are handed out in order as each is complete (record.go).

type parser struct {
	w      *window
	source string
	stream string // Message.Stream for messages read here
	warnf  func(parse.Warning)
	// noText: warnf counts warnings and does not read their text, which
	// is then not copied (ParseSeq with no warn of its caller's).
	noText bool
	i      int

	queue   []queued          // the records made and not yet handed out
	outAt   int64             // the input's offset when the oldest record held was made, or when none was
	outLine int               // and its line
	emit    func(Record) bool // hands a complete record out; false stops
	stopped bool              // emit said stop
	err     error             // a refusal found part-way

	cur      *openStatement
	stmtSlab stmtSlab
	echo     *echo // nil, or echoBuf
	echoBuf  echo
	parts    []part // endEcho's, reused
	lex      lexer
	block    *resultBlock
	meta     *Meta        // an echoed meta-command taking the lines after it
	metaOut  []string     // its Output until closeMeta, the parser's room
	msg      *openMessage // nil, or msgBuf
	msgBuf   openMessage
	gathered gathered // the messages of the last statement or meta-command given one

	msgsOnly  bool // reading stderr: messages tie to nothing yet
	hidden    bool // the next echo is a meta-command's query
	unaligned bool // \pset format unaligned was seen last
	set       outSettings
	// echoLeft: the lines an echoed \echo has still to print, which are
	// its output whatever they read as ("\echo Time: 1.0 ms").
	echoLeft int
	// metaTable: the meta-command being read printed a table (\d), whose
	// lines up to the blank after it are its output.
	metaTable bool
	expanded  bool   // \x is on
	sep       string // the unaligned field separator
	// border and lineStyle: the \pset that drew tables in a style other
	// than the default, which is refused; "" for the default.
	border, lineStyle string

	timing bool // \timing is on
	// timingKnown: the first line about \timing was read, which says
	// whether it was on from the start (psql -q prints no "Timing is
	// on."); until then the parser looks ahead for it when it matters.
	// guessed: it mattered before that line was found, and \timing was
	// taken as off; late is the warning of the line that then showed it
	// on, given when the parser reaches it.
	timingKnown bool
	guessed     bool
	late        *parse.Warning

	cells   []string
	marks   []byte
	left    []bool // flags' room
	scratch []int
	ends    []int // tableAt's column ends
	offs    []int // isHeader's offsets

	seen seen // what kind read of a line, for its handler
	// at is the line step reads (i -1: none yet), for line.
	at struct {
		i int
		s string
	}

	foreign *parse.Warning // the first line of psql's in another language
	english bool           // psql's own lines are English
	// pointTime: a Time: line with a decimal point was read, psql's
	// numbers are C's (LC_NUMERIC); "Timing is on." is English whatever
	// the decimal mark.
	pointTime bool
	// The first line that is not blank, which input without psql's
	// output in it is refused naming; none: the input is blank.
	first     int
	firstText string
}

// newParser reads r; warn (nil: none) is told each warning as it comes.
// msgsOnly: r is psql's stderr, whose lines say nothing of \timing or of
// psql's language.
func newParser(r io.Reader, source, stream string, msgsOnly bool, warn func(parse.Warning)) *parser {
	p := &parser{source: source, stream: stream, sep: "|", warnf: warn, msgsOnly: msgsOnly, set: outSettings{format: "aligned"}}
	p.at.i = -1
	note := p.note
	if msgsOnly {
		note = p.noteText
	}
	p.w = newWindow(parse.NewKeptLines(r, source), note)
	return p
}

// line is line i of the input, from 0. The line step reads is asked
// for a dozen times: it is kept at hand (at), a ninth of the parser's
// instructions when the window found it each time.
func (p *parser) line(i int) string {
	if i == p.at.i {
		return p.at.s
	}
	return p.w.line(i)
}

// has reports whether the input has a line i.
func (p *parser) has(i int) bool { return p.w.has(i) }

func (p *parser) warn(i int, msg string) { p.warnText(i, p.line(i), msg) }

// warnText warns of line i, whose text is l: a copy of it (its first KiB,
// parse.Excerpt), which does not keep its buffer.
func (p *parser) warnText(i int, l, msg string) {
	if p.warnf != nil {
		w := parse.Warning{Source: p.source, Line: i + 1, Msg: msg}
		if !p.noText {
			w.Text = parse.Excerpt(l)
		}
		p.warnf(w)
	}
	p.lookForeign(i, l)
}

// note looks at line i as it is read, ahead of the state machine: for
// the first line that is not blank, psql's language (its row count
// footers, its Time: and Timing lines) and whether \timing was on from
// the start, as the first line about it says.
func (p *parser) note(i int, l string) {
	p.noteText(i, l)
	if len(l) > 4 && l[0] == '(' && l[len(l)-1] == ')' {
		// psql's row count footer in another language ("(1 fila)")
		// would be read as a row of its table: found here, by its
		// shape, at no cost to the lines that cannot be one.
		p.footerLanguage(i, l)
	}
	if len(l) < 5 || l[0] != 'T' || l[1] != 'i' || l[2] != 'm' {
		return
	}
	if !p.pointTime && strings.HasPrefix(l, "Time: ") && englishTime(l) {
		p.english, p.pointTime = true, true
	}
	if !p.english && (l == "Timing is on." || l == "Timing is off.") {
		p.english = true
	}
	if p.timingKnown {
		return
	}
	if _, ok := parseTime(l); ok || l == "Timing is on." {
		p.timingKnown, p.timing = true, true
		if p.guessed {
			p.late = &parse.Warning{Source: p.source, Line: i + 1, Text: parse.Excerpt(l),
				Msg: "\\timing on from the start, as this first line about it shows, found past the look-ahead: the statements before it were read as with \\timing off"}
		}
	} else if l == "Timing is off." {
		p.timingKnown = true
	}
}

// noteText notes the first line that is not blank.
func (p *parser) noteText(i int, l string) {
	if p.firstText == "" && strings.TrimSpace(l) != "" {
		p.first, p.firstText = i, strings.Clone(clip(l, 60))
	}
}

// timingAhead bounds how far the parser looks for the first line about
// \timing: 4,096 lines, or 4 MiB held.
const (
	timingAhead      = 4096
	timingAheadBytes = 4 << 20
)

// timingOn reports whether \timing is on, where that decides what line
// p.i belongs to: before the first line about \timing, it is looked for
// ahead; not found there, \timing is taken as off, and if it later shows
// on from the start (a first Time: line past the look-ahead) that line is
// warned of.
func (p *parser) timingOn() bool {
	for n := p.i; !p.timingKnown && n < p.i+timingAhead && p.w.size < timingAheadBytes && p.has(n); n++ {
	}
	if !p.timingKnown {
		p.guessed = true
	}
	return p.timing
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
		p.foreign = &parse.Warning{Source: p.source, Line: i + 1, Text: parse.Excerpt(l)}
	}
}

// run reads the input, handing out each record as it is complete, and
// returns the input's error (a read error, binary data) or a refusal
// found part-way; the checks of the input as a whole are the caller's.
// It stops, without an error, when emit says so.
func (p *parser) run(emit func(Record) bool) error {
	p.emit = emit
	for p.has(p.i) {
		p.w.release(p.keep() - 1) // the line before, which tagStartsSQL looks at
		if p.late != nil && p.i+1 >= p.late.Line && p.warnf != nil {
			p.warnf(*p.late)
			p.late = nil
		}
		p.step()
		if p.err != nil {
			return p.err
		}
		if p.w.eof || p.w.lost > 0 {
			if err := p.w.err(p.source); err != nil {
				return p.failed(err)
			}
		}
		if p.handOut(); p.stopped {
			return nil
		}
		if err := p.heldTooLong(); err != nil {
			return err
		}
	}
	if err := p.w.err(p.source); err != nil {
		return p.failed(err)
	}
	p.finish()
	p.handOut()
	return p.w.err(p.source)
}

// failed hands out the records read before the input failed (a read
// error, binary data, a line too long), the last as far as it was read,
// and returns err, which names the line: a statement complete before a
// bad line waited for the next to complete it, and was lost with it. A
// fault of the parser's (a line read after it was let go) hands out
// nothing more.
func (p *parser) failed(err error) error {
	if p.w.lost == 0 {
		p.finish()
		p.handOut()
	}
	return err
}

// before reads line i when it is read before its kind is looked at,
// reporting whether it was: the first line of a table in a format this
// parser does not read, a marker, a line of the echo being read, a line
// of a COPY's data.
func (p *parser) before(i int) bool {
	l := p.line(i)
	if l != "" && (l[0] == '\\' || l[0] == '<' || l[0] == '.' || l[0] == '[') {
		if f := formatShape(l); f != "" {
			p.refuseShape(i, f)
			return true
		}
	}
	if strings.HasPrefix(l, markerPrefix) {
		if m, ok := parseMarker(l); ok {
			p.marker(i, m)
			p.i++
			return true
		}
	}
	if p.echo != nil && p.echoTakes(i) {
		p.i++
		return true
	}
	if l == "--" && p.echo == nil && p.msg == nil && p.noColumns(i) {
		return true
	}
	if c := p.accepting(); c != nil && c.copyOut && p.msg == nil && !p.copyEnds(i) {
		c.pending = append(c.pending, pendLine{i, l})
		p.i++
		return true
	}
	return false
}

// pass lets go of the lines before line j, which a table being read is
// past, when no echo or message being read reaches back to them.
func (p *parser) pass(j int) {
	if p.echo == nil && p.msg == nil {
		p.w.release(j)
	}
}

// keep is the first line still needed: the line read next, or the first
// of the echo or the message being read.
func (p *parser) keep() int {
	k := p.i
	if p.echo != nil {
		k = min(k, p.echo.first)
	}
	if p.msg != nil {
		k = min(k, p.msg.first)
	}
	return k
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
	p.at.i, p.at.s = i, p.w.line(i)
	if p.before(i) {
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
	if p.set.unread != "" && printed(k) && (k != lineSQL || p.accepting() != nil) {
		p.refuseUnreadable(i)
		return
	}
	if p.border != "" || p.lineStyle != "" {
		if p.styledTable(i, k) {
			return
		}
	}
	if psqlOwn(k) {
		if p.resultLine(i, k) {
			p.otherLine(i)
			p.i++
			return
		}
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
