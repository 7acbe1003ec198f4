package vacuum

import (
	"bytes"
)

// A server log is read in the format its first line that is not blank is
// written in: csvlog (csvlog.go), jsonlog (jsonlog.go), syslog or journald
// (syslog.go), or else stderr. The other formats are read by turning each
// message back into the lines the stderr log prints for it (a prefix
// '%m [%p] ', "SEVERITY:  ", the message's further lines each after a
// tab, then DETAIL, HINT, QUERY, CONTEXT and STATEMENT lines), which the
// stderr reader reads: one reader, so the same entries give the same
// records in every format.

// feed reads the lines of a log that is not in the stderr format.
type feed interface {
	line(n int, b []byte) error
	end() error
}

// newFeed is the feed for a log whose first line that is not blank is b,
// or nil for the stderr format.
func newFeed(lr *logReader, source string, b []byte) feed {
	switch {
	case isJSONLog(b):
		return &jsonFeed{out: outLines{lr: lr, looked: map[string]bool{}}, source: source}
	case isCSVLog(b):
		return &csvFeed{out: outLines{lr: lr, looked: map[string]bool{}}, source: source}
	case isSyslog(b):
		return &syslogFeed{lr: lr, looked: map[string]bool{}}
	}
	return nil
}

// logField is a field of a csvlog or jsonlog record that the stderr log
// prints: its label, its text, and the line of the file its text starts
// on; a csvlog field's further lines are the file's next lines, a jsonlog
// field's are all on its record's line. The bytes are the record's (or
// its parser's buffer's): they are read before the next record.
type logField struct {
	label []byte
	text  []byte
	line  int
	spans bool
}

// The labels of a message's fields after the first, as the stderr log
// prints them.
var (
	labelDetail    = []byte("DETAIL")
	labelHint      = []byte("HINT")
	labelQuery     = []byte("QUERY")
	labelContext   = []byte("CONTEXT")
	labelStatement = []byte("STATEMENT")
)

// outLines hands a csvlog or jsonlog record to the stderr reader.
type outLines struct {
	lr     *logReader
	looked map[string]bool
	buf    []byte
}

// message hands one message to the stderr reader as the stderr log prints
// it, with the prefix '%m [%p] ': the time and process ID as the record
// has them. The message's first field is its severity's.
func (o *outLines) message(time, pid []byte, fields []logField) {
	for k, f := range fields {
		if k > 0 && len(f.text) == 0 {
			continue
		}
		n := f.line
		text := bytes.TrimSuffix(f.text, newline)
		for i := 0; ; i++ {
			l, rest, more := bytes.Cut(text, newline)
			o.buf = o.buf[:0]
			if i == 0 {
				o.buf = append(o.buf, time...)
				o.buf = append(o.buf, " ["...)
				o.buf = append(o.buf, pid...)
				o.buf = append(o.buf, "] "...)
				o.buf = append(o.buf, f.label...)
				o.buf = append(o.buf, ":  "...)
			} else {
				o.buf = append(o.buf, '\t')
				if f.spans {
					n++
				}
			}
			o.buf = append(o.buf, l...)
			o.lr.line(n, o.buf, o.looked)
			if !more {
				break
			}
			text = rest
		}
	}
}

var newline = []byte{'\n'}

// isDigits reports whether b is one or more ASCII digits.
func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// shape reports whether b starts with the shape s, where 'd' is a digit,
// 'a' a letter, '_' a space or a digit, and any other byte itself.
func shape(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := b[i]
		switch s[i] {
		case 'd':
			if !isDigit(c) {
				return false
			}
		case 'a':
			if !isLetter(c) {
				return false
			}
		case '_':
			if c != ' ' && !isDigit(c) {
				return false
			}
		default:
			if c != s[i] {
				return false
			}
		}
	}
	return true
}
