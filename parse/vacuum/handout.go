package vacuum

import (
	"iter"
	"strings"
)

// How a server log's reader hands out its records as it reads
// (AutovacuumSeq), and what bounds the state it keeps: a record is handed
// out once no line to come can add to it, and a record that waits too long
// for its end is let go.

// maxHeld bounds the records AutovacuumSeq holds back behind one still
// being read.
const maxHeld = 4096

// maxBackends is how many backends' streams AutovacuumSeq keeps before
// it forgets those that name no record.
const maxBackends = 1024

// handOut hands out the records that no line to come can add to: those
// before the first that a stream still names (the entry being read, the
// part of a message being read, the table a backend is vacuuming or
// analyzing). With a limit, while more records wait than it allows, the
// streams let go of the first.
func (lr *logReader) handOut() {
	s := lr.sink
	for {
		s.handOut(lr.firstHeld())
		if s.out.limit == 0 || len(s.recs) <= s.out.limit {
			return
		}
		lr.letGo(s.base)
	}
}

// firstHeld is the first record a stream names, or the next record's
// number when none does.
func (lr *logReader) firstHeld() int {
	low := lr.sink.next()
	hold := func(i int) {
		if i >= 0 && i < low {
			low = i
		}
	}
	hold(lr.entry)
	if lr.cur != nil {
		hold(lr.cur.rec) // only the current stream's part reads further lines: another's opens a new part first
	}
	for st := range lr.streams() {
		hold(st.open)
		hold(st.anlz)
	}
	return low
}

// streams are autovacuum's stream and each backend's.
func (lr *logReader) streams() iter.Seq[*stream] {
	return func(yield func(*stream) bool) {
		if !yield(lr.auto) {
			return
		}
		for _, st := range lr.backends {
			if !yield(st) {
				return
			}
		}
	}
}

// letGo makes the streams forget record i, which is then handed out as it
// is: what its backend logs about it later reads as a message without the
// one before it.
func (lr *logReader) letGo(i int) {
	if lr.entry == i {
		lr.endEntry()
	}
	if lr.cur != nil && lr.cur.rec == i {
		lr.cur.end()
	}
	for st := range lr.streams() {
		if st.open == i {
			st.open = -1
		}
		if st.anlz == i {
			st.anlz = -1
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
}
