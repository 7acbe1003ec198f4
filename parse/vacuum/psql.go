package vacuum

import (
	"io"
	"iter"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/psqlloc"
)

// Parse reads psql's output of VACUUM (VERBOSE) statements from
// PostgreSQL 13 to 18: the INFO and DETAIL lines, with or without psql's
// echo of the statements (-e), command tags, Time: lines and "Timing is
// on.", which are recognised and skipped. It returns one record per table
// vacuumed or analyzed, in order, as "Reading VACUUM (VERBOSE)" in vacuum.go describes.
// Input without any VACUUM VERBOSE message is an error, and so is output
// in another language (lc_messages, psql's locale), naming its first line;
// input whose first 1,000 lines are none understood is refused there.
func Parse(r io.Reader, source string) ([]Record, []parse.Warning, error) {
	return collectAll(func(out *output) error { return readPsql(r, source, out) })
}

// ParseSeq reads psql's output as Parse does, but yields each record as
// soon as no line to come can add to it, as AutovacuumSeq does a server
// log's (whose doc says what comes when): the table being vacuumed holds
// back the records after it until its summary's last line (15+'s
// "finished vacuuming" and 18's "finished analyzing table" end with
// "system usage") or, when the text cannot tell its end (13's and 14's
// messages, ANALYZE up to 17), until the statement ends (psql's command
// tag, its next statement, or the next "vacuuming"), or more than maxHeld
// wait.
// Its memory is that of the longest line and of the records held back,
// whatever the size of the output.
func ParseSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[Record, error] {
	return seqOf(func(out *output) error { return readPsql(r, source, out) }, warn)
}

// readPsql reads psql's output, handing its records and warnings to out.
func readPsql(r io.Reader, source string, out *output) error {
	ls := parse.NewLines(r, source)
	size := parse.Size(r)
	sink := newCollector(source, out, func() (int64, int64) { return ls.Offset(), size })
	p := &psqlOutput{sink: sink, st: newStream(sink, false)}
	for ls.Next() && !out.stopped {
		p.line(ls.Line(), transient(ls.Bytes())) // read in place: what is kept is copied
		if len(sink.recs) > 0 {
			sink.handOutHeld(p)
		}
	}
	if p.notVerbose { // the reading was stopped as by a consumer (see warnUnknown)
		out.stopped = false
		if err := sink.foreignError(); err != nil {
			return err
		}
		return p.noRecords(source, ls.Line())
	}
	if out.stopped {
		return nil
	}
	if err := ls.Err(); err != nil {
		return sink.readError(ls.Line()+1, err)
	}
	p.flush()
	if err := sink.foreignError(); err != nil {
		return err
	}
	if sink.next() == 0 {
		return p.noRecords(source, ls.Line())
	}
	sink.handOut(sink.next())
	return nil
}

// psqlOutput reads psql's output a line at a time: the server's messages
// go to the stream, psql's own lines and the statements it echoed end
// a statement, and the rest is not understood.
type psqlOutput struct {
	sink *collector
	st   *stream
	// The first line not understood, which an input without records names.
	unknown     int
	unknownText string
	// An echoed statement without a final ";" may go on over the next
	// lines; they are held until a line ending with ";" shows that they
	// were the statement's, and are not understood otherwise.
	echo    bool
	pending []held
	// The lines that are not blank and those not understood, until the
	// first record: an input whose first judgedPsqlLines are all not
	// understood is refused there (notVerbose), not read whole.
	lines, unknowns int
	notVerbose      bool
}

// judgedPsqlLines is how many lines, none understood, refuse an input
// (a server log, say) before its end. psql's output of a script may
// print much before its VACUUM (VERBOSE) (the rows of a SELECT), so the
// number is the number of warnings parse prints; a wrong file of 239 MB
// was read whole, 9 to 16 s, before the error named its first line.
const judgedPsqlLines = 1000

// line reads line n: a labelled line starts a message part, a blank line
// ends one, and an unlabelled line continues the open part or, when none
// is open or the line does not belong there, is read as psql's own.
func (p *psqlOutput) line(n int, line string) {
	st := p.st
	if line != "" {
		p.lines++
	}
	s := stripLocation(line)
	if sev, msg, ok := splitLabel(s); ok {
		p.flush()
		st.part(sev, msg, line, n)
		return
	}
	if line == "" {
		p.flush()
		st.end()
		return
	}
	if st.active() {
		if st.cont(line, n) {
			return
		}
		if !psqlNoise(line) && !sqlStart(line) {
			p.sink.warn(n, line, "unrecognized line in "+st.what())
			return
		}
		st.end()
	}
	p.outside(n, line)
}

// outside reads a line outside any message: psql's own line or an echoed
// statement ends the statement before, a line of a statement still open
// is held, and anything else is not understood.
func (p *psqlOutput) outside(n int, line string) {
	switch {
	case psqlNoise(line):
		p.flush()
		p.st.boundary()
	case p.echo && len(p.pending) < echoLines:
		p.pending = append(p.pending, held{n, strings.Clone(line)})
		if endsStatement(line) {
			p.pending, p.echo = p.pending[:0], false
		}
	case sqlStart(line):
		p.flush()
		p.st.boundary()
		p.echo = !endsStatement(line)
	default:
		p.flush()
		p.warnUnknown(n, line)
	}
}

// flush warns of the held lines: no ";" came to show they were a
// statement's.
func (p *psqlOutput) flush() {
	for _, h := range p.pending {
		p.warnUnknown(h.n, h.text)
	}
	p.pending, p.echo = p.pending[:0], false
}

func (p *psqlOutput) warnUnknown(n int, line string) {
	if p.unknown == 0 {
		p.unknown, p.unknownText = n, strings.Clone(line)
	}
	if p.unknowns++; p.unknowns == p.lines && p.unknowns >= judgedPsqlLines && p.sink.next() == 0 {
		p.notVerbose, p.sink.out.stopped = true, true
	}
	p.sink.warn(n, line, "not VACUUM VERBOSE output")
}

// noRecords is the error of an input of lines lines without any record.
func (p *psqlOutput) noRecords(source string, lines int) error {
	switch {
	case lines == 0:
		return parse.Errorf(source, 0, "empty input; expected psql's output of VACUUM (VERBOSE)")
	case p.unknown > 0:
		return parse.Errorf(source, p.unknown, "expected psql's output of VACUUM (VERBOSE) (INFO:  vacuuming \"table\"), found %s", parse.Quote(p.unknownText))
	default:
		return parse.Errorf(source, 0, "no VACUUM (VERBOSE) output (INFO:  vacuuming \"table\"); was VERBOSE given?")
	}
}

const echoLines = 20

// held is a line held until it is known what it is.
type held struct {
	n    int
	text string
}

// endsStatement reports whether an echoed line ends its statement.
func endsStatement(s string) bool {
	return strings.HasSuffix(strings.TrimRight(s, " \t"), ";")
}

// stripLocation removes the "psql:FILE:N: " psql puts before a
// message when it reads a script file.
func stripLocation(s string) string {
	_, _, rest, _ := psqlloc.Cut(s) // one reading of the prefix for every parser
	return rest
}

// psqlNoise reports whether a line is something psql printed of its
// own: a Time: line, its answer to a meta-command ("Timing is on.",
// "Expanded display is off.", ...) or a command tag ("VACUUM", "SET",
// "INSERT 0 1").
func psqlNoise(s string) bool {
	if strings.HasPrefix(s, "Time: ") && strings.Contains(s, " ms") {
		return true
	}
	if strings.HasSuffix(s, ".") {
		for _, p := range psqlAnswers {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
	}
	return commandTag(s)
}

// psqlAnswers start psql's answers to meta-commands.
var psqlAnswers = [...]string{"Timing is ", "Pager usage is ", "Expanded display is ", "Output format is ",
	"Null display is ", "Border style is ", "Tuples only is ", "Field separator is ", "Record separator is ",
	"You are now connected to database "}

// commandTag reports whether s is a command tag: upper-case words, then
// optional counts.
func commandTag(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if digits {
				return false
			}
		case c >= '0' && c <= '9':
			if i == 0 || (s[i-1] != ' ' && (s[i-1] < '0' || s[i-1] > '9')) {
				return false
			}
			digits = true
		case c == ' ':
			if i+1 == len(s) || s[i+1] == ' ' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// sqlWords are the first words of the statements psql echoes.
var sqlWords = map[string]bool{
	"ABORT": true, "ALTER": true, "ANALYSE": true, "ANALYZE": true, "BEGIN": true, "CALL": true,
	"CHECKPOINT": true, "CLOSE": true, "CLUSTER": true, "COMMENT": true, "COMMIT": true, "COPY": true,
	"CREATE": true, "DEALLOCATE": true, "DECLARE": true, "DELETE": true, "DISCARD": true, "DO": true,
	"DROP": true, "END": true, "EXECUTE": true, "EXPLAIN": true, "FETCH": true, "GRANT": true,
	"IMPORT": true, "INSERT": true, "LISTEN": true, "LOAD": true, "LOCK": true, "MERGE": true,
	"MOVE": true, "NOTIFY": true, "PREPARE": true, "REASSIGN": true, "REFRESH": true, "REINDEX": true,
	"RELEASE": true, "RESET": true, "REVOKE": true, "ROLLBACK": true, "SAVEPOINT": true, "SECURITY": true,
	"SELECT": true, "SET": true, "SHOW": true, "START": true, "TABLE": true, "TRUNCATE": true,
	"UNLISTEN": true, "UPDATE": true, "VACUUM": true, "VALUES": true, "WITH": true,
}

// sqlStart reports whether a line starts a statement psql echoed: its
// first word is an SQL command, or it opens with "(", "--", "/*" or a
// backslash (psql -a echoes meta-commands).
func sqlStart(s string) bool {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return false
	}
	switch {
	case s[0] == '(' || s[0] == '\\' || strings.HasPrefix(s, "--") || strings.HasPrefix(s, "/*"):
		return true
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == 0 || i > 10 || (i < len(s) && s[i] != ' ' && s[i] != ';' && s[i] != '(' && s[i] != '\t') {
		return false
	}
	var up [10]byte
	for k := 0; k < i; k++ {
		c := s[k]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[k] = c
	}
	return sqlWords[string(up[:i])]
}
