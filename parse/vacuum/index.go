package vacuum

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The patterns of 13's and 14's index messages and their DETAIL lines
// (see pattern).
var (
	indexRemoveLine           = compile(" to remove # row versions")
	indexContainsLine         = compile(" now contains # row versions in # pages")
	indexRowsRemovedLine      = compile("# index row versions were removed.")
	indexDeleted13Line        = compile("# index pages have been deleted, # are currently reusable.")
	indexNewlyDeletedLine     = compile("# index pages were newly deleted.")
	indexCurrentlyDeletedLine = compile("# index pages are currently deleted, of which # are currently reusable.")
	indexCPULine              = compile("CPU: user: ~ s, system: ~ s, elapsed: ~ s.")
)

// scannedIndex: 13/14 `scanned index "t_pkey" to remove 4633 row versions`.
func (st *stream) scannedIndex(msg, raw string, line int) {
	name, rest, ok := quotedTo(msg[len("scanned index "):], "\" to remove ")
	v := &st.nmb
	if !ok || !indexRemoveLine.match(rest, v) || v.i[0] < 0 {
		st.sink.warn(line, raw, "expected scanned index \"name\" to remove N row versions")
		return
	}
	if st.open < 0 {
		st.sink.warn(line, raw, "no \"vacuuming\" message before this one")
		return
	}
	r := st.sink.rec(st.open)
	ix := &r.Indexes[st.sink.index(r, name)]
	st.warnOverflow(line, raw)
	st.sum(&ix.TuplesToRemove, 0, "row versions the passes asked this index to remove", line, raw)
	st.addTo(&ix.Scans, 1, true, "scans of this index", line, raw)
	st.next = partIgnore
}

// indexContains: 13/14 `index "t_pkey" now contains 18000 row versions in
// 57 pages`, whose DETAIL says what the index removed and deleted.
func (st *stream) indexContains(msg, raw string, line int) {
	name, rest, ok := quotedTo(msg[len("index "):], "\" now contains ")
	v := &st.nmb
	if !ok || !indexContainsLine.match(rest, v) || v.i[0] < 0 || v.i[1] < 0 {
		st.sink.warn(line, raw, "expected index \"name\" now contains N row versions in M pages")
		return
	}
	if st.open < 0 {
		st.sink.warn(line, raw, "no \"vacuuming\" message before this one")
		return
	}
	r := st.sink.rec(st.open)
	i := st.sink.index(r, name)
	ix := &r.Indexes[i]
	if ix.TuplesRemain.Valid || ix.PagesTotal.Valid {
		st.sink.warn(line, raw, "a second \"now contains\" message for this index: the first is kept, this one is not read")
		st.next = partIgnore
		return
	}
	st.warnOverflow(line, raw)
	ix.TuplesRemain, ix.PagesTotal = st.sink.num(v, 0), st.sink.num(v, 1)
	st.rec, st.ix, st.next = st.open, i, partIndex
}

// indexDetailLine reads a line of 13's and 14's DETAIL of "index ... now
// contains"; false when it is not one. A line of a kind read before is
// warned of, and not read.
func (st *stream) indexDetailLine(s string, line int) bool {
	r := st.sink.rec(st.rec)
	ix := &r.Indexes[st.ix]
	v := &st.nmb
	var first *parse.Opt[int64] // the field the line fills first, absent until it is read
	switch {
	case indexRowsRemovedLine.match(s, v):
		first = &ix.TuplesRemoved
	case indexDeleted13Line.match(s, v), indexCurrentlyDeletedLine.match(s, v): // 13, 14
		first = &ix.PagesCurrentlyDeleted
	case indexNewlyDeletedLine.match(s, v): // 14
		first = &ix.PagesNewlyDeleted
	case strings.HasPrefix(s, "CPU: "):
		return indexCPULine.match(s, v)
	default:
		return false
	}
	if first.Valid {
		st.sink.warn(line, s, "a second line of this kind in DETAIL: the first is kept, this one is not read")
		return true
	}
	st.warnOverflow(line, s)
	*first = st.sink.num(v, 0)
	if first == &ix.PagesCurrentlyDeleted {
		ix.PagesReusable = st.sink.num(v, 1)
	}
	return true
}
