package vacuum

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// isJSONLog reports whether b is a jsonlog record: jsonlog.c writes the
// key "timestamp" first; a log shipper that rewrites the lines may put
// blanks after the colons or the keys in another order, so an object
// with the keys "timestamp" and "error_severity" anywhere is one too.
func isJSONLog(b []byte) bool {
	if bytes.HasPrefix(b, []byte(`{"timestamp":"`)) {
		return true
	}
	b = bytes.TrimSpace(b)
	return len(b) > 2 && b[0] == '{' && b[len(b)-1] == '}' &&
		bytes.Contains(b, []byte(`"timestamp"`)) && bytes.Contains(b, []byte(`"error_severity"`))
}

// jsonFeed reads jsonlog (15+): one JSON object per line, per message.
type jsonFeed struct {
	out    outLines
	source string
	bad    int // lines that are not records
	lastN  int // the last of them
	// scratch holds a line's text values with their escapes undone.
	scratch []byte
	rec     jsonText // the line's record
	pid     []byte   // its process ID's digits
}

// maxBadWarnings is how many lines that are not records are warned of one
// by one; the rest are counted in one warning, so that a file of them does
// not make a warning of each.
const maxBadWarnings = 20

// jsonRecord holds the keys of a jsonlog record that the stderr log
// prints (jsonlog.c writes the others too, and omits empty ones).
type jsonRecord struct {
	Timestamp     string `json:"timestamp"`
	PID           *int64 `json:"pid"`
	Severity      string `json:"error_severity"`
	Message       string `json:"message"`
	Detail        string `json:"detail"`
	Hint          string `json:"hint"`
	InternalQuery string `json:"internal_query"`
	Context       string `json:"context"`
	Statement     string `json:"statement"`
}

func (j *jsonFeed) line(n int, b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	r := &j.rec
	why := "not a jsonlog record (a JSON object with timestamp, pid, error_severity and message)"
	if !r.scan(b, &j.scratch) {
		var std jsonRecord
		if err := json.Unmarshal(b, &std); err != nil {
			std = jsonRecord{}
			var te *json.UnmarshalTypeError
			var se *json.SyntaxError
			switch {
			case errors.As(err, &te):
				why = fmt.Sprintf("a jsonlog record whose %s is a JSON %s, where jsonlog writes %s: left out", te.Field, te.Value, jsonKind(te.Type.Kind()))
			case errors.As(err, &se):
				why = brokenJSON(b, se)
			}
		}
		r.from(&std)
	}
	if len(r.severity) > 0 && len(r.timestamp) > 0 && !r.hasPID {
		why = "a jsonlog record without its process ID (pid missing or null): left out"
	}
	if r.hasPID && r.pid <= 0 {
		why = fmt.Sprintf("a jsonlog record whose pid is %d, not a process ID (a positive integer): left out", r.pid)
		r.hasPID = false
	}
	if len(r.severity) == 0 || len(r.timestamp) == 0 || !r.hasPID {
		// A line cut short (a log being written), or not the server's.
		if j.bad++; j.bad <= maxBadWarnings {
			j.out.lr.sink.warn(n, transient(b), why)
		}
		j.lastN = n
		j.out.lr.unlabelled(n, nil)
		return nil
	}
	j.pid = strconv.AppendInt(j.pid[:0], r.pid, 10)
	j.out.message(r.timestamp, j.pid, []logField{
		{label: r.severity, text: r.message, line: n},
		{label: labelDetail, text: r.detail, line: n},
		{label: labelHint, text: r.hint, line: n},
		{label: labelQuery, text: r.internalQuery, line: n},
		{label: labelContext, text: r.context, line: n},
		{label: labelStatement, text: r.statement, line: n},
	})
	return nil
}

// brokenJSON says why line b, which encoding/json refused with se, is
// not a jsonlog record: jsonlog writes a record a line, every control
// character in a value escaped, so a raw one (a tab, a line break that
// cut the record in two) is a log rewritten or written by another tool.
func brokenJSON(b []byte, se *json.SyntaxError) string {
	const what = "not a jsonlog record (a JSON object a line, with timestamp, pid, error_severity and message): "
	trimmed := bytes.TrimSpace(b)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '{' && trimmed[len(trimmed)-1] != '}':
		return what + "an object not ended on its line, a record cut short or broken over lines (a raw line break inside a value, which jsonlog writes as \\n?)"
	case len(trimmed) > 0 && trimmed[0] != '{' && trimmed[len(trimmed)-1] == '}':
		return what + "the end of an object without its start, the rest of a record broken over lines (a raw line break inside a value, which jsonlog writes as \\n?)"
	case se.Offset > 0 && se.Offset <= int64(len(b)) && b[se.Offset-1] < 0x20:
		return fmt.Sprintf("%sa raw control character (byte 0x%02x) inside a value at byte %d, where jsonlog writes an escape", what, b[se.Offset-1], se.Offset)
	}
	return fmt.Sprintf("%s%v", what, se)
}

func (j *jsonFeed) end() error {
	if more := j.bad - maxBadWarnings; more > 0 {
		j.out.lr.sink.warn(j.lastN, "", fmt.Sprintf("and %d more lines that are not jsonlog records, the last this one", more))
	}
	return nil
}

// jsonText is a jsonlog record's fields that jsonRecord names, as its
// line (or the scanner's scratch buffer) holds them: read before the
// next line.
type jsonText struct {
	pid                                                                           int64
	hasPID                                                                        bool
	timestamp, severity, message, detail, hint, internalQuery, context, statement []byte
}

// scan reads a jsonlog line into r without encoding/json (see
// scanFlat); false when the line is for encoding/json.
func (r *jsonText) scan(b []byte, scratch *[]byte) bool {
	*r = jsonText{}
	*scratch = (*scratch)[:0]
	return scanFlat(b, scratch, r.set)
}

// set sets the field of key; false for a value of the wrong kind.
func (r *jsonText) set(key, val []byte, str bool) bool {
	var p *[]byte
	switch string(key) {
	case "pid":
		n, err := strconv.ParseInt(string(val), 10, 64)
		r.pid, r.hasPID = n, !str && err == nil
		return r.hasPID
	case "timestamp":
		p = &r.timestamp
	case "error_severity":
		p = &r.severity
	case "message":
		p = &r.message
	case "detail":
		p = &r.detail
	case "hint":
		p = &r.hint
	case "internal_query":
		p = &r.internalQuery
	case "context":
		p = &r.context
	case "statement":
		p = &r.statement
	default:
		return !foldsTo(key, jsonRecordKeys...)
	}
	*p = val
	return str
}

// from sets r to what encoding/json read.
func (r *jsonText) from(std *jsonRecord) {
	*r = jsonText{timestamp: []byte(std.Timestamp), severity: []byte(std.Severity),
		message: []byte(std.Message), detail: []byte(std.Detail), hint: []byte(std.Hint),
		internalQuery: []byte(std.InternalQuery), context: []byte(std.Context), statement: []byte(std.Statement)}
	if std.PID != nil {
		r.pid, r.hasPID = *std.PID, true
	}
}

// jsonKind names what jsonlog writes for a field of Go kind k.
func jsonKind(k reflect.Kind) string {
	if k == reflect.String {
		return "a string"
	}
	return "an integer"
}

// jsonRecordKeys are the keys set reads.
var jsonRecordKeys = []string{"pid", "timestamp", "error_severity", "message", "detail", "hint", "internal_query", "context", "statement"}
