package psql

import "strings"

// What a line is, by its shape alone (kind) or by what comes around it
// (interrupts, sqlAhead): the state machine in parser.go goes by it.

// lineKind is what a line outside an echo is, as kind tells.
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

// seen is what kind read of the line it last found a Time: line, a
// message's first line or a table's header, for the line's handler not
// to read it again.
type seen struct {
	line int // the line, plus one; 0: none
	kind lineKind
	time timeValue
	msg  msgStart
	hdr  int // a table's header line; the parser's ends are its columns
}

// seenAt is what kind read of line i as a line of kind k, or nil.
func (p *parser) seenAt(i int, k lineKind) *seen {
	if p.seen.line == i+1 && p.seen.kind == k {
		return &p.seen
	}
	return nil
}

// kind classifies line i outside an echo.
func (p *parser) kind(i int) lineKind {
	l := p.line(i)
	if l == "" {
		return lineBlank
	}
	switch l[0] {
	case ' ', '\t':
		if trimBlank(l) == "" {
			return lineBlank
		}
	case 'T':
		if t, ok := parseTime(l); ok {
			p.seen = seen{line: i + 1, kind: lineTime, time: t}
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
	if m, ok := messageStart(l); ok {
		p.seen = seen{line: i + 1, kind: lineMessage, msg: m}
		return lineMessage
	}
	if _, _, ok := fieldLabel(l); ok {
		return lineField
	}
	if _, _, ok := quotedLine(l); ok {
		return lineField
	}
	if hdr, _, ok := p.tableAt(i, true); ok {
		p.seen = seen{line: i + 1, kind: lineTable, hdr: hdr}
		return lineTable
	}
	if isTag(l) && !p.tagStartsSQL(i) {
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
	l := p.line(i)
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
		if !p.has(i + 1) {
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

// tagStartsSQL reports whether line i, a command tag's words alone
// ("SELECT", "VACUUM", "BEGIN"), is rather the first line of a statement
// echoed over several lines: the next line is none psql prints (nor a
// table's header over its rule), and a semicolon ends the echo a few
// lines on (found by an outside tester: the statement lost its SQL to an
// invented tag).
func (p *parser) tagStartsSQL(i int) bool {
	l := p.line(i)
	if strings.ContainsAny(l, "0123456789") || !p.has(i+1) {
		return false
	}
	if c := p.accepting(); (c == nil || !c.copyOut) && i > 0 && p.w.held(i-1) && !endsOutput(p.line(i-1)) {
		// An echo starts after a statement's output has ended (or
		// after COPY's data): not inside another echo ("UNION ALL",
		// then "SELECT" alone).
		return false
	}
	if p.has(i+2) && strings.HasPrefix(p.line(i+2), "-") {
		return false // a table's header over its rule
	}
	// The lines up to the semicolon are none psql prints.
	for j := i + 1; j < i+20 && p.has(j); j++ {
		l := p.line(j)
		if trimBlank(l) == "" || ownLine(l) || strings.HasPrefix(l, markerPrefix) || anyCaseKeyword(l) {
			return false
		}
		if _, _, ok := fieldLabel(l); ok {
			return false
		}
		if strings.Contains(l, ";") {
			break
		}
	}
	return p.sqlAhead(i)
}

// endsOutput reports whether l is a line after which psql may echo the
// next statement: a blank line, a Time: line, a row count, a command tag,
// a meta-command's answer, or an echo's last line (a semicolon).
func endsOutput(l string) bool {
	if trimBlank(l) == "" || isTag(l) || isMetaResp(l) || strings.HasSuffix(strings.TrimRight(l, " \t"), ";") {
		return true
	}
	if _, ok := parseTime(l); ok {
		return true
	}
	_, ok := footerCount(l)
	return ok
}

// anyCaseKeyword reports whether l's first word is an SQL keyword in any
// case ("Select", "select*from"): the start of another statement.
func anyCaseKeyword(l string) bool {
	s := trimBlank(l)
	j := wordEnd(s)
	return j > 0 && keywords.has(s[:j])
}

// sqlAhead reports whether an echoed statement that starts on line i ends
// with a semicolon within a few lines: an echo, not the continuation of a
// message. A Time: line outside a literal ends the look: psql prints it
// after the statement ran, never inside its echo.
func (p *parser) sqlAhead(i int) bool {
	var x lexer
	var cuts []sqlCut
	for j := i; j < i+20 && p.has(j); j++ {
		if _, ok := parseTime(p.line(j)); ok && j > i && x.topLevel() {
			return false
		}
		var done bool
		cuts, done = x.scan(p.line(j), cuts[:0])
		if done {
			return true
		}
	}
	return false
}

// tagWords are the first words of PostgreSQL's command tags.
var tagWords = newWordSet(`alter analyze begin call checkpoint close cluster comment commit copy
	create deallocate declare delete discard do drop explain fetch grant import insert listen load lock
	merge move notify prepare reassign refresh reindex release reset revoke rollback savepoint security
	select set show start truncate unlisten update vacuum`)

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
	if !tagWords.has(l[:j]) { // upper case: j stopped at any other byte
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
	// psql prints these tags with their counts ("SELECT 3", "INSERT 0 1",
	// "UPDATE 2"), never alone: alone, the word starts an echoed
	// statement ("UPDATE" on a line of its own, then the table).
	return nums > 0 || !countedTags[l[:strings.IndexByte(l+" ", ' ')]]
}

// countedTags are the command tags psql prints with a count, or (EXPLAIN)
// never: a result of rows is printed instead.
var countedTags = map[string]bool{"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true,
	"COPY": true, "FETCH": true, "MOVE": true, "EXPLAIN": true}
