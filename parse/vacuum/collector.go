package vacuum

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// collector collects the records and warnings of one input. Parse and
// Notices keep them all; a server log's reader hands each record out as
// soon as no message to come can add to it (see handOut), so that it holds
// only the records still being read.
type collector struct {
	source string
	recs   []*Record // the records not handed out yet; recs[0] is number base
	done   []bool    // done[i]: recs[i] got its summary
	base   int       // the records before it were handed out
	warns  []parse.Warning
	out    *output  // where records and warnings go as they are read; nil: kept
	slab   []Record // the records are allocated in it
	ints   []int64  // slabs the records' number fields point into
	ixs    map[indexKey]int
	floats []float64
	// foreign is the first line found in another language (see foreign.go).
	foreign *parse.Warning
}

// output takes a server log's records and warnings as they are read.
type output struct {
	record func(*Record) bool // false stops the reading
	warn   func(parse.Warning)
	// late takes the warning of a record that never got its summary, which
	// is known when the record is handed out; Autovacuum puts them after
	// the others, as Parse does.
	late func(parse.Warning)
	// limit bounds the records waiting to be handed out behind one that a
	// message to come could still add to (see logReader.handOut); 0 for
	// none.
	limit   int
	stopped bool
}

// newRecord is a zero record, allocated with others: one allocation per
// recordSlab records.
func (s *collector) newRecord() *Record {
	if len(s.slab) == cap(s.slab) {
		s.slab = make([]Record, 0, recordSlab)
	}
	s.slab = s.slab[:len(s.slab)+1]
	return &s.slab[len(s.slab)-1]
}

// recordSlab is how many records are allocated at once. A record handed
// out keeps the others of its slab in memory while it is referenced; a
// slab is 22 KiB.
const recordSlab = 32

// push adds a record, returning its number.
func (s *collector) push(r *Record) int {
	s.recs = append(s.recs, r)
	s.done = append(s.done, false)
	return s.base + len(s.recs) - 1
}

// rec is record i, which must not have been handed out.
func (s *collector) rec(i int) *Record { return s.recs[i-s.base] }

func (s *collector) isDone(i int) bool { return s.done[i-s.base] }

func (s *collector) setDone(i int) { s.done[i-s.base] = true }

// next is the number the next record will get.
func (s *collector) next() int { return s.base + len(s.recs) }

// warn adds a warning. Its text is an excerpt of the line (parse.Excerpt),
// a copy: the lines are read in place, and a warning should keep neither
// the reader's buffer nor a line of megabytes in memory.
func (s *collector) warn(line int, text, msg string) {
	w := parse.Warning{Source: s.source, Line: line, Text: parse.Excerpt(text), Msg: msg}
	if s.out == nil {
		s.warns = append(s.warns, w)
	} else if s.foreign == nil {
		s.out.warn(w)
	}
	s.lookForeign(line, text)
}

// handOut hands out the records before number upTo, in order, with the
// warning of each that never got its summary. Nothing is handed out once
// the input is known to be in another language, which makes it an error.
func (s *collector) handOut(upTo int) {
	if upTo <= s.base {
		return // mostly: the record being read is the first
	}
	k := 0
	for ; k < len(s.recs) && s.base+k < upTo; k++ {
		r := s.recs[k]
		s.recs[k] = nil
		if len(r.Indexes) > fewIndexes {
			for _, ix := range r.Indexes {
				delete(s.ixs, indexKey{r, ix.Name})
			}
		}
		if s.foreign != nil || s.out.stopped {
			continue
		}
		if !s.done[k] {
			s.out.late(parse.Warning{Source: s.source, Line: r.Line, Text: parse.Excerpt(relName(r)), Msg: noSummary(r)})
		}
		if !s.out.record(r) {
			s.out.stopped = true
		}
	}
	s.base += k
	// The room is used again: the records left are moved to its start when
	// they are no more than those handed out (mostly one, the entry being
	// read), so that moving them costs no more than handing out did.
	if rest := len(s.recs) - k; k > 0 && rest <= k {
		copy(s.recs, s.recs[k:])
		copy(s.done, s.done[k:])
		clear(s.recs[rest:])
		s.recs, s.done = s.recs[:rest], s.done[:rest]
		return
	}
	s.recs, s.done = s.recs[k:], s.done[k:]
}

func (s *collector) int(v int64) *int64 {
	if len(s.ints) == cap(s.ints) {
		s.ints = make([]int64, 0, 512)
	}
	s.ints = append(s.ints, v)
	return &s.ints[len(s.ints)-1]
}

func (s *collector) float(v float64) *float64 {
	if len(s.floats) == cap(s.floats) {
		s.floats = make([]float64, 0, 128)
	}
	s.floats = append(s.floats, v)
	return &s.floats[len(s.floats)-1]
}

// add adds v to *p, or sets it.
func (s *collector) add(p **int64, v int64) {
	if *p == nil {
		*p = s.int(v)
		return
	}
	**p += v
}

// result is the records, in order.
func (s *collector) result() []Record {
	out := make([]Record, len(s.recs))
	for i, r := range s.recs {
		out[i] = *r
	}
	return out
}

// finish warns of the records that never got their summary.
func (s *collector) finish() {
	for i := range s.recs {
		if !s.done[i] {
			r := s.recs[i]
			s.warn(r.Line, relName(r), noSummary(r))
		}
	}
}

// noSummary is the warning of a record that never got its summary.
func noSummary(r *Record) string {
	if r.Operation == "analyze" {
		return "no \"scanned N of M pages\" line for this ANALYZE"
	}
	return "no summary (\"finished vacuuming\", or \"found ... row versions\") for this VACUUM"
}

// index finds or adds the record's entry for an index. A record with many
// indexes (only a damaged input has thousands) finds them through a map.
func (s *collector) index(r *Record, name string) int {
	const few = fewIndexes
	if len(r.Indexes) <= few {
		for i := range r.Indexes {
			if r.Indexes[i].Name == name {
				return i
			}
		}
	} else if i, ok := s.ixs[indexKey{r, name}]; ok {
		return i
	}
	r.Indexes = append(r.Indexes, Index{Name: strings.Clone(name)})
	if n := len(r.Indexes); n > few {
		if s.ixs == nil {
			s.ixs = map[indexKey]int{}
		}
		if n == few+1 {
			for i := range r.Indexes {
				s.ixs[indexKey{r, r.Indexes[i].Name}] = i
			}
		}
		s.ixs[indexKey{r, r.Indexes[n-1].Name}] = n - 1 // the copy: name may be a part of the input
	}
	return len(r.Indexes) - 1
}

// fewIndexes is how many indexes of a record are found by looking at
// each; a record with more finds them through a map.
const fewIndexes = 16

// indexKey names an index of a record.
type indexKey struct {
	r    *Record
	name string
}
