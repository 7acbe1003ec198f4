package vacuum

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// openRecord is the record of the table being vacuumed, which 13's and
// 14's messages (and 15's "truncated") name by the table alone, as name;
// it settles the record's names (nameTable). schemaTable says the message
// is 13's or 14's only.
func (st *stream) openRecord(name, raw string, line int, schemaTable bool) *Record {
	if st.open < 0 {
		st.sink.warn(line, raw, "no \"vacuuming\" message before this one")
		return nil
	}
	r := st.sink.rec(st.open)
	if !sameRel(r, name) {
		st.sink.warn(line, raw, "this message is about another table than \"vacuuming "+relName(r)+"\"")
		return nil
	}
	nameTable(r, name, schemaTable)
	if st.open == st.last {
		st.lastSchema, st.lastTable = r.Schema, r.Table
	}
	return r
}

// The patterns of the messages that start with the table's name (see
// pattern).
var (
	analyzeScannedLine = compile("scanned # of # pages, containing # live rows and # dead rows; # rows in sample, # estimated total rows")
	removedRowsLine    = compile("removed # row versions in # pages")
	removedItemsLine   = compile("removed # dead item identifiers in # pages")
	foundLine          = compile("found # removable, # nonremovable row versions in # out of # pages")
	truncatedLine      = compile("truncated # to # pages")
)

// tableMessage: the messages that start with the table's name, `"t": ...`
// (13, and ANALYZE) or `table "t": ...` (14+). It finds the message's kind
// by the words after the name and hands the rest to that kind's reader.
func (st *stream) tableMessage(msg, raw string, line int) {
	s := strings.TrimPrefix(msg, "table ")
	name, rest, ok := quotedTo(s, "\": ")
	if !ok {
		st.other(raw, line)
		return
	}
	rest = rest[2:]
	switch {
	case strings.HasPrefix(rest, "scanned "): // ANALYZE
		st.analyzeSample(name, rest, raw, line)
	case strings.HasPrefix(rest, "removed "):
		st.removed(name, rest, raw, line)
	case strings.HasPrefix(rest, "found "):
		st.found(name, rest, raw, line)
	case strings.HasPrefix(rest, "truncated "):
		st.truncated(name, rest, raw, line)
	case strings.HasSuffix(rest, "truncate due to conflicting lock request"):
		// VACUUM gave up truncating; what it truncated so far was reported
		st.next = partIgnore
	case strings.HasPrefix(rest, "index scan bypassed: "): // 14
		st.bypassed(name, rest, raw, line)
	default:
		st.other(raw, line)
	}
}

// analyzeSample: `"t": scanned N of M pages, containing ...`, a sample of
// the ANALYZE record being read (one per child of an inheritance tree).
func (st *stream) analyzeSample(name, rest, raw string, line int) {
	v := &st.nmb
	if !analyzeScannedLine.match(rest, v) ||
		v.i[0] < 0 || v.i[1] < 0 || v.fits(3) && v.i[0] > v.i[1] || v.i[2] < 0 || v.i[3] < 0 || v.i[4] < 0 || v.i[5] < 0 {
		st.sink.warn(line, raw, "expected \"table\": scanned N of M pages, containing ...")
		return
	}
	if !v.fits(0xff) {
		// A sample's figures are not optional: it cannot be kept with one
		// unknown.
		st.warnOverflow(line, raw)
		st.sink.warn(line, raw, "this ANALYZE sample is left out: a number of it does not fit")
		return
	}
	if st.anlz < 0 {
		st.sink.warn(line, raw, "no \"analyzing\" message before this one")
		return
	}
	r := st.sink.rec(st.anlz)
	r.Analyze = append(r.Analyze, AnalyzeSample{Table: st.sink.keep(name), PagesScanned: v.i[0], PagesTotal: v.i[1],
		LiveRows: v.i[2], DeadRows: v.i[3], SampleRows: v.i[4], EstimatedTotalRows: v.i[5]})
	st.sink.setDone(st.anlz)
}

// removed: 13/14 `"t": removed N row versions in M pages` (14: "dead item
// identifiers"), one per pass over the heap, summed.
func (st *stream) removed(name, rest, raw string, line int) {
	v := &st.nmb
	if !removedRowsLine.match(rest, v) && !removedItemsLine.match(rest, v) ||
		v.i[0] < 0 || v.i[1] < 0 {
		st.sink.warn(line, raw, "expected \"table\": removed N row versions in M pages")
		return
	}
	r := st.openRecord(name, raw, line, false)
	if r == nil {
		return
	}
	st.warnOverflow(line, raw)
	st.sum(&r.DeadItemIDs, 0, "dead item identifiers of the passes", line, raw)
	st.sum(&r.DeadItemPages, 1, "pages of the passes", line, raw)
	st.next = partIgnore
}

// sum adds integer k of the line just read to *p, warning when the sum
// does not fit (see collector.add).
func (st *stream) sum(p *parse.Opt[int64], k int, what string, line int, raw string) {
	v := &st.nmb
	st.addTo(p, v.i[k], v.fits(1<<k), what, line, raw)
}

// addTo adds n to *p, warning when the sum does not fit.
func (st *stream) addTo(p *parse.Opt[int64], n int64, fits bool, what string, line int, raw string) {
	if !st.sink.add(p, n, fits) {
		st.sink.warn(line, raw, "the sum of the "+what+" does not fit a 64-bit integer: left out (unknown, not zero)")
	}
}

// found: 13/14 `"t": found N removable, N nonremovable row versions in N
// out of M pages`, the scan's totals; its DETAIL is the summary.
func (st *stream) found(name, rest, raw string, line int) {
	v := &st.nmb
	if !foundLine.match(rest, v) ||
		v.i[0] < 0 || v.i[1] < 0 || v.i[2] < 0 || v.i[3] < 0 {
		st.sink.warn(line, raw, "expected \"table\": found N removable, N nonremovable row versions in N out of M pages")
		return
	}
	r := st.openRecord(name, raw, line, true)
	if r == nil {
		return
	}
	if v.fits(0b1100) && v.i[2] > v.i[3] {
		st.sink.warn(line, raw, "more pages scanned than the table has")
		return
	}
	if st.sink.isDone(st.open) {
		st.sink.warn(line, raw, "a second \"found\" message for this table: the first is kept, this one is not read")
		st.next = partIgnore
		return
	}
	st.warnOverflow(line, raw)
	r.TuplesRemoved, r.TuplesNonremovable = st.sink.num(v, 0), st.sink.num(v, 1)
	r.PagesScanned, r.PagesRemain = st.sink.num(v, 2), st.sink.num(v, 3)
	if r.PagesRemoved.Valid && r.PagesRemoved.V != 0 {
		r.PagesRemoved = parse.Opt[int64]{} // a truncation reported before the scan cannot be
	}
	st.sink.setDone(st.open)
	st.rec, st.next = st.open, partSummary
}

// truncated: `"t": truncated N to M pages` (14+: `table "t": ...`). The
// server truncates in steps when another session waits for the table's
// lock, each step a message from where the step before left the table:
// the pages removed are summed.
func (st *stream) truncated(name, rest, raw string, line int) {
	v := &st.nmb
	if !truncatedLine.match(rest, v) || v.i[1] < 0 || v.fits(3) && v.i[1] > v.i[0] {
		st.sink.warn(line, raw, "expected \"table\": truncated N to M pages")
		return
	}
	r := st.openRecord(name, raw, line, false)
	if r == nil {
		return
	}
	step := r.PagesRemoved.Valid // a truncation before this one
	if step && (!r.PagesRemain.Valid || !v.fits(1) || r.PagesRemain.V != v.i[0]) {
		st.sink.warn(line, raw, "a truncation that does not start where the one before ended: not read")
		return
	}
	if !step && r.PagesScanned.Valid && v.fits(1) && r.PagesScanned.V > v.i[0] {
		st.sink.warn(line, raw, "more pages scanned than the table had before truncation")
		return
	}
	st.warnOverflow(line, raw)
	st.addTo(&r.PagesRemoved, v.i[0]-v.i[1], v.fits(3), "pages truncated", line, raw) // no overflow: 0 <= M <= N
	r.PagesRemain = st.sink.num(v, 1)
	st.next = partIgnore
}

// bypassed: 14's `"t": index scan bypassed: N pages from table (P% of
// total) have N dead item identifiers`, read as the summary line it is
// from 15.
func (st *stream) bypassed(name, rest, raw string, line int) {
	r := st.openRecord(name, raw, line, true)
	if r == nil {
		return
	}
	if st.summary(st.open, rest) != lineOK {
		st.sink.warn(line, raw, "expected \"table\": index scan bypassed: N pages from table (P% of total) have N dead item identifiers")
	}
}
