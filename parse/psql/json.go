package psql

import "github.com/pgstudy/pgstudy/parse/internal/jsonw"

// recordJSON writes a Record from its fields' json tags; errRecordJSON is
// why it cannot (a field of a kind jsonw does not know), and then
// AppendJSON fails on every record and encoding/json writes them all.
var recordJSON, errRecordJSON = jsonw.NewStruct[Record]()

// AppendJSON appends r as an encoding/json Encoder with
// SetEscapeHTML(false) writes it (without the newline), the fields in the
// structs' order and omitted as their tags say: pgstudy parse psql writes
// a record a statement, and encoding/json's reflection cost more than
// reading them. It fails with jsonw.ErrUnsupported where encoding/json
// fails (a NaN or infinite figure, which parseTime does not make), for the
// caller to let encoding/json write the record and report its error.
// TestAppendJSON checks it against encoding/json on every fixture's
// records.
func (r *Record) AppendJSON(b []byte) ([]byte, error) {
	if errRecordJSON != nil {
		return b, errRecordJSON
	}
	return recordJSON.Append(b, r)
}
