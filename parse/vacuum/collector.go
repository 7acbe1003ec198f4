package vacuum

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
)

// collector collects the records and warnings of one input. Parse and
// Notices keep them all; a server log's reader hands each record out as
// soon as no message to come can add to it (see handOut), so that it holds
// only the records still being read.
type collector struct {
	source string
	recs   []*Record // the records not handed out yet; recs[0] is number base
	marks  []marks   // marks[i]: what was read of recs[i]
	base   int       // the records before it were handed out
	warns  []parse.Warning
	out    *output  // where records and warnings go as they are read; nil: kept
	slab   []Record // the records are allocated in it
	// free holds records handed out by a reader that does not keep them,
	// for newRecord to fill again: what was handed out is a copy (seqOf
	// yields *r), so a record's memory is the collector's once handed
	// out, and used again it is still in the processor's cache.
	free []*Record
	ixs  map[indexKey]int
	// text holds the names and times the records keep, copied from the
	// input (keep).
	text batch.Text
	// foreign is the first line found in another language (see foreign.go).
	foreign *parse.Warning
	// rows holds the records of a parse that keeps them all (out.keep),
	// in the slice it returns; progress tells how far the input is read
	// (done of total, in bytes or notices; total 0 when not known), to
	// make room for the rest once roomAfter records are read.
	rows     *batch.Rows[Record]
	progress func() (done, total int64)
	// cut: the input ended in a read error; the records handed out then
	// without their summary are left out (cutOff counts them), not
	// handed out as the end of a log's are.
	cut    bool
	cutOff int
}

// newCollector is the collector of one input, whose reading progress
// tells (or nil).
func newCollector(source string, out *output, progress func() (done, total int64)) *collector {
	return &collector{source: source, out: out, rows: out.keep, progress: progress, text: batch.NewText(textChunk)}
}

// keep is a copy of s, a part of the input that a record keeps (a name,
// a time): in chunks of textChunk bytes shared by the records of a parse,
// where a string each was most of a parse's allocations, and objects the
// garbage collector marked one by one.
func (s *collector) keep(t string) string { return batch.String(&s.text, t) }

// textChunk is the size of the chunks of kept text: the names and times
// of a few dozen records.
const textChunk = 4096

// output takes a server log's records and warnings as they are read.
type output struct {
	record func(*Record) bool // false stops the reading
	warn   func(parse.Warning)
	// late takes the warning of a record that never got its summary, which
	// is known when the record is handed out; Parse puts them after the
	// others.
	late func(parse.Warning)
	// limit bounds the records waiting to be handed out behind one that a
	// message to come could still add to (see logReader.handOut); 0 for
	// none.
	limit   int
	stopped bool
	// keep, when not nil, is where the records are allocated, in order:
	// the parse keeps them all and returns keep.All(), without copying
	// each record from where it was read into the slice it returns.
	keep *batch.Rows[Record]
}

// marks is what was read of a record: which kinds of summary line it got
// (a bit per lineKind), so that a line of a kind read before is warned
// of, not read again, and whether it got its summary (doneMark).
type marks uint32

const doneMark marks = 1 << 31

// newRecord is a zero record: in the slice a parse that keeps its
// records returns, else one handed out before, cleared, or a new one,
// allocated with others (one allocation per recordSlab records).
func (s *collector) newRecord() *Record {
	if s.rows != nil {
		if s.rows.Len() == roomAfter && s.progress != nil {
			s.makeRoom()
		}
		return s.rows.Next()
	}
	if n := len(s.free); n > 0 {
		r := s.free[n-1]
		s.free = s.free[:n-1]
		*r = Record{}
		return r
	}
	if len(s.slab) == cap(s.slab) {
		s.slab = make([]Record, 0, recordSlab)
	}
	s.slab = s.slab[:len(s.slab)+1]
	return &s.slab[len(s.slab)-1]
}

// makeRoom makes room for the records of the rest of the input, as many
// a byte (or notice) as those so far, and a tenth more; up to maxRoom
// bytes of them, past which they go on in chunks.
func (s *collector) makeRoom() {
	done, total := s.progress()
	if done <= 0 || total <= done {
		return
	}
	n := int64(s.rows.Len())
	left := min((total-done)*n/done*11/10+1, maxRoom/int64(unsafe.Sizeof(Record{})))
	s.rows.Room(int(left))
}

// roomAfter is how many records a parse that keeps them reads before it
// makes room for the rest: enough for their bytes to be a fair guess of
// the rest's.
const roomAfter = 64

// maxRoom bounds the bytes of records made room for at once, so that an
// input that says it is huge (a sparse file) costs no memory before its
// records are read.
const maxRoom = 256 << 20

// recordSlab is how many records are allocated at once, when none
// handed out is free to fill again: a slab is 30 KiB, under the
// allocator's largest size class for small objects.
const recordSlab = 32

// push adds a record, returning its number.
func (s *collector) push(r *Record) int {
	s.recs = append(s.recs, r)
	s.marks = append(s.marks, 0)
	return s.base + len(s.recs) - 1
}

// rec is record i, which must not have been handed out.
func (s *collector) rec(i int) *Record { return s.recs[i-s.base] }

func (s *collector) isDone(i int) bool { return s.marks[i-s.base]&doneMark != 0 }

func (s *collector) setDone(i int) { s.marks[i-s.base] |= doneMark }

// got reports whether record i got a line of kind k.
func (s *collector) got(i int, k lineKind) bool { return s.marks[i-s.base]&(1<<k) != 0 }

// seen marks that record i got a line of kind k, reporting whether it had
// got one before.
func (s *collector) seen(i int, k lineKind) bool {
	m := &s.marks[i-s.base]
	before := *m&(1<<k) != 0
	*m |= 1 << k
	return before
}

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
		dropLost(r)
		if s.marks[k]&doneMark == 0 {
			if s.cut {
				s.cutOff++
				continue
			}
			s.out.late(parse.Warning{Source: s.source, Line: r.Line, Text: parse.Excerpt(relName(r)), Msg: noSummary(r)})
		}
		if !s.out.record(r) {
			s.out.stopped = true
		}
		if s.rows == nil {
			s.free = append(s.free, r)
		}
	}
	s.base += k
	// The room is used again: the records left are moved to its start when
	// they are no more than those handed out (mostly one, the entry being
	// read), so that moving them costs no more than handing out did.
	if rest := len(s.recs) - k; k > 0 && rest <= k {
		copy(s.recs, s.recs[k:])
		copy(s.marks, s.marks[k:])
		clear(s.recs[rest:])
		s.recs, s.marks = s.recs[:rest], s.marks[:rest]
		return
	}
	s.recs, s.marks = s.recs[k:], s.marks[k:]
}

// readError ends a reading that failed at line n with err (a damaged
// or truncated compressed file, a read error): the records held back
// behind one still being read that got their summary are handed out,
// whole, as those before them were; the ones still being read are left
// out, with a warning, since the lines after the error are lost.
func (s *collector) readError(n int, err error) error {
	if s.out == nil || s.out.stopped || s.foreign != nil {
		return err
	}
	s.cut = true
	s.handOut(s.next())
	if s.cutOff > 0 {
		what := fmt.Sprintf("%d records still being read where the input fails are", s.cutOff)
		if s.cutOff == 1 {
			what = "1 record still being read where the input fails is"
		}
		s.warn(n, "", what+" left out: their lines after it are lost")
	}
	return err
}

// num is integer k of the line v read, for a field: absent, the field
// left out, when it does not fit an int64 (see nums; warnOverflow says so).
func (s *collector) num(v *nums, k int) parse.Opt[int64] {
	if !v.fits(1 << k) {
		return parse.Opt[int64]{}
	}
	return parse.Some(v.i[k])
}

// dec is decimal k of the line v read, for a field, or absent (see num).
func (s *collector) dec(v *nums, k int) parse.Opt[float64] {
	if !v.fits(1 << (overFloat + k)) {
		return parse.Opt[float64]{}
	}
	return parse.Some(v.f[k])
}

// lostSum is what a summed field holds once a number of its sum was out
// of range or the sum overflowed: absent, but told from a field not read
// yet by its value, so that it stays unknown, whatever is added later; it
// is handed out as absent (dropLost).
var lostSum = parse.Opt[int64]{V: math.MinInt64}

// add adds n to *p, or sets it; fits is false when n itself did not fit
// (its warning is warnOverflow's). add reports whether the sum fits an
// int64: when it does not, the field is lost, and the caller warns.
func (s *collector) add(p *parse.Opt[int64], n int64, fits bool) bool {
	switch {
	case *p == lostSum:
	case !fits:
		*p = lostSum
	case !p.Valid:
		*p = parse.Some(n)
	case n > 0 && p.V > math.MaxInt64-n || n < 0 && p.V < math.MinInt64-n:
		*p = lostSum
		return false
	default:
		p.V += n
	}
	return true
}

// dropLost makes the sums of r that were lost (see add) absent, as the
// record is handed out.
func dropLost(r *Record) {
	drop := func(p *parse.Opt[int64]) {
		if *p == lostSum {
			*p = parse.Opt[int64]{}
		}
	}
	drop(&r.DeadItemIDs)
	drop(&r.DeadItemPages)
	drop(&r.PagesRemoved)
	for i := range r.Indexes {
		drop(&r.Indexes[i].TuplesToRemove)
		drop(&r.Indexes[i].Scans)
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
	r.Indexes = append(r.Indexes, Index{Name: s.keep(name)})
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
