package vacuum

import "strings"

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
	name, rest, ok := quoted(msg[len("scanned index "):])
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
	st.sink.add(&ix.TuplesToRemove, v.i[0])
	st.sink.add(&ix.Scans, 1)
	st.next = partIgnore
}

// indexContains: 13/14 `index "t_pkey" now contains 18000 row versions in
// 57 pages`, whose DETAIL says what the index removed and deleted.
func (st *stream) indexContains(msg, raw string, line int) {
	name, rest, ok := quoted(msg[len("index "):])
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
	ix.TuplesRemain, ix.PagesTotal = st.sink.int(v.i[0]), st.sink.int(v.i[1])
	st.rec, st.ix, st.next = st.open, i, partIndex
}

// indexDetailLine reads a line of 13's and 14's DETAIL of "index ... now
// contains".
func (st *stream) indexDetailLine(s string) bool {
	r := st.sink.rec(st.rec)
	ix := &r.Indexes[st.ix]
	v := &st.nmb
	switch {
	case indexRowsRemovedLine.match(s, v):
		ix.TuplesRemoved = st.sink.int(v.i[0])
	case indexDeleted13Line.match(s, v): // 13
		ix.PagesCurrentlyDeleted, ix.PagesReusable = st.sink.int(v.i[0]), st.sink.int(v.i[1])
	case indexNewlyDeletedLine.match(s, v): // 14
		ix.PagesNewlyDeleted = st.sink.int(v.i[0])
	case indexCurrentlyDeletedLine.match(s, v): // 14
		ix.PagesCurrentlyDeleted, ix.PagesReusable = st.sink.int(v.i[0]), st.sink.int(v.i[1])
	case strings.HasPrefix(s, "CPU: "):
		return indexCPULine.match(s, v)
	default:
		return false
	}
	return true
}
