package vacuum

import "strings"

// The server's VACUUM and ANALYZE messages, read the same way from psql's
// output, from notices and from a server log: a stream follows one
// session's messages and hands each to the reader of its kind (message.go
// for those that start or carry a record, table.go for those that start
// with the table's name, index.go for 13's and 14's index messages,
// summary.go for the summary lines).

// partKind says what the continuation lines of the current message part
// are.
type partKind uint8

const (
	partNone    partKind = iota // no part open: a continuation is not expected
	partIgnore                  // a part read whole and not used (CPU detail, an error, a context)
	partSummary                 // a record's summary lines (15+ finished vacuuming, autovacuum entries, 13/14 "found" DETAIL)
	partIndex                   // 13/14 "index ... now contains" DETAIL
	partDone                    // after a record's last line (see finishWhole): a further line is not understood
)

// stream reads the messages of one session (or, in a server log, of one
// backend) in order.
type stream struct {
	sink *collector
	log  bool // a server log: messages not about vacuuming are not warnings
	link bool // TOAST records name their main table (not autovacuum's)
	kind partKind
	rec  int      // the record the current part fills
	ix   int      // the index entry partIndex fills
	next partKind // what a DETAIL of the current message holds
	open int      // the table being vacuumed: 13/14 messages name only the table
	// The statement's last VACUUM record (its number and its names, so
	// that a reader may hand it out), for TOAST links.
	last                  int
	lastSchema, lastTable string
	anlz                  int    // the ANALYZE record "scanned N of M pages" lines belong to
	time                  string // a log entry's prefix fields, for the records it starts
	pid                   string
	nmb                   nums
	label                 string // what the current part is, for warnings
	nlines                int    // summary lines read, to tell an entry without any
	// whole: the current part is a summary that carries a whole record
	// and ends with a line known to be its last (see finishWhole).
	whole bool
}

func newStream(sink *collector, log bool) *stream {
	st := &stream{sink: sink, log: log, link: !log}
	st.boundary()
	return st
}

// setPrefix sets the time and process ID of the records st starts to
// copies of ts and pid, which may be parts of the input (collector.keep),
// or none when they are st's already.
func (st *stream) setPrefix(ts, pid string) {
	if ts == st.time && pid == st.pid {
		return
	}
	st.time, st.pid = st.sink.keep(ts), st.sink.keep(pid)
}

// boundary ends a statement.
func (st *stream) boundary() {
	st.end()
	st.open, st.last, st.anlz = -1, -1, -1
}

// end ends the current message part.
func (st *stream) end() {
	st.kind, st.next, st.rec, st.ix = partNone, partNone, -1, -1
	st.whole = false
}

// active reports whether a part is open that continuation lines belong to.
func (st *stream) active() bool { return st.kind != partNone }

// what names the current part for a warning.
func (st *stream) what() string {
	if st.label != "" {
		return st.label
	}
	return "message"
}

// isLabel reports whether s is one of the severities and field names that
// start a line of a message ("INFO:  ...", "DETAIL:  ...") in psql's
// output and server logs. A switch, which the compiler makes a search by
// length and value, where comparing with each in turn cost a server log
// a tenth of its lines' reading.
func isLabel[T string | []byte](s T) bool {
	switch string(s) {
	case "INFO", "DETAIL", "LOG", "WARNING", "ERROR", "NOTICE", "HINT", "CONTEXT",
		"LOCATION", "STATEMENT", "QUERY", "FATAL", "PANIC", "DEBUG", "DEBUG1", "DEBUG2", "DEBUG3", "DEBUG4", "DEBUG5":
		return true
	}
	return false
}

// maxLabel is the length of the longest label.
const maxLabel = len("STATEMENT")

// splitLabel splits "SEVERITY:  message" (a five-character SQLSTATE after
// the label, as VERBOSITY verbose prints it, is dropped).
func splitLabel(s string) (label, msg string, ok bool) {
	if len(s) < 5 || s[0] < 'A' || s[0] > 'Z' {
		return "", "", false
	}
	// ":  " is looked for where a label would end it, not in the whole
	// line: most lines (a summary's) have none.
	i := strings.Index(s[:min(len(s), maxLabel+3)], ":  ")
	if i < 3 || i > maxLabel {
		return "", "", false
	}
	if label = s[:i]; !isLabel(label) {
		return "", "", false
	}
	return label, stripSQLState(s[i+3:]), true
}

// stripSQLState drops a leading "00000: ".
func stripSQLState(s string) string {
	if len(s) < 7 || s[5] != ':' || s[6] != ' ' {
		return s
	}
	for i := 0; i < 5; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return s
		}
	}
	return s[7:]
}

// part handles a labelled line: a message's first line (INFO, LOG,
// WARNING, ...) or the first line of its DETAIL, HINT, CONTEXT, ... raw is
// the line as read, for warnings.
func (st *stream) part(label, msg, raw string, line int) {
	switch label {
	case "DETAIL":
		st.kind, st.label = st.next, "DETAIL"
		st.next = partNone
		if st.kind == partNone {
			st.kind = partIgnore
			return
		}
		if st.kind != partIgnore && !st.cont(msg, line) {
			st.sink.warn(line, raw, "unrecognized line in DETAIL")
		}
		return
	case "HINT", "CONTEXT", "LOCATION", "STATEMENT", "QUERY":
		st.kind, st.next, st.label = partIgnore, partNone, ""
		return
	}
	st.end()
	st.next, st.label = partIgnore, ""
	st.message(label, msg, raw, line)
}

// cont handles a continuation line of the current part; false when the
// line is not understood there.
func (st *stream) cont(s string, line int) bool {
	switch st.kind {
	case partIgnore:
		return true
	case partSummary:
		return st.summaryLine(st.rec, s, line)
	case partIndex:
		return st.indexDetailLine(s, line)
	}
	return false // partDone: the record got its last line
}

// message handles a message's first line.
func (st *stream) message(sev, msg, raw string, line int) {
	switch sev {
	case "ERROR", "FATAL", "PANIC", "WARNING":
		st.kind = partIgnore // an error's LINE and caret lines, say
		if strings.HasPrefix(msg, "bypassing nonessential maintenance of table \"") && st.open >= 0 {
			st.sink.rec(st.open).Failsafe = true
		}
		if !st.log {
			st.sink.warn(line, raw, "server "+sev)
		}
		return
	}
	switch {
	case strings.HasPrefix(msg, "vacuuming \""):
		st.vacuuming(msg[len("vacuuming "):], false, raw, line)
	case strings.HasPrefix(msg, "aggressively vacuuming \""):
		st.vacuuming(msg[len("aggressively vacuuming "):], true, raw, line)
	case strings.HasPrefix(msg, "finished vacuuming \""):
		st.finished(msg, raw, line)
	case strings.HasPrefix(msg, "automatic "):
		st.automatic(msg, raw, line)
	case strings.HasPrefix(msg, "analyzing \""):
		st.analyzing(msg[len("analyzing "):], raw, line)
	case strings.HasPrefix(msg, "finished analyzing table \""):
		st.finishedAnalyzing(msg, raw, line)
	case strings.HasPrefix(msg, "scanned index \""):
		st.scannedIndex(msg, raw, line)
	case strings.HasPrefix(msg, "index \""):
		st.indexContains(msg, raw, line)
	case strings.HasPrefix(msg, "launched ") && strings.Contains(msg, " parallel vacuum worker"):
		// how many parallel workers ran: not recorded
	case strings.HasPrefix(msg, "\"") || strings.HasPrefix(msg, "table \""):
		st.tableMessage(msg, raw, line)
	default:
		st.other(raw, line)
	}
}

// other is a message that is not about vacuuming: a warning, except in a
// server log, which is full of them. Its continuation lines are skipped.
func (st *stream) other(raw string, line int) {
	st.kind = partIgnore
	if !st.log {
		st.sink.warn(line, raw, "not a VACUUM or ANALYZE message")
	}
}
