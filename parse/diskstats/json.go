package diskstats

import "github.com/pgstudy/pgstudy/parse/internal/jsonw"

// countersJSON writes a Counters from its fields' json tags;
// errCountersJSON is why it cannot (a field of a kind jsonw does not
// know), and then AppendJSON fails on every record and encoding/json
// writes them all.
var countersJSON, errCountersJSON = jsonw.NewStruct[Counters]()

// AppendJSON appends d as an encoding/json Encoder with
// SetEscapeHTML(false) writes it (without the newline): the fields in the
// struct's order, an absent group left out. pgstudy parse writes a record
// a device line, so a long series of snapshots is millions of them, and
// encoding/json's reflection cost several times what parsing them did.
// Its error is nil but where the plan could not be made (a Counters holds
// no float). TestAppendJSON checks it against encoding/json.
func (d Counters) AppendJSON(b []byte) ([]byte, error) {
	if errCountersJSON != nil {
		return b, errCountersJSON
	}
	return countersJSON.Append(b, &d)
}
