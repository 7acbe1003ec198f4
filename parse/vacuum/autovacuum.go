package vacuum

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/foreign"
)

// AutovacuumSeq reads the autovacuum and autoanalyze entries of a
// PostgreSQL server log (13 to 18) written with log_autovacuum_min_duration
// set: each "automatic [aggressive ]vacuum [to prevent wraparound ]of
// table" and "automatic analyze of table" entry is a record, with its
// further lines. The log is read in the format of its first line that is
// not blank (logformat.go): stderr with any log_line_prefix, csvlog,
// jsonlog (15+), or syslog and journald's (rsyslog's file formats,
// journalctl -o short, short-iso and their precise variants; the server's
// "[SEQ-CHUNK]" numbers and rsyslog's "#011" for a tab undone). The same
// entries give the same records in every format, but for the line they
// start on. In the stderr format it finds a line's prefix by the severity
// that ends it ("LOG:  ", "INFO:  ", ...) and keeps the prefix's timestamp
// and process ID as printed, when it has them (LogTime, PID); csvlog and
// jsonlog records have them in their columns, and syslog's prefix stands
// in for a log_line_prefix without them. Warnings quote a csvlog or
// jsonlog message as the stderr format prints it. It reads text: a
// compressed log is decompressed by the caller (pgstudy parse does it,
// told by content).
//
// The other lines of the log (the server's other messages, with their
// DETAIL and continuation lines, and lines without a prefix) are skipped
// without warnings; an entry that starts like an autovacuum entry but does
// not read as one, an unrecognized line within an entry, and a line of a
// jsonlog that is not a record are warnings. VACUUM VERBOSE messages
// logged at INFO (log_min_messages = info) are read too, per backend, as
// Parse reads them.
//
// Input without any line of a server log is an error, and so is input
// whose first lines are not a log's (psql's output, whose messages have a
// log's severities: judge.go), named at its first line without a
// severity, and a csvlog whose last record never ends; a server log
// without autovacuum entries gives no records and no error. A log written
// with lc_messages in another language, in any format, is refused naming
// the line and lc_messages (see foreign.go): its entries would be missed.
//
// It yields each record as soon as no line to come can add to it (an
// entry at its last line: see finishWhole), in the order of the log, and
// hands each warning to warn (when not nil) as it is found: its memory is
// that of the longest line or csvlog record and of the records still
// being read, whatever the size of the log. The warning of a record
// without a summary comes just before the record is yielded, and those
// found before the first record wait for it (up to maxHeld of them). An
// error ends the sequence as its last pair, with a zero Record; the
// records yielded before it stay yielded (all start before the line the
// error names), and the warnings still waiting are dropped. A consumer
// that stops ends the reading: nothing is read after it. (No function
// returns every record of a log at once: holding them all halved the
// speed of the reading, and no command needs them together.)
//
// A record that a message to come could still add to (a VACUUM VERBOSE at
// INFO whose backend has not finished the table; up to 14, until its
// next "vacuuming") holds back the records after it. When more than
// maxHeld (4096) records wait, the first is yielded as it stands, and
// what its backend logs about it later reads as a message without the one
// before it (a warning, where it would have been added to the record). Of
// the backends that logged INFO messages, it keeps those that hold a
// record and at most maxBackends (1024) others: the TOAST table's record
// that follows a record let go may then not name its main table.
func AutovacuumSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[Record, error] {
	return seqOf(func(out *output) error { return readLog(r, source, out) }, warn)
}

// readLog reads a server log, handing its records and warnings to out.
func readLog(r io.Reader, source string, out *output) error {
	ls := parse.NewLines(r, source)
	size := parse.Size(r)
	sink := newCollector(source, out, func() (int64, int64) { return ls.Offset(), size })
	lr := logReader{sink: sink, auto: newStream(sink, true), entry: -1}
	lr.skipDamaged(ls)
	looked := map[string]bool{} // not in lr, so that it stays on the stack
	var other feed              // a log not in the stderr format (logformat.go)
	told := false               // the format is known
	var start cutStart
	for ls.Next() && !out.stopped {
		b := ls.Bytes()
		if !told && len(bytes.TrimSpace(b)) > 0 {
			if other = newFeed(&lr, source, b); other == nil && start.hold(ls.Line(), b) {
				continue // perhaps the rest of a record the log was cut inside
			}
			told = true
			lr.told(other, &start, ls.Line(), out, looked)
		}
		if other == nil {
			lr.line(ls.Line(), b, looked)
		} else if err := other.line(ls.Line(), b); err != nil {
			return err
		}
	}
	if !told && len(start.lines) > 0 { // only lines held: read as stderr's
		lr.told(nil, &start, ls.Line(), out, looked)
	}
	if lr.notLog { // the reading was stopped as by a consumer (judge.go)
		out.stopped = false
		if err := sink.foreignError(); err != nil {
			return err
		}
		return lr.notALog(source)
	}
	if out.stopped {
		return nil
	}
	if err := ls.Err(); err != nil {
		return sink.readError(ls.Line()+1, err)
	}
	if other != nil {
		if err := other.end(); err != nil {
			return err
		}
	}
	if err := sink.foreignError(); err != nil {
		return err
	}
	lr.endEntry()
	if lr.logLines == 0 {
		if lr.firstN == 0 {
			// A log just rotated holds nothing yet: no entry, said so
			// (a csvlog or jsonlog whose records were all left out,
			// each with its warning, is not empty).
			if other == nil {
				sink.warn(0, "", emptyLog)
			}
			return nil
		}
		return lr.notALog(source)
	}
	sink.handOut(sink.next())
	return nil
}

// cutStart holds a log's first lines that are neither of a known format
// nor a stderr log's message (a severity): a log cut inside a record
// (tail -c of a csvlog, whose message spans lines, or a line cut in two)
// starts with the rest of that record, and its format shows on the next
// record's line. A csvlog, jsonlog or syslog line then leaves the held
// lines out with a warning; any other, a stderr log's, reads them first
// as the stderr reader does. At most maxCutLines lines and maxCutBytes
// bytes are held.
type cutStart struct {
	lines []heldLine
	bytes int
}

type heldLine struct {
	n int
	b []byte
}

const (
	maxCutLines = 64
	maxCutBytes = 1 << 20
)

// hold holds line n, b, when it may be the rest of a cut record and
// there is room; false when the format is to be decided now.
func (c *cutStart) hold(n int, b []byte) bool {
	if labelAt, _ := logSeverity(b); labelAt >= 0 || len(c.lines) == maxCutLines || c.bytes+len(b) > maxCutBytes {
		return false
	}
	c.lines = append(c.lines, heldLine{n, bytes.Clone(b)})
	c.bytes += len(b)
	return true
}

// leftOut warns of the held lines, left out before the first record at
// line n.
func (c *cutStart) leftOut(sink *collector, n int) {
	if len(c.lines) == 0 {
		return
	}
	first := c.lines[0]
	sink.warn(first.n, transient(first.b), fmt.Sprintf("the log starts inside a record: its lines before the first whole record, at line %d, are left out", n))
}

// emptyLog is the warning of a log without a line: no record, but not an
// error (a log just rotated, or one of a quiet server, is empty).
const emptyLog = "empty: the log holds no line, so no entry (a log just rotated, or not the file meant?)"

// skipDamaged has ls leave out a line a statement logged whole makes
// longer than parse.MaxLine, or the NULs a crash left: they cost the
// line, not the entries after it. A file binary from its start, or for
// maxLeftOut lines in a row, is refused.
func (lr *logReader) skipDamaged(ls *parse.Lines) {
	var seen, inARow int
	ls.Skip(func() bool { return lr.logLines > 0 && inARow < maxLeftOut },
		func(n int, text, why string) {
			if lr.logLines != seen {
				seen, inARow = lr.logLines, 0
			}
			inARow++
			lr.sink.warn(n, text, why)
		})
}

// told starts the reading of a log once its format is known, at line n
// (other is its feed, nil for stderr): the lines held before it (start)
// are left out before a csvlog, jsonlog or syslog record, or read as
// stderr's.
func (lr *logReader) told(other feed, start *cutStart, n int, out *output, looked map[string]bool) {
	lr.startJudging(other == nil, out)
	lr.stderr = other == nil
	if other != nil {
		start.leftOut(lr.sink, n)
	} else {
		for _, h := range start.lines {
			lr.line(h.n, h.b, looked)
		}
	}
	*start = cutStart{}
}

// maxLeftOut is how many lines in a row a server log may lose to NULs or
// to their length before it is refused: a crash leaves a block of NULs,
// a log followed by a compressed one (cat log log.1.gz) a stream of them.
const maxLeftOut = 64

// notALog is the error of an input that is not a server log, naming its
// first line without a severity.
func (lr *logReader) notALog(source string) error {
	return parse.Errorf(source, lr.firstN, "expected a PostgreSQL server log (stderr: a line prefix, then \"LOG:  \" and the message; or csvlog, jsonlog, syslog, journald), found %s", parse.Quote(lr.first))
}

// logReader reads a server log a line at a time: an autovacuum entry's
// lines go to one stream, the INFO messages of each backend to its own.
type logReader struct {
	sink     *collector
	auto     *stream            // autovacuum's entries
	backends map[string]*stream // INFO messages, by process
	// all is backends' streams in a slice, which firstHeld goes through
	// after every line while a record waits: iterating the map was a
	// tenth of a csvlog's time.
	all      []*stream
	cur      *stream // the stream of the entry being read
	entry    int     // the record whose summary is being read
	body     int     // and its summary lines
	logLines int     // lines with a severity

	stderr bool // the log is in the stderr format

	// usageLine: the line of the entry's "system usage" line when it was
	// there but not understood (the entry is not cut short), or 0.
	usageLine int

	// The first line without one, which an input that is not a log names.
	first  string
	firstN int
	// The first lines of a stderr log judge whether it is one (judge.go).
	judge  int     // the lines still to judge
	unlab  int     // those without a severity
	bare   bool    // a severity without a prefix, or after psql's
	notLog bool    // judged not a log: the reading stops
	stop   *output // stopped then
	// The time and process ID of a syslog line's prefix, for a line whose
	// own prefix has none.
	defTime []byte
	defPID  string
}

// prefix is the time and process ID of a line's prefix p, parts of the
// input (see setPrefix).
func (lr *logReader) prefix(p []byte) (ts, pid string) {
	ts, pid = logPrefix(transient(p))
	if ts == "" {
		ts = transient(lr.defTime)
	}
	if pid == "" {
		pid = lr.defPID
	}
	return ts, pid
}

// line reads line n: a tab-indented line continues the current entry; a
// line with a severity starts an entry, a message, or a part of one; any
// other line is not the server's. looked holds the kinds of message
// looked up in the foreign catalogue.
func (lr *logReader) line(n int, b []byte, looked map[string]bool) {
	if len(b) > 0 && b[0] == '\t' {
		lr.continuation(n, b[1:])
		return
	}
	lr.message(n, b, looked)
	if len(lr.sink.recs) > 0 {
		lr.handOut()
	}
}

// message reads line n, which is not a continuation line.
func (lr *logReader) message(n int, b []byte, looked map[string]bool) {
	labelAt, msgAt := logSeverity(b)
	if labelAt < 0 {
		lr.unlabelled(n, b)
		return
	}
	lr.logLines++
	if lr.judge > 0 {
		lr.judgeLine(true, b[:labelAt])
	}
	label := b[labelAt : msgAt-3]
	msg := b[msgAt:]
	switch {
	// The line is read in place: what a record keeps of it is copied.
	case string(label) == "LOG" && bytes.HasPrefix(stripSQLStateBytes(msg), []byte("automatic ")):
		lr.endEntry()
		lr.cur = lr.auto
		lr.cur.boundary()
		lr.cur.setPrefix(lr.prefix(b[:labelAt]))
		lr.startEntry("LOG", transient(b), msgAt, n)
	case string(label) == "INFO":
		lr.endEntry()
		t, pid := lr.prefix(b[:labelAt])
		lr.cur = lr.backend(pid)
		lr.cur.setPrefix(t, pid)
		lr.startEntry("INFO", transient(b), msgAt, n)
	case lr.cur != nil && isDetailLabel(label):
		line := transient(b)
		before := lr.cur.nlines
		lr.cur.part(string(label), stripSQLState(line[msgAt:]), line, n)
		lr.body += lr.cur.nlines - before
	default:
		lr.otherMessage(n, b, label, msg, looked)
	}
}

// continuation reads a tab-indented line s of the current entry, if one
// is open.
func (lr *logReader) continuation(n int, b []byte) {
	cur := lr.cur
	if cur == nil || !cur.active() {
		return
	}
	s := transient(b) // what a record keeps of it is copied
	before := cur.nlines
	if !cur.cont(s, n) {
		lr.sink.warn(n, s, "unrecognized line in "+cur.what())
		if lr.entry >= 0 && strings.HasPrefix(s, "system usage:") {
			lr.usageLine = n
		}
	} else if cur.nlines > before {
		lr.body++
		if cur.kind == partDone { // the entry's last line: it is handed out now
			lr.entry, lr.body = -1, 0
			lr.handOut()
		}
	}
}

// unlabelled reads a line without a severity: not the server's, or the
// server's in another language ("FEHLER:  ", "СООБЩЕНИЕ:  ").
func (lr *logReader) unlabelled(n int, b []byte) {
	if lr.sink.foreign == nil && bytes.Contains(b, []byte(":  ")) {
		lr.sink.lookForeign(n, transient(b))
	}
	if lr.firstN == 0 && len(bytes.TrimSpace(b)) > 0 {
		lr.first, lr.firstN = string(b), n
	}
	if lr.judge > 0 && len(bytes.TrimSpace(b)) > 0 {
		lr.judgeLine(false, nil)
	}
	if lr.stderr && lr.entry >= 0 && lr.cur != nil && lr.cur.active() {
		// Inside an entry of a stderr log, whose lines start with a tab
		// (an empty line of a message is a tab alone): another program's
		// output, a blank line, or what a crash's NULs left of a line.
		// The entry's lines after it are its own still. (A syslog file
		// holds other programs' lines as a matter of course.)
		what := "a line without a severity"
		if len(bytes.TrimSpace(b)) == 0 {
			what = "a blank line"
		}
		lr.sink.warn(n, transient(b), what+" inside an entry (another program's output, or a line cut short): left out, and the entry read on")
		return
	}
	lr.endEntry()
	lr.cur = nil
}

// startEntry hands a message's first line to the current stream, and
// notes a summary that should follow.
func (lr *logReader) startEntry(label, line string, msgAt, n int) {
	cur := lr.cur
	before := cur.nlines
	cur.part(label, stripSQLState(line[msgAt:]), line, n)
	if cur.kind == partSummary {
		lr.entry, lr.body = cur.rec, cur.nlines-before
	}
}

// endEntry warns of an entry that ended without any summary line, and of
// an autovacuum or autoanalyze entry without its "system usage" line,
// which every version prints (13's autoanalyze on the entry's first
// line): an entry cut short by the end of the log, or one whose lines were
// lost or went to another (a garbled or interleaved log).
func (lr *logReader) endEntry() {
	if lr.entry >= 0 {
		r := lr.sink.rec(lr.entry)
		switch {
		case lr.body == 0:
			lr.sink.warn(r.Line, relName(r), "entry without any summary line (in a server log they follow it, each starting with a tab)")
		case r.Automatic && !lr.sink.got(lr.entry, kindCPU) && lr.usageLine > 0:
			lr.sink.warn(r.Line, relName(r), fmt.Sprintf("entry whose \"system usage\" line, line %d, is not understood: its figures are left out", lr.usageLine))
		case r.Automatic && !lr.sink.got(lr.entry, kindCPU):
			lr.sink.warn(r.Line, relName(r), "entry without its \"system usage\" line, which every version prints: cut short (the end of the log, or lines lost)?")
		}
	}
	lr.entry, lr.body, lr.usageLine = -1, 0, 0
}

// otherMessage skips the server's other messages, but one in another
// language means its autovacuum entries are too. Only its message's text
// is looked up, not a label in it: a line's severity is English here, and
// what follows may be a user's (RAISE LOG 'ERREUR: ...', a logged
// statement's SQL). A log repeats its kinds of message (checkpoints,
// connections): each is looked up once, by its first 16 bytes, which is
// what keeps the look-up from costing a busy log most of its time.
func (lr *logReader) otherMessage(n int, b, label, msg []byte, looked map[string]bool) {
	if lr.sink.foreign == nil && (string(label) == "LOG" || string(label) == "INFO") && !quotesUser(msg) {
		key := msg[:min(len(msg), 16)]
		if !looked[string(key)] {
			if len(looked) == maxLooked {
				clear(looked) // a log whose messages start with their own numbers ("process 123 ...")
			}
			looked[string(key)] = true
			if lang, ok := foreign.ServerText(transient(msg)); ok {
				lr.sink.foreign = &parse.Warning{Source: lr.sink.source, Line: n, Text: parse.Excerpt(b), Msg: "server " + lang}
			}
		}
	}
	lr.endEntry()
	lr.cur = nil
}

// maxLooked bounds the kinds of message looked up once each.
const maxLooked = 4096

// quotesUser reports whether a LOG message quotes a user's text: the
// statement log_statement or log_min_duration_statement prints.
func quotesUser(msg []byte) bool {
	for _, p := range []string{"statement: ", "duration: ", "execute ", "parse ", "bind "} {
		if bytes.HasPrefix(msg, []byte(p)) {
			return true
		}
	}
	return false
}

// isDetailLabel reports whether a label continues the message before it.
func isDetailLabel(label []byte) bool {
	switch string(label) {
	case "DETAIL", "HINT", "CONTEXT", "LOCATION", "STATEMENT", "QUERY":
		return true
	}
	return false
}

// logSeverity finds the severity of a server log line: the first
// "LABEL:  " whose label is a severity or a message field and follows the
// line prefix (it starts the line or follows a space). It returns where
// the label starts and where the message starts, or -1.
func logSeverity(b []byte) (labelAt, msgAt int) {
	i := fieldColon(b)
	if i < 0 {
		return -1, -1
	}
	j := i
	for j > 0 && b[j-1] >= 'A' && b[j-1] <= 'Z' || j > 0 && b[j-1] >= '0' && b[j-1] <= '9' {
		j--
	}
	if j == i || (j > 0 && b[j-1] != ' ' && b[j-1] != '\t' && b[j-1] != ']' && b[j-1] != ':') {
		return -1, -1
	}
	if !isLabel(b[j:i]) {
		return -1, -1
	}
	return j, i + 3
}

// stripSQLStateBytes is stripSQLState for bytes.
func stripSQLStateBytes(b []byte) []byte {
	if len(b) < 7 || b[5] != ':' || b[6] != ' ' {
		return b
	}
	for i := 0; i < 5; i++ {
		c := b[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return b
		}
	}
	return b[7:]
}
