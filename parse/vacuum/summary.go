package vacuum

import "strings"

// lineResult is what reading a line of a record's summary found.
type lineResult uint8

const (
	lineOK      lineResult = iota // understood
	lineUnknown                   // not a line of this kind
	lineBad                       // the right kind of line, wrong numbers
)

// summaryRow is one line of a record's summary: the line it reads, as a
// pattern of match ('#' an integer, '~' a decimal, '%' a name, an optional
// part in brackets), and the
// fields of the record it fills from the numbers found.
type summaryRow struct {
	line string
	fill func(sk *collector, r *Record, v *nums) lineResult
}

// compiledRow is a summaryRow with its line compiled.
type compiledRow struct {
	pat  pattern
	fill func(sk *collector, r *Record, v *nums) lineResult
}

// summaryRows are the summary lines of every version: 15+'s "finished
// vacuuming" lines, the autovacuum and autoanalyze entries' lines, and 13's
// and 14's DETAIL of "found ... row versions". No two rows read the same
// line.
var summaryRows = []summaryRow{
	{"pages: # removed, # remain, # scanned (~% of total)[, # eagerly scanned]", pagesScanned},  // the group: 18
	{"pages: # removed, # remain, # skipped due to pins, # skipped frozen", pagesSkipped},       // up to 14
	{"tuples: # removed, # remain, # are dead but not yet removable[, oldest xmin: #]", tuples}, // the group: up to 14
	{"tuples missed: # dead from # pages not removed due to cleanup lock contention", func(sk *collector, r *Record, v *nums) lineResult {
		r.TuplesMissedDead, r.PagesMissedDead = sk.int(v.i[0]), sk.int(v.i[1])
		return lineOK
	}},
	{"removable cutoff: #, which was # XIDs old when operation ended", func(sk *collector, r *Record, v *nums) lineResult {
		r.RemovableCutoffXID, r.RemovableCutoffAgeXIDs = sk.int(v.i[0]), sk.int(v.i[1])
		return lineOK
	}},
	{"new relfrozenxid: #, which is # XIDs ahead of previous value", func(sk *collector, r *Record, v *nums) lineResult {
		r.NewRelfrozenXID, r.RelfrozenXIDAheadXIDs = sk.int(v.i[0]), sk.int(v.i[1])
		return lineOK
	}},
	{"new relminmxid: #, which is # MXIDs ahead of previous value", func(sk *collector, r *Record, v *nums) lineResult {
		r.NewRelminMXID, r.RelminMXIDAheadMXIDs = sk.int(v.i[0]), sk.int(v.i[1])
		return lineOK
	}},
	{"frozen: # pages from table (~% of total) had # tuples frozen", func(sk *collector, r *Record, v *nums) lineResult {
		if !isPct(v.f[0]) {
			return lineBad
		}
		r.PagesFrozen, r.PagesFrozenPct, r.TuplesFrozen = sk.int(v.i[0]), sk.float(v.f[0]), sk.int(v.i[1])
		return lineOK
	}},
	{"visibility map: # pages set all-visible, # pages set all-frozen (# were all-visible)", func(sk *collector, r *Record, v *nums) lineResult {
		r.VMPagesSetAllVisible, r.VMPagesSetAllFrozen, r.VMPagesWereAllVisible = sk.int(v.i[0]), sk.int(v.i[1]), sk.int(v.i[2])
		return lineOK
	}},
	{"index scan needed: # pages from table (~% of total) had # dead item identifiers removed", indexScan("needed")},
	{"index scan not needed: # pages from table (~% of total) had # dead item identifiers removed", indexScan("not needed")},
	{"index scan bypassed: # pages from table (~% of total) have # dead item identifiers", indexScan("bypassed")},
	{"index scan bypassed by failsafe: # pages from table (~% of total) have # dead item identifiers", indexScan("bypassed by failsafe")},
	{`index "%": pages: # in total, # newly deleted, # currently deleted, # reusable`, indexPages},
	{"delay time: ~ ms", func(sk *collector, r *Record, v *nums) lineResult {
		r.DelayMs = sk.float(v.f[0])
		return lineOK
	}},
	{"I/O timings: read: ~ ms, write: ~ ms", func(sk *collector, r *Record, v *nums) lineResult {
		r.IOReadMs, r.IOWriteMs = sk.float(v.f[0]), sk.float(v.f[1])
		return lineOK
	}},
	{"avg read rate: ~ MB/s, avg write rate: ~ MB/s", func(sk *collector, r *Record, v *nums) lineResult {
		r.AvgReadMBs, r.AvgWriteMBs = sk.float(v.f[0]), sk.float(v.f[1])
		return lineOK
	}},
	{"buffer usage: # hits, # misses, # dirtied", func(sk *collector, r *Record, v *nums) lineResult { // up to 17
		r.BufferHits, r.BufferMisses, r.BufferDirtied = sk.int(v.i[0]), sk.int(v.i[1]), sk.int(v.i[2])
		return lineOK
	}},
	{"buffer usage: # hits, # reads, # dirtied", func(sk *collector, r *Record, v *nums) lineResult { // 18
		r.BufferHits, r.BufferReads, r.BufferDirtied = sk.int(v.i[0]), sk.int(v.i[1]), sk.int(v.i[2])
		return lineOK
	}},
	{"WAL usage: # records, # full page images, # bytes[, # buffers full]", wal}, // the group: 18
	{"system usage: CPU: user: ~ s, system: ~ s, elapsed: ~ s[.]", cpu},
	{"CPU: user: ~ s, system: ~ s, elapsed: ~ s[.]", cpu},                // 13's and 14's DETAIL end with "."
	{"There were # unused item identifier[s].", unusedItems},             // 13
	{"Skipped # page[s] due to buffer pins, # frozen page[s].", skipped}, // 13 and 14
	{"# dead row versions cannot be removed yet, oldest xmin: #", func(sk *collector, r *Record, v *nums) lineResult { // 13 and 14
		r.TuplesDeadNotYetRemovable, r.OldestXmin = sk.int(v.i[0]), sk.int(v.i[1])
		return lineOK
	}},
	{"# pages are entirely empty.", emptyPages},
	{"# page is entirely empty.", emptyPages},
}

// summaryIndex is summaryRows, compiled, by the first byte of the line
// they read, so that a line is matched against a few rows, not all: a row
// that starts with a number is tried for lines that start with a digit.
var summaryIndex = func() (ix [256][]*compiledRow) {
	for _, r := range summaryRows {
		row := &compiledRow{compile(r.line), r.fill}
		if r.line[0] == '#' {
			for c := '0'; c <= '9'; c++ {
				ix[c] = append(ix[c], row)
			}
			continue
		}
		ix[r.line[0]] = append(ix[r.line[0]], row)
	}
	return ix
}()

// summaryLine reads a line of a record's summary, warning of one whose
// numbers contradict each other.
func (st *stream) summaryLine(i int, s string, line int) bool {
	r := st.sink.rec(i)
	res := st.summary(r, s)
	if res == lineBad {
		st.sink.warn(line, s, "numbers that contradict each other in "+st.what())
		return true
	}
	if res == lineOK {
		st.nlines++
	}
	return res == lineOK
}

// summary fills r from s, the first row of summaryRows that s is.
func (st *stream) summary(r *Record, s string) lineResult {
	if s == "" {
		return lineUnknown
	}
	v := &st.nmb
	for _, row := range summaryIndex[s[0]] {
		if row.pat.match(s, v) {
			return row.fill(st.sink, r, v)
		}
	}
	return lineUnknown
}

func pagesScanned(sk *collector, r *Record, v *nums) lineResult {
	removed, remain, scanned := v.i[0], v.i[1], v.i[2]
	if removed < 0 || remain < 0 || scanned < 0 || scanned > removed+remain || !isPct(v.f[0]) || v.n == 4 && v.i[3] < 0 {
		return lineBad
	}
	r.PagesRemoved, r.PagesRemain, r.PagesScanned = sk.int(removed), sk.int(remain), sk.int(scanned)
	r.PagesScannedPct = sk.float(v.f[0])
	if v.n == 4 {
		r.PagesEagerlyScanned = sk.int(v.i[3])
	}
	return lineOK
}

func pagesSkipped(sk *collector, r *Record, v *nums) lineResult {
	removed, remain := v.i[0], v.i[1]
	if removed < 0 || remain < 0 || v.i[2] < 0 || v.i[3] < 0 {
		return lineBad
	}
	r.PagesRemoved, r.PagesRemain = sk.int(removed), sk.int(remain)
	r.PagesSkippedPinned, r.PagesSkippedFrozen = sk.int(v.i[2]), sk.int(v.i[3])
	if r.PagesScanned != nil && *r.PagesScanned > removed+remain {
		r.PagesScanned = nil
		return lineBad
	}
	return lineOK
}

func tuples(sk *collector, r *Record, v *nums) lineResult {
	r.TuplesRemoved, r.TuplesRemain, r.TuplesDeadNotYetRemovable = sk.int(v.i[0]), sk.int(v.i[1]), sk.int(v.i[2])
	if v.n == 4 {
		r.OldestXmin = sk.int(v.i[3])
	}
	return lineOK
}

// indexScan fills the index scan status ("index scan needed: 214 pages
// from table (99.53% of total) had 4633 dead item identifiers removed",
// "index scan bypassed by failsafe: ...").
func indexScan(status string) func(sk *collector, r *Record, v *nums) lineResult {
	return func(sk *collector, r *Record, v *nums) lineResult {
		if !isPct(v.f[0]) || v.i[0] < 0 || v.i[1] < 0 {
			return lineBad
		}
		r.IndexScan = status
		r.DeadItemPages, r.DeadItemPagesPct, r.DeadItemIDs = sk.int(v.i[0]), sk.float(v.f[0]), sk.int(v.i[1])
		if strings.HasSuffix(status, "by failsafe") {
			r.Failsafe = true
		}
		return lineOK
	}
}

func indexPages(sk *collector, r *Record, v *nums) lineResult {
	ix := &r.Indexes[sk.index(r, v.name)]
	ix.PagesTotal, ix.PagesNewlyDeleted = sk.int(v.i[0]), sk.int(v.i[1])
	ix.PagesCurrentlyDeleted, ix.PagesReusable = sk.int(v.i[2]), sk.int(v.i[3])
	return lineOK
}

func wal(sk *collector, r *Record, v *nums) lineResult {
	if v.n == 4 {
		r.WALBuffersFull = sk.int(v.i[3])
	}
	r.WALRecords, r.WALFullPageImages, r.WALBytes = sk.int(v.i[0]), sk.int(v.i[1]), sk.int(v.i[2])
	return lineOK
}

func cpu(sk *collector, r *Record, v *nums) lineResult {
	if v.f[0] < 0 || v.f[1] < 0 || v.f[2] < 0 {
		return lineBad
	}
	r.CPUUserS, r.CPUSystemS, r.ElapsedS = sk.float(v.f[0]), sk.float(v.f[1]), sk.float(v.f[2])
	return lineOK
}

func unusedItems(sk *collector, r *Record, v *nums) lineResult {
	r.UnusedItemIDs = sk.int(v.i[0])
	return lineOK
}

func skipped(sk *collector, r *Record, v *nums) lineResult {
	r.PagesSkippedPinned, r.PagesSkippedFrozen = sk.int(v.i[0]), sk.int(v.i[1])
	return lineOK
}

func emptyPages(sk *collector, r *Record, v *nums) lineResult {
	r.PagesEmpty = sk.int(v.i[0])
	return lineOK
}

// isPct reports whether p is a percentage.
func isPct(p float64) bool { return p >= 0 && p <= 100 }
