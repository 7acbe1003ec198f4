package psql

import (
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// Output is psql's output read back.
type Output struct {
	// Statements are the statements psql sent, in order.
	Statements []Statement `json:"statements"`
	// Meta holds what psql printed for its own meta-commands, in order.
	Meta []Meta `json:"meta,omitempty"`
	// Messages are the messages tied to no statement: psql's own errors
	// ("psql: error: connection to server ... failed", "invalid command
	// \foo") and server messages that arrived when no statement could have
	// caused them.
	Messages []Message `json:"messages,omitempty"`
	// Markers are the lines pgstudy's collector has psql print around the
	// timed statement (marker.go), in order; none in output made before
	// pgstudy bracketed its statements, or by hand.
	Markers []Marker `json:"markers,omitempty"`
}

// Statement is one statement psql sent to the server.
type Statement struct {
	// Line and EndLine are the statement's first and last lines in the
	// input (in stdout for Streams): its echo, or its first line of
	// output when psql did not echo it, through its Time: line or its last
	// line of output. The ranges of two statements never overlap.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// SQL is the statement as psql echoed it, its lines joined with "\n"
	// and the white space around it trimmed; "" when it was not echoed.
	// SQLLine is the line its echo starts on: Line, or an earlier line when
	// statements share an echoed line (psql -a prints "select 1; select 2;"
	// once, before both results; the second statement's Line is its first
	// line of output).
	SQL     string `json:"sql,omitempty"`
	SQLLine int    `json:"sql_line,omitempty"`
	// Hidden is set for a query psql sent for one of its meta-commands
	// (\d), echoed between lines of stars with \set ECHO_HIDDEN.
	Hidden bool `json:"hidden,omitempty"`
	// Results are what the statement returned, in order: usually one, more
	// for "select 1 \; select 2".
	Results []Result `json:"results,omitempty"`
	// Messages are the server's messages about the statement, in order,
	// its error among them.
	Messages []Message `json:"messages,omitempty"`
	// TimeMs is the duration psql's \timing printed after the statement
	// ("Time: 12.345 ms", or "Time: 61234.567 ms (01:01.235)"), in
	// milliseconds; nil when there is no Time: line. TimeLine is its line.
	TimeMs   *float64 `json:"time_ms,omitempty"`
	TimeLine int      `json:"time_line,omitempty"`
}

// Err is the statement's error (its first ERROR, FATAL or PANIC message),
// or nil.
func (s *Statement) Err() *Message {
	for i := range s.Messages {
		if s.Messages[i].isError() {
			return &s.Messages[i]
		}
	}
	return nil
}

// Tag is the command tag of the statement's last result ("VACUUM",
// "INSERT 0 3"), or "" when it has none (a query prints a table instead).
func (s *Statement) Tag() string {
	if len(s.Results) == 0 {
		return ""
	}
	return s.Results[len(s.Results)-1].Tag
}

// Result is one result of a statement: a command tag, a table, or
// lines psql printed as they came.
type Result struct {
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Tag is the command tag psql printed for a command that returns no
	// rows: "SET", "VACUUM", "INSERT 0 3", "UPDATE 10".
	Tag   string `json:"tag,omitempty"`
	Table *Table `json:"table,omitempty"`
	// Lines are output lines in no table format: the data of COPY ... TO
	// STDOUT, rows printed with \pset tuples_only.
	Lines []string `json:"lines,omitempty"`
}

// Table is a result table as psql printed it. Values are text as
// shown: a null is "" (or what \pset null set), and white space around a
// value in the aligned and expanded formats is lost.
type Table struct {
	Format  string     `json:"format"`          // "aligned", "unaligned" or "expanded"
	Title   string     `json:"title,omitempty"` // the line above a table: \d's "Table ...", \pset title (centred when narrower)
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"` // a value holding newlines has them back
	// RowCount is the count in the "(N rows)" footer; nil when psql
	// printed none (expanded format, \pset footer off).
	RowCount *int `json:"row_count,omitempty"`
}

// Message is a message from the server (NOTICE, ERROR, ...) or from
// psql itself, as psql printed it.
type Message struct {
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Stream is "stderr" for a message Streams read from stderr (its
	// lines count in stderr); "" when it is in the same stream as the
	// statements.
	Stream string `json:"stream,omitempty"`
	// File and InputLine are from the "psql:FILE:N: " prefix psql puts on
	// messages when it reads a script with -f: the script and the line it
	// had read up to (the statement's last line).
	File      string `json:"file,omitempty"`
	InputLine int    `json:"input_line,omitempty"`
	// Severity is the server's (ERROR, FATAL, PANIC, WARNING, NOTICE, INFO,
	// LOG, DEBUG), psql's own in lower case ("error", "warning"), or "" for
	// a psql message that names none ("invalid command \foo").
	Severity string `json:"severity"`
	SQLState string `json:"sqlstate,omitempty"` // printed with \set VERBOSITY verbose
	// Text is the primary message with its continuation lines, joined with
	// "\n" (VACUUM VERBOSE's "finished vacuuming" INFO spans a dozen).
	Text      string    `json:"text"`
	Detail    string    `json:"detail,omitempty"`
	Hint      string    `json:"hint,omitempty"`
	Query     string    `json:"query,omitempty"`
	Context   string    `json:"context,omitempty"`
	Location  string    `json:"location,omitempty"`
	Statement string    `json:"statement,omitempty"` // psql's \set ECHO errors
	Position  *Position `json:"position,omitempty"`
	// Fields holds the other fields, by name: "SCHEMA NAME", "TABLE NAME",
	// "COLUMN NAME", "DATATYPE NAME", "CONSTRAINT NAME" (VERBOSITY verbose).
	Fields map[string]string `json:"fields,omitempty"`
	// Raw is the message's lines verbatim, joined with "\n".
	Raw string `json:"raw"`
}

func (m *Message) isError() bool {
	switch m.Severity {
	case "ERROR", "FATAL", "PANIC":
		return true
	}
	return false
}

// Position is where an error points in the statement: psql's
// "LINE n: ..." line and the caret under it.
type Position struct {
	Line int    `json:"line"` // the line of the statement (the n of LINE n:)
	Text string `json:"text"` // that line as shown, maybe cut short with "..."
	// Column is the 1-based character of Text the caret points at; 0 when
	// there is no caret line.
	Column int `json:"column,omitempty"`
}

// Meta is what psql printed for one of its meta-commands.
type Meta struct {
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Command is the meta-command as echoed ("\timing on"); psql echoes
	// them only with -a (\set ECHO all).
	Command string `json:"command,omitempty"`
	// Comment is comment lines psql -a echoed that no statement follows.
	Comment string `json:"comment,omitempty"`
	// Response is psql's answer: "Timing is on.", "Output format is
	// unaligned.".
	Response []string `json:"response,omitempty"`
	// Output is the other lines after an echoed meta-command: what \! cmd
	// or \echo printed. Trailing empty lines are dropped.
	Output   []string  `json:"output,omitempty"`
	Messages []Message `json:"messages,omitempty"`
}

// ParseSeq reads psql's output with its stdout and stderr in one stream
// (psql ... > out.txt 2>&1, or a terminal), where each message sits after
// the statement that caused it, and yields its records as it reads them:
// each statement once it is complete (its echo, results, messages and
// Time: line: when the next statement starts, or its Time: line ends it),
// and each meta-command, message tied to no statement and marker, in the
// order of their first lines, with its Kind. warn (nil: none) is told of
// each line not understood as it comes. Input with none of psql's output
// in it (empty, binary, another tool's, a script alone) is an error.
//
// It reads what psql printed for a script: the echo of each statement
// (psql -e, \set ECHO queries; psql -a echoes every input line), its
// result, the server's messages and the Time: line of \timing. It reads
// its lines in order by these rules, looking a few lines ahead where a
// rule says so:
//
//  1. A line whose first word is an SQL command keyword in lower or upper
//     case (select, with, insert, vacuum, set, ...), or "(", or a comment
//     ("--", "/*"), starts the echo of a statement. The echo runs until a
//     semicolon outside quotes, comments, dollar quotes and parentheses
//     ends a line (a psql -a echo may hold several statements: "select 1;
//     select 2;"), or until a line of output (a Time: line, a server
//     message, a result table, a command tag, an answer such as "Timing is
//     on.") shows that psql sent it without one (\g). Comment lines that
//     no statement follows are kept in Meta. The query a meta-command sends
//     (\set ECHO_HIDDEN, between lines of stars) is a Hidden statement.
//  2. What follows an echo belongs to its statement: result tables
//     (aligned: a header, a dashed separator, rows, a "(N rows)" footer;
//     unaligned: lines that a footer ends; expanded: "-[ RECORD 1 ]"
//     blocks), command tags ("SET", "INSERT 0 3"; for a query psql prints
//     its table, not "SELECT 3"), other lines before any result (COPY ...
//     TO STDOUT data, \pset tuples_only rows), messages, and the Time: line,
//     which ends the statement. Output with no statement open starts one
//     without SQL (psql did not echo it; the next statement of a psql -a
//     echo holding several takes its SQL from there). While \timing is off,
//     a statement ends with its result: a second result, or a message
//     after one, belongs to the next statement. (\timing counts as on from
//     the start when the first line about it is a Time: line or "Timing is
//     on.", then as "Timing is on." and "Timing is off." say. Where it
//     decides, the first line about it is looked for up to 4,096 lines
//     ahead; not found there, \timing is taken as off until it is, and if
//     that line then shows it on from the start, it is warned of.)
//  3. A message starts with a severity ("ERROR:  ", "NOTICE:  ", ..., after
//     the "psql:FILE:N: " prefix psql adds when reading a file, or psql's
//     own "psql: error: ") and runs, with its DETAIL:, HINT:, QUERY:,
//     CONTEXT:, LOCATION:, STATEMENT:, LINE n: and caret lines, up to the
//     next line that is recognised as something else. psql prints the
//     continuation lines of a multi-line message unindented (VACUUM
//     VERBOSE's INFO, a RAISE with newlines, a long CONTEXT), so an
//     unrecognised line after a message belongs to it (to its text or its
//     last field); a line that looks like the start of a statement
//     ends it only when a semicolon ends that statement within 20 lines
//     (with \timing off an echo can follow an ERROR directly). Raw keeps
//     each message's lines verbatim. When a "(N rows)" footer follows a
//     message's continuation lines, the last N+1 of them are taken back as
//     the unaligned table they were.
//  4. psql's answers to meta-commands are recognised ("Timing is on.",
//     "Output format is unaligned.", "Expanded display is on.", ...) and
//     kept in Meta. psql -a echoes the meta-commands themselves: the lines
//     after an echoed one, up to the next echoed statement, comment or
//     meta-command, are its output (what \! cat /proc/diskstats or \echo
//     printed).
//  5. Any other line (the output of a \! shell escape that psql -e does
//     not echo) is a Warning, and neither starts nor ends a statement.
//
// Output in another language (psql run in another locale, a server with
// lc_messages other than English) is refused naming a line: its Time:
// lines and messages would be read as nothing. A server's message in
// another language ("ERREUR:  ") is refused at once; a line of psql's
// own in another language ("Temps : 2,052 ms", "(1 fila)") at the end of
// the input, naming the first, unless a line of psql's in English shows
// it was a user's value (see foreign.go).
//
// Its memory is that of the lines it looks at (those of the echo or
// message being read, a table's next 4,096, and up to 4,096 ahead while
// \timing is unknown) and of the records not yet handed out: the one
// being read, and those made while it is open (psql's own messages after a
// statement wait for its end). A result table of a million rows is held
// until its statement is complete, once, its values parts of the blocks
// of input they were read from. Because it hands records out before the
// end, a stream may end in an error after records:
// the input's (a read error, binary data, a line longer than
// parse.MaxLine) at the line found, before the records that line would
// have completed; a server's message in another language at its line;
// and, at the end, psql's lines in another language or input with none
// of psql's output in it, once more than 1,024 records (a script alone)
// were held waiting for a first one psql printed. A consumer that stops
// ends the reading.
//
// Output printed with settings whose values cannot be told from psql's
// own lines is refused at its first line (settings.go): other formats
// than aligned, wrapped and unaligned, tuples only, unaligned without row
// counts, a title that reads as psql's line, where psql answered or
// echoed the setting, and the other formats' tables by their shape;
// border 0 or 2 and the unicode line style (style.go), by psql's line or
// by the table's shape; and a row count under no table read whole, which
// a setting made quietly prints.
//
// Known limits: a setting made quietly and not echoed that prints no row
// count (psql -t, psql --csv), and COPY's data without its echo, are not
// seen, and a value that reads as one of psql's lines is then taken for
// it; a meta-command's query time (\gdesc) is a statement without SQL; an
// unaligned table is split on its field
// separator, so a value holding the separator or a newline gives a row of
// another shape (with a Warning); when psql echoed a statement without a
// semicolon (\g), bare rows after it (\pset tuples_only) are taken as
// more of its SQL; "select 1 \; select 2" with \timing off reads as two
// statements.
func ParseSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		g := &gate{yield: yield}
		var p *parser
		early := 0 // lines not understood before any record
		p = newParser(r, source, "", false, func(w parse.Warning) {
			if !g.printed && !g.open && len(g.held) == 0 && !p.printedHeld() {
				// Not psql's output, it seems: refused after
				// parse.Judged lines, not read to its end.
				if early++; early == parse.Judged && p.err == nil {
					p.err = noOutputIn(source, p, early)
				}
			}
			if warn != nil {
				warn(w)
			}
		})
		p.noText = warn == nil
		err := p.run(g.emit)
		if p.stopped {
			return
		}
		if err == nil {
			err = p.endError()
		}
		if err == nil && !g.printed {
			err = noOutput(source, p)
		}
		if err != nil {
			yield(Record{}, err)
			return
		}
		g.flush()
	}
}

// maxUnprinted bounds the records ParseSeq holds before the first that
// psql printed.
const maxUnprinted = 1024

// gate holds the records before the first that psql printed, so that
// input of none (a script alone) is refused without records, as a whole
// read refuses it; past maxUnprinted it lets them go.
type gate struct {
	yield   func(Record, error) bool
	held    []Record
	printed bool // a printed record was seen
	open    bool // records go out as they come
}

func (g *gate) emit(r Record) bool {
	if !g.printed && r.printed() {
		g.printed = true
	}
	if !g.printed && !g.open {
		g.held = append(g.held, r)
		if len(g.held) <= maxUnprinted {
			return true
		}
		g.open = true
		return g.flush()
	}
	return g.flush() && g.yield(r, nil)
}

// flush yields the records held; false when the consumer stopped.
func (g *gate) flush() bool {
	held := g.held
	g.held = nil
	for _, r := range held {
		if !g.yield(r, nil) {
			return false
		}
	}
	return true
}

// endError is the refusal of the input as a whole, once read: blank
// input, or psql's own lines in another language.
func (p *parser) endError() error {
	if p.firstText == "" {
		return parse.Errorf(p.source, 0, "empty input; expected psql output")
	}
	return p.foreignError()
}

// Parse reads psql's output as ParseSeq does, into one Output: its records
// gathered by kind, and its warnings. Input that ParseSeq ends with an
// error is an error, without records.
func Parse(r io.Reader, source string) (*Output, []parse.Warning, error) {
	var warns []parse.Warning
	out := &Output{Statements: []Statement{}}
	for rec, err := range ParseSeq(r, source, func(w parse.Warning) { warns = append(warns, w) }) {
		if err != nil {
			return nil, nil, err
		}
		out.add(rec)
	}
	return out, warns, nil
}

// Streams reads psql's stdout and stderr recorded apart, as pgstudy's
// collector records them. Warnings and errors name source+":stdout" and
// source+":stderr".
//
// Apart, the order between the two streams is lost: stdout holds the echoes,
// results and Time: lines, stderr the messages, and when psql reads its
// script from stdin they carry no "psql:FILE:N:" prefix to tell which
// statement they came from. Streams ties them to the statements of
// stdout by these rules, in order:
//
//  1. psql's own messages (no server severity) go to Output.Messages.
//  2. The k-th ERROR, FATAL or PANIC goes to the k-th statement that
//     printed no result (a failed statement prints only its Time: line),
//     or, when there are fewer such statements, to the last statement.
//  3. Any other message goes to the statement of the next error after it
//     in stderr, or, when no error follows, to the last statement: the
//     collector's script runs its SETs before the timed statement, and
//     psql with ON_ERROR_STOP runs nothing after an error.
//
// So with several statements that print notices (two VACUUM VERBOSE in one
// script), all the notices go to the last; each message keeps its line in
// stderr (Stream "stderr") and the statements' line ranges count in stdout.
func Streams(stdout, stderr io.Reader, source string) (*Output, []parse.Warning, error) {
	outSrc, errSrc := source+":stdout", source+":stderr"
	var warns []parse.Warning
	warn := func(w parse.Warning) { warns = append(warns, w) }
	out := &Output{Statements: []Statement{}}
	p := newParser(stdout, outSrc, "", false, warn)
	if err := p.run(func(r Record) bool { out.add(r); return true }); err != nil {
		return nil, nil, err
	}
	e := newParser(stderr, errSrc, "stderr", true, warn)
	msgs, err := e.messagesOnly()
	if err != nil {
		return nil, nil, err
	}
	if p.firstText == "" && e.firstText == "" {
		return nil, nil, parse.Errorf(source, 0, "empty stdout and stderr; expected psql output")
	}
	for _, q := range []*parser{p, e} {
		if err := q.foreignError(); err != nil {
			return nil, nil, err
		}
	}
	if !out.printed() && len(msgs) == 0 {
		if p.firstText != "" {
			return nil, nil, noOutput(outSrc, p)
		}
		return nil, nil, noOutput(errSrc, e)
	}
	attachStreamMessages(out, msgs)
	return out, warns, nil
}

// noOutput is the error for input in which nothing psql prints was
// found, naming its first line that is not blank.
func noOutput(source string, p *parser) error { return noOutputIn(source, p, 0) }

// noOutputIn is noOutput of the first n lines not understood (all when n
// is 0).
func noOutputIn(source string, p *parser, n int) error {
	if p.firstText == "" {
		return parse.Errorf(source, 0, "no psql output")
	}
	in := ""
	if n > 0 {
		in = fmt.Sprintf(" in its first %d lines", n)
	}
	return parse.Errorf(source, p.first+1, "no psql output%s: expected a command tag, a result table, a Time: line or a server message after the statements, found %q", in, p.firstText)
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s...", strings.ToValidUTF8(s[:n], ""))
}
