package vacuum

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/pgstudy/pgstudy/parse"
)

// csvlog's columns (elog.c's write_csvlog up to 14, csvlog.c from 15):
// log_time, user_name, database_name, process_id, connection_from,
// session_id, session_line_num, command_tag, session_start_time,
// virtual_transaction_id, transaction_id, error_severity, sql_state_code,
// message, detail, hint, internal_query, internal_query_pos, context,
// query, query_pos, location, application_name; then backend_type (13+),
// leader_pid and query_id (14+). The columns read are the same in every
// version; a record has at least 23.
const (
	csvTime          = 0
	csvPID           = 3
	csvSeverity      = 11
	csvMessage       = 13
	csvDetail        = 14
	csvHint          = 15
	csvInternalQuery = 16
	csvContext       = 18
	csvQuery         = 19
	csvMinColumns    = 23
)

// isCSVLog reports whether b is a csvlog record's first line: a log_time
// ("2024-05-01 12:00:00.123 UTC"), then a comma, and a process ID in the
// fourth column.
func isCSVLog(b []byte) bool {
	var f csvFields
	return f.csvStart(b)
}

// csvStart is isCSVLog, its columns split into f.
func (f *csvFields) csvStart(b []byte) bool {
	if !shape(b, "dddd-dd-dd dd:dd:dd") {
		return false
	}
	f.split(b)
	return len(f.cols) > csvPID && isDigits(f.cols[csvPID]) && bytes.IndexByte(f.cols[csvTime], ' ') > 0
}

// startsRecord reports whether line b, met inside a quoted field, is
// rather the first line of a record: a csvlog line whose columns go on at
// least to the message (which starts there, or goes on over lines), with
// a severity in capitals. A line of a message shaped like a record's
// start (a logged INSERT of a csv line) seldom is all of these.
func (c *csvFeed) startsRecord(b []byte) bool {
	f := &c.f
	if !f.csvStart(b) {
		return false
	}
	if len(f.cols) <= csvMessage || len(f.cols[csvSeverity]) == 0 {
		return false
	}
	for _, ch := range f.cols[csvSeverity] {
		if ch < 'A' || ch > 'Z' {
			return false
		}
	}
	return true
}

// shortWhole reports whether line b, which startsRecord split, is a whole
// record by its quotes but of fewer columns than any server writes: a
// line of the quoted field it is met in (a logged csvlog line, its quotes
// doubled), not a record after one cut short. A record's first line
// that is whole has them all; one that goes on over lines ends inside a
// quote, and is taken as a record's start.
func (c *csvFeed) shortWhole(b []byte) bool {
	return bytes.Count(b, []byte{'"'})%2 == 0 && len(c.f.cols) < csvMinColumns
}

// csvFeed reads csvlog: quoted CSV, one record per message, whose quoted
// fields (message, detail, ...) hold their newlines, so that a record
// spans lines. A record longer than parse.MaxLine (a statement of 100 MiB
// logged whole) is dropped as it is read, its quotes still counted to
// find its end, and left out with a warning, as a line that long is.
type csvFeed struct {
	out    outLines
	source string
	rec    []byte // the record so far, its lines joined by "\n"
	start  int    // the line it starts on
	quoted bool   // inside a quoted field at the end of rec
	f      csvFields
	// dropped is the length of the record being dropped (0: none), head
	// its first line's excerpt.
	dropped int
	head    string
}

func (c *csvFeed) line(n int, b []byte) error {
	if c.quoted && len(b) > 0 && b[0] >= '0' && b[0] <= '9' && c.startsRecord(b) && !c.shortWhole(b) {
		// A record's first line where a quoted field should go on: that
		// field never ended (a record cut short, a quote lost). The
		// record is left out here, at its own line, rather than joined
		// with the ones after it until the end of the log.
		c.leaveOut(fmt.Sprintf("a csvlog record whose quoted field does not end before the next record, at line %d: left out", n))
	}
	if len(c.rec) == 0 && !c.quoted {
		c.start = n
	} else if c.dropped == 0 {
		c.rec = append(c.rec, '\n')
	}
	if c.dropped == 0 && len(c.rec)+len(b) > parse.MaxLine {
		c.head, c.dropped = parse.Excerpt(firstLine(c.rec)), len(c.rec)
		c.rec = nil // its memory goes
	}
	if c.dropped > 0 {
		c.dropped += len(b) + 1
	} else {
		c.rec = append(c.rec, b...)
	}
	if bytes.Count(b, []byte{'"'})%2 == 1 {
		c.quoted = !c.quoted
	}
	switch {
	case c.quoted:
	case c.dropped > 0:
		c.leaveOut(fmt.Sprintf("a csvlog record of %d bytes, longer than %d MiB: left out", c.dropped-1, parse.MaxLine>>20))
	default:
		c.record()
		c.rec = c.rec[:0]
	}
	return nil
}

// leaveOut warns, with msg, of the record being read, which is left out.
func (c *csvFeed) leaveOut(msg string) {
	head := c.head
	if c.dropped == 0 {
		head = string(transient(firstLine(c.rec)))
	}
	c.out.lr.sink.warn(c.start, head, msg)
	c.rec, c.quoted, c.dropped, c.head = c.rec[:0], false, 0, ""
}

// end warns of a record the log ends inside (a log still being written,
// or cut short), which is left out, as a jsonlog's last line cut short is.
func (c *csvFeed) end() error {
	if c.quoted {
		c.leaveOut("a csvlog record whose quoted field does not end before the end of the log (cut short, or still being written?): left out")
	}
	return nil
}

// record hands a whole record to the stderr reader. One with too few
// columns is a line that is not the server's.
func (c *csvFeed) record() {
	f := &c.f
	f.split(c.rec)
	if len(f.cols) >= csvMinColumns && !isPID(f.cols[csvPID]) && isDigits(f.cols[0][:min(4, len(f.cols[0]))]) {
		c.out.lr.sink.warn(c.start, transient(firstLine(c.rec)), fmt.Sprintf("a csvlog record whose process ID (its 4th column) is %s, not a process ID (a positive integer): left out", parse.Quote(string(f.cols[csvPID]))))
		return
	}
	if len(f.cols) < csvMinColumns || !isPID(f.cols[csvPID]) {
		if len(f.cols) > 2 && len(f.cols[0]) >= 4 && isDigits(f.cols[0][:4]) {
			// A record cut short, or from another program: a server's
			// record it would be wrong to skip without a word.
			c.out.lr.sink.warn(c.start, transient(firstLine(c.rec)), fmt.Sprintf("a csvlog record of %d columns; expected at least %d (PostgreSQL 13 writes 24, 14 and later 26): left out", len(f.cols), csvMinColumns))
			return
		}
		c.out.lr.unlabelled(c.start, c.rec)
		return
	}
	field := func(label []byte, col int) logField {
		return logField{label: label, text: f.col(col), line: c.start + f.lines[col], spans: true}
	}
	c.out.message(f.col(csvTime), f.col(csvPID), []logField{
		field(f.col(csvSeverity), csvMessage),
		field(labelDetail, csvDetail),
		field(labelHint, csvHint),
		field(labelQuery, csvInternalQuery),
		field(labelContext, csvContext),
		field(labelStatement, csvQuery),
	})
}

// isPID reports whether b is a process ID: digits, not all zeros.
func isPID(b []byte) bool {
	return isDigits(b) && len(bytes.Trim(b, "0")) > 0
}

// csvFields are a record's columns, unquoted, and the line of the record
// each starts on (from 0). A column is the record's own bytes, or buf's
// where a quote was doubled.
type csvFields struct {
	cols  [][]byte
	lines []int
	buf   []byte
}

// split splits a record (or its first line) into columns; "" in a quoted
// column is a quote. A quoted column is read a run between quotes at a
// time: a message is mostly text.
func (f *csvFields) split(b []byte) {
	f.cols, f.lines = f.cols[:0], f.lines[:0]
	// Unquoting only shortens: buf, as long as b, seldom grows (and a
	// column cut from it before it grew keeps bytes nothing writes again).
	f.buf = slices.Grow(f.buf[:0], len(b))
	line := 0
	for i := 0; i <= len(b); {
		f.lines = append(f.lines, line)
		var col []byte
		if i < len(b) && b[i] == '"' {
			col, i = f.quoted(b, i+1)
			line += bytes.Count(col, newline)
		}
		// A byte at a time: the columns not quoted are short (a time,
		// a process ID, most of them empty), where a call of
		// bytes.IndexByte a column cost more than the loop.
		j := 0
		for i+j < len(b) && b[i+j] != ',' {
			j++
		}
		switch {
		case col == nil:
			col = b[i : i+j : i+j]
		case j > 0: // text after the closing quote: joined, as a reader of CSV would
			start := len(f.buf)
			f.buf = append(f.buf, col...)
			f.buf = append(f.buf, b[i:i+j]...)
			col = f.buf[start:len(f.buf):len(f.buf)]
		}
		f.cols = append(f.cols, col)
		i += j + 1
	}
}

// quoted reads a quoted column whose text starts at b[i]: its text, and
// the index after its closing quote (len(b) when it has none).
func (f *csvFields) quoted(b []byte, i int) (col []byte, next int) {
	q := bytes.IndexByte(b[i:], '"')
	if q < 0 {
		return b[i:len(b):len(b)], len(b)
	}
	if i+q+1 >= len(b) || b[i+q+1] != '"' {
		return b[i : i+q : i+q], i + q + 1 // no doubled quote: the bytes themselves
	}
	start := len(f.buf)
	for {
		f.buf = append(f.buf, b[i:i+q]...)
		i += q + 1
		if i < len(b) && b[i] == '"' { // a doubled quote
			f.buf = append(f.buf, '"')
			i++
		} else {
			break
		}
		if q = bytes.IndexByte(b[i:], '"'); q < 0 {
			f.buf = append(f.buf, b[i:]...)
			i = len(b)
			break
		}
	}
	return f.buf[start:len(f.buf):len(f.buf)], i
}

// col is column i, or nil when the record has fewer.
func (f *csvFields) col(i int) []byte {
	if i >= len(f.cols) {
		return nil
	}
	return f.cols[i]
}

// firstLine is a record's first line, as a warning quotes it.
func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}
