package vacuum

import (
	"fmt"
	"iter"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
)

// How the readers hand out their records as they read (AutovacuumSeq,
// ParseSeq, NoticesSeq; Parse and Notices collect what is handed out), and what
// bounds the state they keep: a record is handed out once no line to come
// can add to it, and a record that waits too long for its end is let go.

// maxHeld bounds the records held back behind one still being read.
const maxHeld = 4096

// maxBackends is how many backends' streams AutovacuumSeq keeps before
// it forgets those that name no record.
const maxBackends = 1024

// collectAll runs read, which hands out records and warnings, and returns
// them all: the records in order, the warnings in the order found, but
// those of records without a summary last.
//
// The records are allocated where they are returned (output.keep), in
// the order they are handed out: copying each into a slice at the end
// was an eighth of the time of Parse and Notices (a record was 576 bytes,
// copied under the write barrier while the collector marks).
func collectAll(read func(*output) error) ([]Record, []parse.Warning, error) {
	var rows batch.Rows[Record]
	handed := 0
	var warns, late []parse.Warning
	out := output{
		record: func(*Record) bool { handed++; return true },
		warn:   func(w parse.Warning) { warns = append(warns, w) },
		late:   func(w parse.Warning) { late = append(late, w) },
		keep:   &rows,
	}
	if err := read(&out); err != nil {
		return nil, nil, err
	}
	if handed != rows.Len() {
		// Every record read is handed out once, in the order read: a
		// reader that did not would return records it dropped.
		panic(fmt.Sprintf("vacuum: %d records read, %d handed out", rows.Len(), handed))
	}
	all := rows.All()
	if all == nil {
		all = []Record{} // no records is an empty list, not null, in JSON
	}
	return all, append(warns, late...), nil
}

// seqOf yields the records read hands out as it reads them, within
// maxHeld, and hands its warnings to warn (when not nil) as they come; an
// error is the last pair. A consumer that stops stops read. The warnings
// found before the first record wait for it (up to maxHeld of them), so
// that an input of another kind, an error, gives its error alone, as it
// does read whole.
func seqOf(read func(*output) error, warn func(parse.Warning)) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		if warn == nil {
			warn = func(parse.Warning) {}
		}
		var early []parse.Warning
		started := false
		start := func() {
			for _, w := range early {
				warn(w)
			}
			early, started = nil, true
		}
		hold := func(w parse.Warning) {
			if started {
				warn(w)
				return
			}
			if early = append(early, w); len(early) > maxHeld {
				start()
			}
		}
		out := output{
			record: func(r *Record) bool {
				if !started {
					start()
				}
				return yield(*r, nil)
			},
			warn:  hold,
			late:  hold,
			limit: maxHeld,
		}
		err := read(&out)
		switch {
		case out.stopped:
		case err != nil:
			yield(Record{}, err)
		default:
			start() // the warnings of an input without records
		}
	}
}

// holder is a reader that may add to the records it names.
type holder interface {
	firstHeld() int // the first record it names, or the next record's number
	letGo(i int)    // forget record i
}

// handOutHeld hands out the records before the first that h still names
// (see collector.handOut). With a limit, while more records wait than it
// allows, h lets go of the first.
func (s *collector) handOutHeld(h holder) {
	for {
		s.handOut(h.firstHeld())
		if s.out.limit == 0 || len(s.recs) <= s.out.limit {
			return
		}
		h.letGo(s.base)
	}
}

// holds lowers low to the first record the stream names: the table being
// vacuumed or analyzed, and with part the record its current part fills.
func (st *stream) holds(low int, part bool) int {
	for k, i := range [...]int{st.open, st.anlz, st.rec} {
		if i >= 0 && i < low && (part || k < 2) {
			low = i
		}
	}
	return low
}

// forget makes the stream forget record i, which is then handed out as
// it is: what comes later about it reads as a message without the one
// before it.
func (st *stream) forget(i int) {
	if st.open == i {
		st.open = -1
	}
	if st.anlz == i {
		st.anlz = -1
	}
	if st.rec == i {
		st.end()
	}
}

// handOut hands out the records that no line to come can add to: those
// before the first that a stream still names (the entry being read, the
// current part of a message, the table a backend is vacuuming or
// analyzing).
func (lr *logReader) handOut() { lr.sink.handOutHeld(lr) }

// firstHeld is the first record a stream names, or the next record's
// number when none does. Only the current stream's part reads further
// lines: another's opens a new part first.
func (lr *logReader) firstHeld() int {
	low := lr.sink.next()
	if lr.entry >= 0 && lr.entry < low {
		low = lr.entry
	}
	for st := range lr.streams() {
		low = st.holds(low, st == lr.cur)
	}
	return low
}

// letGo makes the streams forget record i.
func (lr *logReader) letGo(i int) {
	if lr.entry == i {
		lr.endEntry()
	}
	for st := range lr.streams() {
		st.forget(i)
	}
}

// streams are autovacuum's stream and each backend's.
func (lr *logReader) streams() iter.Seq[*stream] {
	return func(yield func(*stream) bool) {
		if !yield(lr.auto) {
			return
		}
		for _, st := range lr.all {
			if !yield(st) {
				return
			}
		}
	}
}

// backend is the stream of process pid's INFO messages.
func (lr *logReader) backend(pid string) *stream {
	if lr.backends == nil {
		lr.backends = map[string]*stream{}
	}
	st := lr.backends[pid]
	if st == nil {
		if lr.sink.out.limit > 0 && len(lr.backends) >= maxBackends {
			lr.forgetIdle()
		}
		st = newStream(lr.sink, true)
		st.link = true
		lr.backends[strings.Clone(pid)] = st // pid may be a part of the input
		lr.all = append(lr.all, st)
	}
	return st
}

// forgetIdle forgets the streams of the backends that hold no record: a
// message they log next starts as a new backend's would (a TOAST table's
// record would not name its main table).
func (lr *logReader) forgetIdle() {
	for pid, st := range lr.backends {
		if st != lr.cur && st.open < 0 && st.anlz < 0 {
			delete(lr.backends, pid)
		}
	}
	lr.all = lr.all[:0]
	for _, st := range lr.backends {
		lr.all = append(lr.all, st)
	}
}

// firstHeld is the first record psql's output still names.
func (p *psqlOutput) firstHeld() int { return p.st.holds(p.sink.next(), true) }

// letGo makes the stream forget record i.
func (p *psqlOutput) letGo(i int) { p.st.forget(i) }
