package vacuum

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// isJSONLog reports whether b is a jsonlog record: jsonlog.c writes the
// key "timestamp" first.
func isJSONLog(b []byte) bool {
	return bytes.HasPrefix(b, []byte(`{"timestamp":"`))
}

// jsonFeed reads jsonlog (15+): one JSON object per line, per message.
type jsonFeed struct {
	out    outLines
	source string
	bad    int // lines that are not records
	lastN  int // the last of them
	// scratch holds a line's text values with their escapes undone.
	scratch []byte
}

// maxBadWarnings is how many lines that are not records are warned of one
// by one; the rest are counted in one warning, so that a file of them does
// not make a warning of each.
const maxBadWarnings = 20

// jsonRecord holds the keys of a jsonlog record that the stderr log
// prints (jsonlog.c writes the others too, and omits empty ones).
type jsonRecord struct {
	Timestamp     string `json:"timestamp"`
	PID           int64  `json:"pid"`
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
	var r jsonRecord
	if !r.scan(b, &j.scratch) {
		r = jsonRecord{}
		if json.Unmarshal(b, &r) != nil {
			r = jsonRecord{}
		}
	}
	if r.Severity == "" || r.Timestamp == "" {
		// A line cut short (a log being written), or not the server's.
		if j.bad++; j.bad <= maxBadWarnings {
			j.out.lr.sink.warn(n, transient(b), "not a jsonlog record (a JSON object with timestamp, pid, error_severity and message)")
		}
		j.lastN = n
		j.out.lr.unlabelled(n, nil)
		return nil
	}
	j.out.message(r.Timestamp, strconv.FormatInt(r.PID, 10), []logField{
		{label: r.Severity, text: r.Message, line: n},
		{label: "DETAIL", text: r.Detail, line: n},
		{label: "HINT", text: r.Hint, line: n},
		{label: "QUERY", text: r.InternalQuery, line: n},
		{label: "CONTEXT", text: r.Context, line: n},
		{label: "STATEMENT", text: r.Statement, line: n},
	})
	return nil
}

func (j *jsonFeed) end() error {
	if more := j.bad - maxBadWarnings; more > 0 {
		j.out.lr.sink.warn(j.lastN, "", fmt.Sprintf("and %d more lines that are not jsonlog records, the last this one", more))
	}
	return nil
}

// scan reads a jsonlog line into r without encoding/json (see
// scanFlat), its text values copied; false when the line is for
// encoding/json.
func (r *jsonRecord) scan(b []byte, scratch *[]byte) bool {
	*scratch = (*scratch)[:0]
	return scanFlat(b, scratch, r.set)
}

// set sets the field of key; false for a value of the wrong kind.
func (r *jsonRecord) set(key, val []byte, str bool) bool {
	var p *string
	switch string(key) {
	case "pid":
		n, err := strconv.ParseInt(string(val), 10, 64)
		r.PID = n
		return !str && err == nil
	case "timestamp":
		p = &r.Timestamp
	case "error_severity":
		p = &r.Severity
	case "message":
		p = &r.Message
	case "detail":
		p = &r.Detail
	case "hint":
		p = &r.Hint
	case "internal_query":
		p = &r.InternalQuery
	case "context":
		p = &r.Context
	case "statement":
		p = &r.Statement
	default:
		return !foldsTo(key, jsonRecordKeys...)
	}
	*p = string(val)
	return str
}

// jsonRecordKeys are the keys set reads.
var jsonRecordKeys = []string{"pid", "timestamp", "error_severity", "message", "detail", "hint", "internal_query", "context", "statement"}
