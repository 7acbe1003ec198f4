package vacuum

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// driver received them (see ReadNotices), and returns the records Parse
// returns for the same run printed by psql. A record's Line, and a
// warning's, is the 1-based position of its notice in notices. Notices
// without any VACUUM VERBOSE message are an error.
func Notices(notices []Notice, source string) ([]Record, []parse.Warning, error) {
	if len(notices) == 0 {
		return nil, nil, parse.Errorf(source, 0, "no notices; expected the messages of VACUUM (VERBOSE)")
	}
	sink := &collector{source: source}
	st := newStream(sink, false)
	first := len(sink.warns)
	for i, nt := range notices {
		n := i + 1
		sev := nt.Severity
		if sev == "" {
			sev = "INFO"
		}
		msg, rest, more := strings.Cut(nt.Message, "\n")
		st.part(sev, msg, msg, n)
		for more {
			var l string
			l, rest, more = strings.Cut(rest, "\n")
			if !st.cont(l, n) && st.active() {
				sink.warn(n, l, "unrecognized line in "+st.what())
			}
		}
		if nt.Detail != "" {
			d, rest, more := strings.Cut(nt.Detail, "\n")
			st.part("DETAIL", d, d, n)
			for more {
				var l string
				l, rest, more = strings.Cut(rest, "\n")
				if !st.cont(l, n) && st.active() {
					sink.warn(n, l, "unrecognized line in "+st.what())
				}
			}
		}
		st.end()
	}
	if err := sink.foreignError(); err != nil {
		return nil, nil, err
	}
	if len(sink.recs) == 0 {
		if len(sink.warns) > first {
			w := sink.warns[first]
			return nil, nil, parse.Errorf(source, w.Line, "expected the messages of VACUUM (VERBOSE) (vacuuming \"table\"), found %s", parse.Quote(w.Text))
		}
		return nil, nil, parse.Errorf(source, 0, "no VACUUM (VERBOSE) message (vacuuming \"table\") among %d notices; was VERBOSE given?", len(notices))
	}
	sink.finish()
	return sink.result(), sink.warns, nil
}

// ReadNotices reads notices as JSON Lines, one object a line with the fields
// of Notice ({"severity":"INFO","code":"00000","message":...}); other
// fields are ignored and blank lines skipped. A line that is not such an
// object is an error, and so is input without any notice.
func ReadNotices(r io.Reader, source string) ([]Notice, error) {
	ls := parse.NewLines(r, source)
	var out []Notice
	for ls.Next() {
		b := bytes.TrimSpace(ls.Bytes())
		if len(b) == 0 {
			continue
		}
		if b[0] != '{' {
			return nil, parse.Errorf(source, ls.Line(), "expected a JSON object (a notice), found %s", parse.Quote(string(b)))
		}
		var nt Notice
		if err := json.Unmarshal(b, &nt); err != nil {
			return nil, parse.Errorf(source, ls.Line(), "notice: %v", err)
		}
		if nt.Message == "" && nt.Severity == "" {
			return nil, parse.Errorf(source, ls.Line(), "expected a notice with a severity and a message, found %s", parse.Quote(string(b)))
		}
		out = append(out, nt)
	}
	if err := ls.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, parse.Errorf(source, 0, "empty input; expected notices as JSON lines")
	}
	return out, nil
}
