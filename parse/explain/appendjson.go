package explain

import "github.com/pgstudy/pgstudy/parse/internal/jsonw"

// planJSON writes a Plan from its fields' json tags; errPlanJSON is why it
// cannot (a field of a kind jsonw does not know), and then AppendJSON
// fails on every plan and encoding/json writes them all.
var planJSON, errPlanJSON = jsonw.NewStruct[Plan]()

// AppendJSON appends p as an encoding/json Encoder with
// SetEscapeHTML(false) writes it (without the newline): pgstudy parse
// writes a plan of a hundred thousand nodes, where encoding/json's
// reflection cost more than parsing it. It fails with
// jsonw.ErrUnsupported where encoding/json fails or where it must write
// p (a NaN figure, an Extra value of a type no decoder gives), for the
// caller to let encoding/json write p. TestAppendJSON checks it against
// encoding/json on every fixture's plan.
func (p *Plan) AppendJSON(b []byte) ([]byte, error) {
	if p == nil {
		return append(b, "null"...), nil
	}
	if errPlanJSON != nil {
		return b, errPlanJSON
	}
	return planJSON.Append(b, p)
}

// Record is a plan with its shape and fingerprint, which the plan itself
// computes rather than stores: what pgstudy parse writes of a plan.
type Record struct {
	Shape       string `json:"shape"`
	Fingerprint string `json:"fingerprint"`
	Plan        *Plan  `json:"plan"`
}

// NewRecord is p's record.
func NewRecord(p *Plan) *Record {
	return &Record{Shape: p.Shape(), Fingerprint: p.Fingerprint(), Plan: p}
}

var recordJSON, errRecordJSON = jsonw.NewStruct[Record]()

// AppendJSON appends r as Plan.AppendJSON appends a plan.
func (r *Record) AppendJSON(b []byte) ([]byte, error) {
	if errRecordJSON != nil {
		return b, errRecordJSON
	}
	return recordJSON.Append(b, r)
}
