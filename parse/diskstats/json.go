package diskstats

import "github.com/pgstudy/pgstudy/parse/internal/jsonw"

// AppendJSON appends d as an encoding/json Encoder with
// SetEscapeHTML(false) writes it (without the newline): the fields in the
// struct's order, an absent group left out. pgstudy parse writes a record
// a device line, so a long series of snapshots is millions of them, and
// encoding/json's reflection cost several times what parsing them did.
// Its error is always nil (a Counters holds no float); it is there for
// the shape the command's records share. TestAppendJSON checks it against
// encoding/json.
func (d Counters) AppendJSON(b []byte) ([]byte, error) {
	e := jsonw.Enc{B: b}
	e.Open()
	e.Uint("major", uint64(d.Major))
	e.Uint("minor", uint64(d.Minor))
	e.String("name", d.Name)
	e.Int("fields", int64(d.Fields))
	e.Uint("reads_completed", d.ReadsCompleted)
	e.Uint("reads_merged", d.ReadsMerged)
	e.Uint("read_sectors", d.ReadSectors)
	e.Uint("read_time_ms", d.ReadTimeMs)
	e.Uint("writes_completed", d.WritesCompleted)
	e.Uint("writes_merged", d.WritesMerged)
	e.Uint("write_sectors", d.WriteSectors)
	e.Uint("write_time_ms", d.WriteTimeMs)
	e.Uint("in_flight", d.InFlight)
	e.Uint("io_time_ms", d.IOTimeMs)
	e.Uint("weighted_io_time_ms", d.WeightedIOTimeMs)
	if x := d.Discards; x.Valid {
		e.OpenObject("discards")
		e.Uint("completed", x.V.Completed)
		e.Uint("merged", x.V.Merged)
		e.Uint("sectors", x.V.Sectors)
		e.Uint("time_ms", x.V.TimeMs)
		e.Close()
	}
	if x := d.Flushes; x.Valid {
		e.OpenObject("flushes")
		e.Uint("completed", x.V.Completed)
		e.Uint("time_ms", x.V.TimeMs)
		e.Close()
	}
	e.Close()
	return e.B, e.Err
}
