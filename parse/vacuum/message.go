package vacuum

import (
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The server's VACUUM and ANALYZE messages, read the same way from psql's
// output, from notices and from a server log.

// collector collects the records and warnings of one input.
type collector struct {
	source string
	recs   []*Record
	done   []bool // done[i]: recs[i] got its summary
	warns  []parse.Warning
	ints   []int64 // slabs the records' number fields point into
	ixs    map[indexKey]int
	floats []float64
	// foreign is the first line found in another language (see foreign.go).
	foreign *parse.Warning
}

// warn adds a warning. Its text is copied: Vacuum's lines are parts of the
// whole input, which a warning should not keep in memory.
func (s *collector) warn(line int, text, msg string) {
	s.warns = append(s.warns, parse.Warning{Source: s.source, Line: line, Text: strings.Clone(text), Msg: msg})
	s.lookForeign(line, text)
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
			what := "no summary (\"finished vacuuming\", or \"found ... row versions\") for this VACUUM"
			if r.Operation == "analyze" {
				what = "no \"scanned N of M pages\" line for this ANALYZE"
			}
			s.warn(r.Line, relName(r), what)
		}
	}
}

// partKind says what the continuation lines of the current message part
// are.
type partKind uint8

const (
	partNone    partKind = iota // no part open: a continuation is not expected
	partIgnore                  // a part read whole and not used (CPU detail, an error, a context)
	partSummary                 // a record's summary lines (15+ finished vacuuming, autovacuum entries, 13/14 "found" DETAIL)
	partIndex                   // 13/14 "index ... now contains" DETAIL
)

// stream reads the messages of one session (or, in a server log, of one
// backend) in order.
type stream struct {
	sink   *collector
	log    bool // a server log: messages not about vacuuming are not warnings
	link   bool // TOAST records name their main table (not autovacuum's)
	kind   partKind
	rec    int      // the record the current part fills
	ix     int      // the index entry partIndex fills
	next   partKind // what a DETAIL of the current message holds
	open   int      // the table being vacuumed: 13/14 messages name only the table
	last   int      // the last VACUUM record of the statement, for TOAST links
	anlz   int      // the ANALYZE record "scanned N of M pages" lines belong to
	time   string   // a log entry's prefix fields, for the records it starts
	pid    string
	nmb    nums
	label  string // what the current part is, for warnings
	nlines int    // summary lines read, to tell an entry without any
}

func newStream(sink *collector, log bool) *stream {
	st := &stream{sink: sink, log: log, link: !log}
	st.boundary()
	return st
}

// boundary ends a statement.
func (st *stream) boundary() {
	st.end()
	st.open, st.last, st.anlz = -1, -1, -1
}

// end ends the current message part.
func (st *stream) end() {
	st.kind, st.next, st.rec, st.ix = partNone, partNone, -1, -1
}

// active reports whether a part is open that continuation lines belong to.
func (st *stream) active() bool { return st.kind != partNone }

// what names the current part for a warning.
func (st *stream) what() string {
	if st.label != "" {
		return st.label
	}
	return "message"
}

// labels are the severities and field names that start a line of a
// message ("INFO:  ...", "DETAIL:  ...") in psql's output and server logs.
var labels = [...]string{"INFO", "DETAIL", "LOG", "WARNING", "ERROR", "NOTICE", "HINT", "CONTEXT",
	"LOCATION", "STATEMENT", "QUERY", "FATAL", "PANIC", "DEBUG", "DEBUG1", "DEBUG2", "DEBUG3", "DEBUG4", "DEBUG5"}

// splitLabel splits "SEVERITY:  message" (a five-character SQLSTATE after
// the label, as VERBOSITY verbose prints it, is dropped).
func splitLabel(s string) (label, msg string, ok bool) {
	if len(s) < 5 || s[0] < 'A' || s[0] > 'Z' {
		return "", "", false
	}
	i := strings.Index(s, ":  ")
	if i < 3 || i > 9 {
		return "", "", false
	}
	label = s[:i]
	for _, l := range labels {
		if l == label {
			return label, stripSQLState(s[i+3:]), true
		}
	}
	return "", "", false
}

// stripSQLState drops a leading "00000: ".
func stripSQLState(s string) string {
	if len(s) < 7 || s[5] != ':' || s[6] != ' ' {
		return s
	}
	for i := 0; i < 5; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return s
		}
	}
	return s[7:]
}

// part handles a labelled line: a message's first line (INFO, LOG,
// WARNING, ...) or the first line of its DETAIL, HINT, CONTEXT, ... raw is
// the line as read, for warnings.
func (st *stream) part(label, msg, raw string, line int) {
	switch label {
	case "DETAIL":
		st.kind, st.label = st.next, "DETAIL"
		st.next = partNone
		if st.kind == partNone {
			st.kind = partIgnore
			return
		}
		if st.kind != partIgnore && !st.cont(msg, line) {
			st.sink.warn(line, raw, "unrecognized line in DETAIL")
		}
		return
	case "HINT", "CONTEXT", "LOCATION", "STATEMENT", "QUERY":
		st.kind, st.next, st.label = partIgnore, partNone, ""
		return
	}
	st.end()
	st.next, st.label = partIgnore, ""
	st.message(label, msg, raw, line)
}

// cont handles a continuation line of the current part; false when the
// line is not understood there.
func (st *stream) cont(s string, line int) bool {
	switch st.kind {
	case partIgnore:
		return true
	case partSummary:
		return st.summaryLine(st.rec, s, line)
	case partIndex:
		return st.indexDetailLine(s)
	}
	return false
}

// message handles a message's first line.
func (st *stream) message(sev, msg, raw string, line int) {
	switch sev {
	case "ERROR", "FATAL", "PANIC", "WARNING":
		st.kind = partIgnore // an error's LINE and caret lines, say
		if strings.HasPrefix(msg, "bypassing nonessential maintenance of table \"") && st.open >= 0 {
			st.sink.recs[st.open].Failsafe = true
		}
		if !st.log {
			st.sink.warn(line, raw, "server "+sev)
		}
		return
	}
	switch {
	case strings.HasPrefix(msg, "vacuuming \""):
		st.vacuuming(msg[len("vacuuming "):], false, raw, line)
	case strings.HasPrefix(msg, "aggressively vacuuming \""):
		st.vacuuming(msg[len("aggressively vacuuming "):], true, raw, line)
	case strings.HasPrefix(msg, "finished vacuuming \""):
		st.finished(msg, raw, line)
	case strings.HasPrefix(msg, "automatic "):
		st.automatic(msg, raw, line)
	case strings.HasPrefix(msg, "analyzing \""):
		st.analyzing(msg[len("analyzing "):], raw, line)
	case strings.HasPrefix(msg, "finished analyzing table \""):
		st.finishedAnalyzing(msg, raw, line)
	case strings.HasPrefix(msg, "scanned index \""):
		st.scannedIndex(msg, raw, line)
	case strings.HasPrefix(msg, "index \""):
		st.indexContains(msg, raw, line)
	case strings.HasPrefix(msg, "launched ") && strings.Contains(msg, " parallel vacuum worker"):
		// how many parallel workers ran: not recorded
	case strings.HasPrefix(msg, "\"") || strings.HasPrefix(msg, "table \""):
		st.tableMessage(msg, raw, line)
	default:
		st.other(raw, line)
	}
}

// other is a message that is not about vacuuming: a warning, except in a
// server log, which is full of them. Its continuation lines are skipped.
func (st *stream) other(raw string, line int) {
	st.kind = partIgnore
	if !st.log {
		st.sink.warn(line, raw, "not a VACUUM or ANALYZE message")
	}
}

// newRecord starts a record.
func (st *stream) newRecord(op, name string, line int) (int, bool) {
	db, schema, table, ok := splitName(strings.Clone(name)) // not a part of the input
	if !ok {
		return -1, false
	}
	s := st.sink
	s.recs = append(s.recs, &Record{Line: line, Operation: op, Database: db, Schema: schema, Table: table,
		LogTime: st.time, PID: st.pid})
	s.done = append(s.done, false)
	i := len(s.recs) - 1
	if op == "vacuum" && st.link {
		if schema == "pg_toast" && st.last >= 0 && s.recs[st.last].Schema != "pg_toast" {
			m := s.recs[st.last]
			s.recs[i].ToastOf = m.Schema + "." + m.Table
		}
		st.last = i
	}
	return i, true
}

// splitName splits "db.schema.table", "schema.table" or "table".
func splitName(name string) (db, schema, table string, ok bool) {
	a, rest, two := strings.Cut(name, ".")
	if !two {
		return "", "", name, name != "" && !strings.ContainsAny(name, "\"\n")
	}
	b, c, three := strings.Cut(rest, ".")
	if !three {
		db, schema, table = "", a, rest
	} else {
		db, schema, table = a, b, c
	}
	ok = schema != "" && table != "" && (!three || db != "") && !strings.ContainsAny(name, "\"\n")
	return db, schema, table, ok
}

// relName is a record's table as the server names it.
func relName(r *Record) string {
	switch {
	case r.Database != "":
		return r.Database + "." + r.Schema + "." + r.Table
	case r.Schema != "":
		return r.Schema + "." + r.Table
	}
	return r.Table
}

// sameRel reports whether name (as a message prints it: "t", "s.t" or
// "db.s.t") is the record's table; the parts that both name are compared.
func sameRel(r *Record, name string) bool {
	db, schema, table, ok := splitName(name)
	return ok && table == r.Table && (schema == "" || r.Schema == "" || schema == r.Schema) &&
		(db == "" || r.Database == "" || db == r.Database)
}

// quoted takes the quoted name that s starts with, not empty; rest
// follows the closing quote.
func quoted(s string) (name, rest string, ok bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	i := strings.IndexByte(s[1:], '"')
	if i <= 0 {
		return "", "", false
	}
	return s[1 : 1+i], s[2+i:], true
}

// vacuuming: `vacuuming "public.t"` (13/14) or `"db.public.t"` (15+).
func (st *stream) vacuuming(q string, aggressive bool, raw string, line int) {
	name, rest, ok := quoted(q)
	if !ok || rest != "" {
		st.sink.warn(line, raw, "expected vacuuming \"schema.table\"")
		return
	}
	i, ok := st.newRecord("vacuum", name, line)
	if !ok {
		st.sink.warn(line, raw, "expected vacuuming \"schema.table\"")
		return
	}
	st.sink.recs[i].Aggressive = aggressive
	st.open = i
}

const indexScansText = "\": index scans: "

// finished: `finished vacuuming "db.public.t": index scans: 1` (15+),
// followed by the summary lines.
func (st *stream) finished(msg, raw string, line int) {
	s := msg[len("finished vacuuming \""):]
	j := strings.LastIndex(s, indexScansText)
	var n int64
	ok := j >= 0
	if ok {
		n, ok = atoi(s[j+len(indexScansText):])
	}
	if !ok || n < 0 {
		st.sink.warn(line, raw, "expected finished vacuuming \"db.schema.table\": index scans: N")
		return
	}
	name := s[:j]
	i := -1
	if st.open >= 0 && sameRel(st.sink.recs[st.open], name) && !st.sink.done[st.open] {
		i = st.open
	} else if i, ok = st.newRecord("vacuum", name, line); !ok {
		st.sink.warn(line, raw, "expected finished vacuuming \"db.schema.table\": index scans: N")
		return
	}
	r := st.sink.recs[i]
	if r.Database == "" {
		r.Database, r.Schema, r.Table, _ = splitName(strings.Clone(name))
	}
	r.IndexScans = st.sink.int(n)
	st.sink.done[i] = true
	st.kind, st.rec, st.label = partSummary, i, "VACUUM summary"
}

// automatic: a server log's autovacuum and autoanalyze entries:
//
//	automatic [aggressive ]vacuum [to prevent wraparound ]of table "db.s.t": index scans: N
//	automatic analyze of table "db.s.t"[ system usage: CPU: ...]
func (st *stream) automatic(msg, raw string, line int) {
	s := msg[len("automatic "):]
	if a, ok := strings.CutPrefix(s, "analyze of table "); ok {
		name, rest, ok := quoted(a)
		if !ok {
			st.sink.warn(line, raw, "expected automatic analyze of table \"db.schema.table\"")
			return
		}
		i, ok := st.newRecord("analyze", name, line)
		if !ok {
			st.sink.warn(line, raw, "expected automatic analyze of table \"db.schema.table\"")
			return
		}
		st.sink.recs[i].Automatic = true
		st.sink.done[i] = true
		st.kind, st.rec, st.label = partSummary, i, "autoanalyze entry"
		if rest != "" { // 13 prints its one line on the same line
			if !strings.HasPrefix(rest, " ") || !st.summaryLine(i, rest[1:], line) {
				st.sink.warn(line, raw, "unrecognized text after automatic analyze of table \""+name+"\"")
			}
		}
		return
	}
	aggressive := false
	if t, ok := strings.CutPrefix(s, "aggressive "); ok {
		s, aggressive = t, true
	}
	s, ok := strings.CutPrefix(s, "vacuum ")
	if !ok {
		if aggressive || strings.HasPrefix(msg, "automatic vacuum") || strings.HasPrefix(msg, "automatic analyze") {
			st.sink.warn(line, raw, "expected automatic vacuum of table \"db.schema.table\": index scans: N")
		} else {
			st.other(raw, line)
		}
		return
	}
	wrap := false
	if t, ok := strings.CutPrefix(s, "to prevent wraparound "); ok {
		s, wrap = t, true
	}
	s, ok = strings.CutPrefix(s, "of table \"")
	j := strings.LastIndex(s, indexScansText)
	var n int64
	if ok && j >= 0 {
		n, ok = atoi(s[j+len(indexScansText):])
	}
	if !ok || j < 0 || n < 0 {
		st.sink.warn(line, raw, "expected automatic vacuum of table \"db.schema.table\": index scans: N")
		return
	}
	i, ok := st.newRecord("vacuum", s[:j], line)
	if !ok {
		st.sink.warn(line, raw, "expected automatic vacuum of table \"db.schema.table\": index scans: N")
		return
	}
	r := st.sink.recs[i]
	r.Automatic, r.Aggressive, r.ToPreventWraparound = true, aggressive, wrap
	r.IndexScans = st.sink.int(n)
	st.sink.done[i] = true
	st.kind, st.rec, st.label = partSummary, i, "autovacuum entry"
}

// analyzing: `analyzing "public.t"`, or `... inheritance tree`.
func (st *stream) analyzing(q, raw string, line int) {
	name, rest, ok := quoted(q)
	tree := rest == " inheritance tree"
	if !ok || (rest != "" && !tree) {
		st.sink.warn(line, raw, "expected analyzing \"schema.table\"")
		return
	}
	i, ok := st.newRecord("analyze", name, line)
	if !ok {
		st.sink.warn(line, raw, "expected analyzing \"schema.table\"")
		return
	}
	st.sink.recs[i].InheritanceTree = tree
	st.anlz = i
}

// finishedAnalyzing: 18's `finished analyzing table "db.public.t"`,
// followed by resource usage lines.
func (st *stream) finishedAnalyzing(msg, raw string, line int) {
	name, rest, ok := quoted(msg[len("finished analyzing table "):])
	if !ok || rest != "" {
		st.sink.warn(line, raw, "expected finished analyzing table \"db.schema.table\"")
		return
	}
	i := st.anlz
	if i < 0 || !sameRel(st.sink.recs[i], name) {
		if i, ok = st.newRecord("analyze", name, line); !ok {
			st.sink.warn(line, raw, "expected finished analyzing table \"db.schema.table\"")
			return
		}
	}
	r := st.sink.recs[i]
	if r.Database == "" {
		r.Database, r.Schema, r.Table, _ = splitName(strings.Clone(name))
	}
	st.sink.done[i] = true
	st.kind, st.rec, st.label = partSummary, i, "ANALYZE summary"
}

// openRecord is the record of the table being vacuumed, which 13's and
// 14's messages name (unqualified, or schema-qualified) as name.
func (st *stream) openRecord(name, raw string, line int) *Record {
	if st.open < 0 {
		st.sink.warn(line, raw, "no \"vacuuming\" message before this one")
		return nil
	}
	r := st.sink.recs[st.open]
	if !sameRel(r, name) {
		st.sink.warn(line, raw, "this message is about another table than \"vacuuming "+relName(r)+"\"")
		return nil
	}
	return r
}

// The patterns of the messages and DETAIL lines read here (see pattern).
var (
	indexRemoveLine           = compile(" to remove # row versions")
	indexContainsLine         = compile(" now contains # row versions in # pages")
	analyzeScannedLine        = compile("scanned # of # pages, containing # live rows and # dead rows; # rows in sample, # estimated total rows")
	removedRowsLine           = compile("removed # row versions in # pages")
	removedItemsLine          = compile("removed # dead item identifiers in # pages")
	foundLine                 = compile("found # removable, # nonremovable row versions in # out of # pages")
	truncatedLine             = compile("truncated # to # pages")
	indexRowsRemovedLine      = compile("# index row versions were removed.")
	indexDeleted13Line        = compile("# index pages have been deleted, # are currently reusable.")
	indexNewlyDeletedLine     = compile("# index pages were newly deleted.")
	indexCurrentlyDeletedLine = compile("# index pages are currently deleted, of which # are currently reusable.")
	indexCPULine              = compile("CPU: user: ~ s, system: ~ s, elapsed: ~ s.")
)

// index finds or adds the record's entry for an index. A record with many
// indexes (only a damaged input has thousands) finds them through a map.
func (s *collector) index(r *Record, name string) int {
	const few = 16
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
		s.ixs[indexKey{r, name}] = n - 1
	}
	return len(r.Indexes) - 1
}

// indexKey names an index of a record.
type indexKey struct {
	r    *Record
	name string
}

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
	r := st.sink.recs[st.open]
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
	r := st.sink.recs[st.open]
	i := st.sink.index(r, name)
	ix := &r.Indexes[i]
	ix.TuplesRemain, ix.PagesTotal = st.sink.int(v.i[0]), st.sink.int(v.i[1])
	st.rec, st.ix, st.next = st.open, i, partIndex
}

// tableMessage: the messages that start with the table's name, `"t": ...`
// (13, and ANALYZE) or `table "t": ...` (14+).
func (st *stream) tableMessage(msg, raw string, line int) {
	s := strings.TrimPrefix(msg, "table ")
	name, rest, ok := quoted(s)
	if !ok || !strings.HasPrefix(rest, ": ") {
		st.other(raw, line)
		return
	}
	rest = rest[2:]
	v := &st.nmb
	switch {
	case strings.HasPrefix(rest, "scanned "): // ANALYZE
		if !analyzeScannedLine.match(rest, v) ||
			v.i[0] < 0 || v.i[1] < 0 || v.i[0] > v.i[1] || v.i[2] < 0 || v.i[3] < 0 || v.i[4] < 0 || v.i[5] < 0 {
			st.sink.warn(line, raw, "expected \"table\": scanned N of M pages, containing ...")
			return
		}
		if st.anlz < 0 {
			st.sink.warn(line, raw, "no \"analyzing\" message before this one")
			return
		}
		r := st.sink.recs[st.anlz]
		r.Analyze = append(r.Analyze, AnalyzeSample{Table: strings.Clone(name), PagesScanned: v.i[0], PagesTotal: v.i[1],
			LiveRows: v.i[2], DeadRows: v.i[3], SampleRows: v.i[4], EstimatedTotalRows: v.i[5]})
		st.sink.done[st.anlz] = true
	case strings.HasPrefix(rest, "removed "):
		if !removedRowsLine.match(rest, v) && !removedItemsLine.match(rest, v) ||
			v.i[0] < 0 || v.i[1] < 0 {
			st.sink.warn(line, raw, "expected \"table\": removed N row versions in M pages")
			return
		}
		r := st.openRecord(name, raw, line)
		if r == nil {
			return
		}
		st.sink.add(&r.DeadItemIDs, v.i[0])
		st.sink.add(&r.DeadItemPages, v.i[1])
		st.next = partIgnore
	case strings.HasPrefix(rest, "found "):
		if !foundLine.match(rest, v) ||
			v.i[0] < 0 || v.i[1] < 0 || v.i[2] < 0 || v.i[3] < 0 {
			st.sink.warn(line, raw, "expected \"table\": found N removable, N nonremovable row versions in N out of M pages")
			return
		}
		r := st.openRecord(name, raw, line)
		if r == nil {
			return
		}
		if v.i[2] > v.i[3] {
			st.sink.warn(line, raw, "more pages scanned than the table has")
			return
		}
		r.TuplesRemoved, r.TuplesNonremovable = st.sink.int(v.i[0]), st.sink.int(v.i[1])
		r.PagesScanned, r.PagesRemain = st.sink.int(v.i[2]), st.sink.int(v.i[3])
		if r.PagesRemoved != nil && *r.PagesRemoved != 0 {
			r.PagesRemoved = nil // a truncation reported before the scan cannot be
		}
		st.sink.done[st.open] = true
		st.rec, st.next = st.open, partSummary
	case strings.HasPrefix(rest, "truncated "):
		if !truncatedLine.match(rest, v) || v.i[1] < 0 || v.i[1] > v.i[0] {
			st.sink.warn(line, raw, "expected \"table\": truncated N to M pages")
			return
		}
		r := st.openRecord(name, raw, line)
		if r == nil {
			return
		}
		if r.PagesScanned != nil && *r.PagesScanned > v.i[0] {
			st.sink.warn(line, raw, "more pages scanned than the table had before truncation")
			return
		}
		r.PagesRemoved, r.PagesRemain = st.sink.int(v.i[0]-v.i[1]), st.sink.int(v.i[1])
		st.next = partIgnore
	case strings.HasSuffix(rest, "truncate due to conflicting lock request"):
		// VACUUM gave up truncating; what it truncated so far was reported
		st.next = partIgnore
	case strings.HasPrefix(rest, "index scan bypassed: "): // 14
		r := st.openRecord(name, raw, line)
		if r == nil {
			return
		}
		if st.summary(r, rest) != lineOK {
			st.sink.warn(line, raw, "expected \"table\": index scan bypassed: N pages from table (P% of total) have N dead item identifiers")
		}
	default:
		st.other(raw, line)
	}
}

// indexDetailLine reads a line of 13's and 14's DETAIL of "index ... now
// contains".
func (st *stream) indexDetailLine(s string) bool {
	r := st.sink.recs[st.rec]
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
