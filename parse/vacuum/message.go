package vacuum

import (
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// The messages that start or carry a whole record: 15+'s "finished
// vacuuming", a server log's "automatic ..." entries, and ANALYZE's.

func (st *stream) vacuuming(q string, aggressive bool, raw string, line int) {
	name, rest, ok := quotedTo(q, "\"")
	if !ok || rest != "" {
		st.sink.warn(line, raw, "expected vacuuming \"schema.table\"")
		return
	}
	i, ok := st.newRecord("vacuum", name, 3, raw, line)
	if !ok {
		st.sink.warn(line, raw, "expected vacuuming \"schema.table\"")
		return
	}
	st.sink.rec(i).Aggressive = aggressive
	st.open = i
}

const indexScansText = "\": index scans: "

// finished: `finished vacuuming "db.public.t": index scans: 1` (15+),
// followed by the summary lines.
func (st *stream) finished(msg, raw string, line int) {
	s := msg[len("finished vacuuming \""):]
	j := lastIndex(s, indexScansText)
	var n int64
	ok, fits := j >= 0, true
	if ok {
		n, ok, fits = atoi(s[j+len(indexScansText):])
	}
	if !ok {
		st.sink.warn(line, raw, "expected finished vacuuming \"db.schema.table\": index scans: N")
		return
	}
	name := s[:j]
	i := -1
	if st.open >= 0 && sameRel(st.sink.rec(st.open), name) && !st.sink.isDone(st.open) {
		i = st.open
	} else if i, ok = st.newRecord("vacuum", name, 3, raw, line); !ok {
		st.sink.warn(line, raw, "expected finished vacuuming \"db.schema.table\": index scans: N")
		return
	}
	r := st.sink.rec(i)
	nameDatabase(r, name)
	if i == st.last {
		st.lastSchema, st.lastTable = r.Schema, r.Table
	}
	r.IndexScans = st.indexScans(n, fits, s[j+len(indexScansText):], raw, line)
	st.sink.setDone(i)
	st.kind, st.rec, st.label, st.whole = partSummary, i, "VACUUM summary", true
}

// automatic: a server log's autovacuum and autoanalyze entries:
//
//	automatic [aggressive ]vacuum [to prevent wraparound ]of table "db.s.t": index scans: N
//	automatic analyze of table "db.s.t"[ system usage: CPU: ...]
func (st *stream) automatic(msg, raw string, line int) {
	s := msg[len("automatic "):]
	if a, ok := strings.CutPrefix(s, "analyze of table "); ok {
		name, rest, ok := quotedTo(a, "\"")
		if !ok {
			st.sink.warn(line, raw, "expected automatic analyze of table \"db.schema.table\"")
			return
		}
		i, ok := st.newRecord("analyze", name, 3, raw, line)
		if !ok {
			st.sink.warn(line, raw, "expected automatic analyze of table \"db.schema.table\"")
			return
		}
		st.sink.rec(i).Automatic = true
		st.sink.setDone(i)
		st.kind, st.rec, st.label, st.whole = partSummary, i, "autoanalyze entry", true
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
	j := lastIndex(s, indexScansText)
	var n int64
	fits := true
	if ok && j >= 0 {
		n, ok, fits = atoi(s[j+len(indexScansText):])
	}
	if !ok || j < 0 {
		st.sink.warn(line, raw, "expected automatic vacuum of table \"db.schema.table\": index scans: N")
		return
	}
	i, ok := st.newRecord("vacuum", s[:j], 3, raw, line)
	if !ok {
		st.sink.warn(line, raw, "expected automatic vacuum of table \"db.schema.table\": index scans: N")
		return
	}
	r := st.sink.rec(i)
	r.Automatic, r.Aggressive, r.ToPreventWraparound = true, aggressive, wrap
	r.IndexScans = st.indexScans(n, fits, s[j+len(indexScansText):], raw, line)
	st.sink.setDone(i)
	st.kind, st.rec, st.label, st.whole = partSummary, i, "autovacuum entry", true
}

// indexScans is the "index scans: N" of a record, or absent, with a
// warning, when N (text) does not fit.
func (st *stream) indexScans(n int64, fits bool, text, raw string, line int) parse.Opt[int64] {
	switch {
	case !fits:
		st.warnNotFit(line, raw, text, false)
		return parse.Opt[int64]{}
	case n < 0:
		// No server counts below zero: this figure is unknown, the
		// entry's others are read, as a negative figure of a summary
		// line leaves out that line alone.
		st.sink.warn(line, raw, fmt.Sprintf("index scans of %d, below zero as no server counts them: left out, the entry read on", n))
		return parse.Opt[int64]{}
	}
	return parse.Some(n)
}

// analyzing: `analyzing "public.t"`, or `... inheritance tree`.
func (st *stream) analyzing(q, raw string, line int) {
	name, rest, ok := quotedTo(q, "\"")
	tree := rest == " inheritance tree"
	if !ok || (rest != "" && !tree) {
		st.sink.warn(line, raw, "expected analyzing \"schema.table\"")
		return
	}
	i, ok := st.newRecord("analyze", name, 2, raw, line)
	if !ok {
		st.sink.warn(line, raw, "expected analyzing \"schema.table\"")
		return
	}
	st.sink.rec(i).InheritanceTree = tree
	st.anlz = i
}

// finishedAnalyzing: 18's `finished analyzing table "db.public.t"`,
// followed by resource usage lines.
func (st *stream) finishedAnalyzing(msg, raw string, line int) {
	name, rest, ok := quotedTo(msg[len("finished analyzing table "):], "\"")
	if !ok || rest != "" {
		st.sink.warn(line, raw, "expected finished analyzing table \"db.schema.table\"")
		return
	}
	i := st.anlz
	if i < 0 || !sameRel(st.sink.rec(i), name) {
		if i, ok = st.newRecord("analyze", name, 3, raw, line); !ok {
			st.sink.warn(line, raw, "expected finished analyzing table \"db.schema.table\"")
			return
		}
	}
	nameDatabase(st.sink.rec(i), name)
	st.sink.setDone(i)
	st.kind, st.rec, st.label, st.whole = partSummary, i, "ANALYZE summary", true
}
