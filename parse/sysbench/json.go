package sysbench

import "github.com/pgstudy/pgstudy/parse/internal/jsonw"

// The JSON of a Record: "kind" and "line", then the fields of its part,
// in one object. MarshalJSON writes it through encoding/json, AppendJSON
// through jsonw's plans of the same types, several times faster;
// TestAppendJSON checks that they agree on every fixture's records.

// messageText is a message record's own field.
type messageText struct {
	Text string `json:"text"`
}

// The plans of a record's parts, made once; a plan that cannot be made
// fails every AppendJSON of its kind, and encoding/json writes them.
var (
	intervalJSON = jsonw.For[Interval]()
	messageJSON  = jsonw.For[messageText]()
	runJSON      = jsonw.For[Run]()
	noJSON       = jsonw.For[struct{}]()
)

// MarshalJSON writes the record as one flat object.
func (r Record) MarshalJSON() ([]byte, error) {
	kind := string(r.Kind)
	switch {
	case r.Kind == KindInterval:
		return jsonw.MarshalTagged(kind, r.Line, &r.Interval)
	case r.Kind == KindMessage:
		return jsonw.MarshalTagged(kind, r.Line, messageText{r.Text})
	case r.Kind == KindSummary && r.Run != nil:
		return jsonw.MarshalTagged(kind, r.Line, r.Run)
	}
	return jsonw.MarshalTagged(kind, r.Line, struct{}{})
}

// AppendJSON appends r as an encoding/json Encoder with
// SetEscapeHTML(false) writes it (without the newline): pgstudy parse
// writes a record an interval line, and encoding/json's reflection cost
// more than reading the line did. It fails where encoding/json fails (a
// NaN), for the caller to let encoding/json write the record and report
// its error.
func (r *Record) AppendJSON(b []byte) ([]byte, error) {
	kind := string(r.Kind)
	switch {
	case r.Kind == KindInterval:
		return jsonw.AppendTagged(b, kind, r.Line, intervalJSON, &r.Interval)
	case r.Kind == KindMessage:
		return jsonw.AppendTagged(b, kind, r.Line, messageJSON, &messageText{r.Text})
	case r.Kind == KindSummary && r.Run != nil:
		return jsonw.AppendTagged(b, kind, r.Line, runJSON, r.Run)
	}
	return jsonw.AppendTagged(b, kind, r.Line, noJSON, &struct{}{})
}
