package vacuum

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/pgstudy/pgstudy/parse"
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
}

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
	if err := json.Unmarshal(b, &r); err != nil || r.Severity == "" || r.Timestamp == "" {
		// A line cut short (a log being written), or not the server's.
		j.out.lr.sink.warn(n, parse.Quote(string(b)), "not a jsonlog record (a JSON object with timestamp, pid, error_severity and message)")
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

func (j *jsonFeed) end() error { return nil }
