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
	if !r.scan(b) {
		r = jsonRecord{}
		if json.Unmarshal(b, &r) != nil {
			r = jsonRecord{}
		}
	}
	if r.Severity == "" || r.Timestamp == "" {
		// A line cut short (a log being written), or not the server's.
		if j.bad++; j.bad <= maxBadWarnings {
			j.out.lr.sink.warn(n, string(b), "not a jsonlog record (a JSON object with timestamp, pid, error_severity and message)")
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

// scan reads a jsonlog line into r without encoding/json, which costs
// most of the reading: jsonlog.c writes a flat object of string and
// integer values. false for any other shape (the caller then decodes it
// with encoding/json, which says what is wrong).
func (r *jsonRecord) scan(b []byte) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	i := 1
	for i < len(b)-1 {
		if b[i] != '"' {
			return false
		}
		end := bytes.IndexByte(b[i+1:], '"')
		if end < 0 || i+end+2 >= len(b) || b[i+end+2] != ':' {
			return false
		}
		key := b[i+1 : i+1+end]
		i += end + 3
		var val []byte
		var str, ok bool
		val, i, str, ok = jsonValue(b, i)
		if !ok {
			return false
		}
		if !r.set(key, val, str) {
			return false
		}
		if b[i] == ',' {
			i++
		} else if i != len(b)-1 {
			return false
		}
	}
	return true
}

// jsonValue reads the value at b[i]: a string (val is its text, escapes
// undone) or a number; next is the index after it.
func jsonValue(b []byte, i int) (val []byte, next int, str, ok bool) {
	if i >= len(b) {
		return nil, i, false, false
	}
	if b[i] != '"' {
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' {
			j++
		}
		return b[i:j], j, false, j > i
	}
	j := i + 1
	for j < len(b) && b[j] != '"' && b[j] != '\\' {
		j++
	}
	if j < len(b) && b[j] == '"' {
		return b[i+1 : j], j + 1, true, true // no escapes: the bytes themselves
	}
	end := j
	for end < len(b) && b[end] != '"' {
		if b[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(b) {
		return nil, end, false, false
	}
	out, ok := unescapeJSON(b[i+1 : end])
	return out, end + 1, true, ok
}

// unescapeJSON undoes a JSON string's escapes; false for \u (rare in a
// server's messages: encoding/json then reads the line) or a bad escape.
func unescapeJSON(b []byte) ([]byte, bool) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i++; i == len(b) {
			return nil, false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			return nil, false
		}
	}
	return out, true
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
		return true
	}
	*p = string(val)
	return str
}
