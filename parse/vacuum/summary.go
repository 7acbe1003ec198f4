package vacuum

import (
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
)

// lineResult is what reading a line of a record's summary found.
type lineResult uint8

const (
	lineOK         lineResult = iota // understood
	lineUnknown                      // not a line of this kind
	lineBad                          // the right kind of line, wrong numbers
	lineRepeated                     // a kind of line the record got before: not read again
	lineNegative                     // a negative figure: no count, size or duration the server prints is
	lineNotAnalyze                   // a line only a vacuum prints, in an analyze's record
)

// lineKind is what a summary line reports. A record gets one line of each
// kind: a second (two "WAL usage:" lines in one entry, as two entries
// interleaved or a garbled log give) is warned of and not read, so that the
// first stays and is not overwritten without a word. Rows of different
// versions that fill the same fields are of the same kind (13's and 14's
// "pages: ... skipped due to pins" and later "pages: ... scanned").
type lineKind uint8

const (
	kindPages lineKind = iota
	kindTuples
	kindTuplesMissed
	kindCutoff
	kindRelfrozenXID
	kindRelminMXID
	kindFrozen
	kindVM
	kindIndexScan
	kindIndexPages // one per index: index.go's entry tells a repeat
	kindDelay
	kindIOTimings
	kindRates
	kindBuffers
	kindWAL
	kindCPU
	kindUnused
	kindSkipped
	kindEmpty
)

// vacuumOnly reports whether a line of kind k is one only a vacuum's
// summary has: an analyze's (analyze.c's do_analyze_rel) prints delay and
// I/O timings, read and write rates, buffer and WAL usage and system
// usage, nothing about pages, tuples, XIDs or indexes.
func vacuumOnly(k lineKind) bool {
	switch k {
	case kindDelay, kindIOTimings, kindRates, kindBuffers, kindWAL, kindCPU:
		return false
	}
	return true
}

// summaryRow is one line of a record's summary: what it reports, the line
// it reads, as a pattern of match ('#' an integer, '~' a decimal, '%' a
// name, an optional part in brackets), and the fields of the record it
// fills from the numbers found.
type summaryRow struct {
	kind lineKind
	line string
	fill func(sk *collector, r *Record, v *nums) lineResult
}

// compiledRow is a summaryRow with its line compiled.
type compiledRow struct {
	kind lineKind
	pat  pattern
	fill func(sk *collector, r *Record, v *nums) lineResult
}

// summaryRows are the summary lines of every version: 15+'s "finished
// vacuuming" lines, the autovacuum and autoanalyze entries' lines, and 13's
// and 14's DETAIL of "found ... row versions". No two rows read the same
// line.
var summaryRows = []summaryRow{
	{kindPages, "pages: # removed, # remain, # scanned (~%% of total)[, # eagerly scanned]", pagesScanned},  // the group: 18
	{kindPages, "pages: # removed, # remain, # skipped due to pins, # skipped frozen", pagesSkipped},        // up to 14
	{kindTuples, "tuples: # removed, # remain, # are dead but not yet removable[, oldest xmin: #]", tuples}, // the group: up to 14
	{kindTuplesMissed, "tuples missed: # dead from # pages not removed due to cleanup lock contention", func(sk *collector, r *Record, v *nums) lineResult {
		r.TuplesMissedDead, r.PagesMissedDead = sk.num(v, 0), sk.num(v, 1)
		return lineOK
	}},
	{kindCutoff, "removable cutoff: #, which was # XIDs old when operation ended", func(sk *collector, r *Record, v *nums) lineResult {
		r.RemovableCutoffXID, r.RemovableCutoffAgeXIDs = sk.num(v, 0), sk.num(v, 1)
		return lineOK
	}},
	{kindRelfrozenXID, "new relfrozenxid: #, which is # XIDs ahead of previous value", func(sk *collector, r *Record, v *nums) lineResult {
		r.NewRelfrozenXID, r.RelfrozenXIDAheadXIDs = sk.num(v, 0), sk.num(v, 1)
		return lineOK
	}},
	{kindRelminMXID, "new relminmxid: #, which is # MXIDs ahead of previous value", func(sk *collector, r *Record, v *nums) lineResult {
		r.NewRelminMXID, r.RelminMXIDAheadMXIDs = sk.num(v, 0), sk.num(v, 1)
		return lineOK
	}},
	{kindFrozen, "frozen: # pages from table (~%% of total) had # tuples frozen", func(sk *collector, r *Record, v *nums) lineResult {
		if !isPct(v.f[0]) {
			return lineBad
		}
		r.PagesFrozen, r.PagesFrozenPct, r.TuplesFrozen = sk.num(v, 0), sk.dec(v, 0), sk.num(v, 1)
		return lineOK
	}},
	{kindVM, "visibility map: # pages set all-visible, # pages set all-frozen (# were all-visible)", func(sk *collector, r *Record, v *nums) lineResult {
		r.VMPagesSetAllVisible, r.VMPagesSetAllFrozen, r.VMPagesWereAllVisible = sk.num(v, 0), sk.num(v, 1), sk.num(v, 2)
		return lineOK
	}},
	{kindIndexScan, "index scan needed: # pages from table (~%% of total) had # dead item identifiers removed", indexScan("needed")},
	{kindIndexScan, "index scan not needed: # pages from table (~%% of total) had # dead item identifiers removed", indexScan("not needed")},
	{kindIndexScan, "index scan bypassed: # pages from table (~%% of total) have # dead item identifiers", indexScan("bypassed")},
	{kindIndexScan, "index scan bypassed by failsafe: # pages from table (~%% of total) have # dead item identifiers", indexScan("bypassed by failsafe")},
	{kindIndexPages, `index "%": pages: # in total, # newly deleted, # currently deleted, # reusable`, indexPages},
	{kindDelay, "delay time: ~ ms", func(sk *collector, r *Record, v *nums) lineResult {
		r.DelayMs = sk.dec(v, 0)
		return lineOK
	}},
	{kindIOTimings, "I/O timings: read: ~ ms, write: ~ ms", func(sk *collector, r *Record, v *nums) lineResult {
		r.IOReadMs, r.IOWriteMs = sk.dec(v, 0), sk.dec(v, 1)
		return lineOK
	}},
	{kindRates, "avg read rate: ~ MB/s, avg write rate: ~ MB/s", func(sk *collector, r *Record, v *nums) lineResult {
		r.AvgReadMBs, r.AvgWriteMBs = sk.dec(v, 0), sk.dec(v, 1)
		return lineOK
	}},
	{kindBuffers, "buffer usage: # hits, # misses, # dirtied", func(sk *collector, r *Record, v *nums) lineResult { // up to 17
		r.BufferHits, r.BufferMisses, r.BufferDirtied = sk.num(v, 0), sk.num(v, 1), sk.num(v, 2)
		return lineOK
	}},
	{kindBuffers, "buffer usage: # hits, # reads, # dirtied", func(sk *collector, r *Record, v *nums) lineResult { // 18
		r.BufferHits, r.BufferReads, r.BufferDirtied = sk.num(v, 0), sk.num(v, 1), sk.num(v, 2)
		return lineOK
	}},
	{kindWAL, "WAL usage: # records, # full page images, # bytes[, # buffers full]", wal}, // the group: 18
	{kindCPU, "system usage: CPU: user: ~ s, system: ~ s, elapsed: ~ s[.]", cpu},
	{kindCPU, "CPU: user: ~ s, system: ~ s, elapsed: ~ s[.]", cpu},                    // 13's and 14's DETAIL end with "."
	{kindUnused, "There were # unused item identifier[s].", unusedItems},              // 13
	{kindSkipped, "Skipped # page[s] due to buffer pins, # frozen page[s].", skipped}, // 13 and 14
	{kindTuples, "# dead row versions cannot be removed yet, oldest xmin: #", func(sk *collector, r *Record, v *nums) lineResult { // 13 and 14
		r.TuplesDeadNotYetRemovable, r.OldestXmin = sk.num(v, 0), sk.num(v, 1)
		return lineOK
	}},
	{kindEmpty, "# pages are entirely empty.", emptyPages},
	{kindEmpty, "# page is entirely empty.", emptyPages},
}

// summaryIndex is summaryRows, compiled, by the first byte of the line
// they read, so that a line is matched against a few rows, not all: a row
// that starts with a number is tried for lines that start with a digit.
var summaryIndex = func() (ix [256][]*compiledRow) {
	for _, r := range summaryRows {
		row := &compiledRow{r.kind, compile(r.line), r.fill}
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

// summaryLine reads a line of record i's summary, warning of one whose
// numbers contradict each other, of a kind the record got before, and of
// its numbers that do not fit their fields.
func (st *stream) summaryLine(i int, s string, line int) bool {
	res := st.summary(i, s)
	switch res {
	case lineBad:
		st.sink.warn(line, s, "numbers that contradict each other in "+st.what())
	case lineRepeated:
		st.sink.warn(line, s, "a second line of this kind in "+st.what()+": the first is kept, this one is not read")
	case lineNegative:
		st.sink.warn(line, s, "a negative figure in "+st.what()+", where the server prints counts, sizes and durations (a clock set back, or the line garbled): the line is not read, its fields left out (unknown, not zero)")
		if st.whole {
			st.finishWhole(i)
		}
	case lineNotAnalyze:
		st.sink.warn(line, s, "a line only a vacuum prints, in "+st.what()+": not read")
	case lineOK:
		st.nlines++
		st.warnOverflow(line, s)
		if st.whole {
			st.finishWhole(i)
		}
	}
	return res != lineUnknown
}

// finishWhole ends record i, a whole record's summary, once it got its
// last line, so that it is handed out then rather than when the next line
// comes (which, in a quiet server's log, may be never). PostgreSQL ends
// each such summary (heap_vacuum_rel's and do_analyze_rel's message: an
// autovacuum or autoanalyze entry, 15+'s "finished vacuuming", 18's
// "finished analyzing table") with "system usage", but for 13's autovacuum
// entry, which ends with "WAL usage" after it; a VACUUM's summary has
// both in every version, an ANALYZE's a "WAL usage" line only from 18.
// A summary missing one of them (cut short, or lines lost) waits for the
// next line, as before.
func (st *stream) finishWhole(i int) {
	if !st.sink.got(i, kindCPU) || st.sink.rec(i).Operation == "vacuum" && !st.sink.got(i, kindWAL) {
		return
	}
	st.forget(i)
	st.kind = partDone
}

// summary fills record i from s, the first row of summaryRows that s is,
// unless the record got a line of that kind before.
func (st *stream) summary(i int, s string) lineResult {
	if s == "" {
		return lineUnknown
	}
	v := &st.nmb
	for _, row := range summaryIndex[s[0]] {
		if !row.pat.match(s, v) {
			continue
		}
		if v.negative() {
			// The line is there, unread: the record got its kind, and
			// may end with it.
			if row.kind != kindIndexPages {
				st.sink.seen(i, row.kind)
			}
			return lineNegative
		}
		if vacuumOnly(row.kind) && st.sink.rec(i).Operation == "analyze" {
			return lineNotAnalyze
		}
		if row.kind != kindIndexPages && st.sink.seen(i, row.kind) {
			return lineRepeated
		}
		return row.fill(st.sink, st.sink.rec(i), v)
	}
	return lineUnknown
}

// warnOverflow warns of each number of the line just read that does not
// fit its field, which is left out: unknown, not zero.
func (st *stream) warnOverflow(line int, raw string) {
	v := &st.nmb
	if v.over == 0 {
		return // mostly
	}
	for b := range len(v.big) {
		if v.over&(1<<b) == 0 {
			continue
		}
		st.warnNotFit(line, raw, v.big[b], b >= overFloat)
	}
}

// warnNotFit warns that number, of line, does not fit an int64 (or, for a
// decimal, a float64), and that its field is left out.
func (st *stream) warnNotFit(line int, raw, number string, decimal bool) {
	kind := "a 64-bit integer"
	if decimal {
		kind = "a float64"
	}
	st.sink.warn(line, raw, fmt.Sprintf("%s does not fit %s: its field is left out (unknown, not zero)", parse.Quote(number), kind))
}

// pagesScanned reads 15+'s pages line. More pages scanned than the table
// had is a contradiction, when all three numbers are known; the sum is
// not taken (it may overflow), the difference of two non-negative ones is.
func pagesScanned(sk *collector, r *Record, v *nums) lineResult {
	removed, remain, scanned := v.i[0], v.i[1], v.i[2]
	if removed < 0 || remain < 0 || scanned < 0 || v.fits(7) && scanned-remain > removed || !isPct(v.f[0]) || v.n == 4 && v.i[3] < 0 {
		return lineBad
	}
	r.PagesRemoved, r.PagesRemain, r.PagesScanned = sk.num(v, 0), sk.num(v, 1), sk.num(v, 2)
	r.PagesScannedPct = sk.dec(v, 0)
	if v.n == 4 {
		r.PagesEagerlyScanned = sk.num(v, 3)
	}
	return lineOK
}

func pagesSkipped(sk *collector, r *Record, v *nums) lineResult {
	removed, remain := v.i[0], v.i[1]
	if removed < 0 || remain < 0 || v.i[2] < 0 || v.i[3] < 0 {
		return lineBad
	}
	r.PagesRemoved, r.PagesRemain = sk.num(v, 0), sk.num(v, 1)
	r.PagesSkippedPinned, r.PagesSkippedFrozen = sk.num(v, 2), sk.num(v, 3)
	if r.PagesScanned.Valid && v.fits(3) && r.PagesScanned.V-remain > removed {
		r.PagesScanned = parse.Opt[int64]{}
		return lineBad
	}
	return lineOK
}

func tuples(sk *collector, r *Record, v *nums) lineResult {
	r.TuplesRemoved, r.TuplesRemain, r.TuplesDeadNotYetRemovable = sk.num(v, 0), sk.num(v, 1), sk.num(v, 2)
	if v.n == 4 {
		r.OldestXmin = sk.num(v, 3)
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
		r.DeadItemPages, r.DeadItemPagesPct, r.DeadItemIDs = sk.num(v, 0), sk.dec(v, 0), sk.num(v, 1)
		if strings.HasSuffix(status, "by failsafe") {
			r.Failsafe = true
		}
		return lineOK
	}
}

// indexPages reads an index's line; a second line about the same index is
// a repeat (see lineKind).
func indexPages(sk *collector, r *Record, v *nums) lineResult {
	ix := &r.Indexes[sk.index(r, v.name)]
	if ix.PagesTotal.Valid || ix.PagesReusable.Valid {
		return lineRepeated
	}
	ix.PagesTotal, ix.PagesNewlyDeleted = sk.num(v, 0), sk.num(v, 1)
	ix.PagesCurrentlyDeleted, ix.PagesReusable = sk.num(v, 2), sk.num(v, 3)
	return lineOK
}

func wal(sk *collector, r *Record, v *nums) lineResult {
	if v.n == 4 {
		r.WALBuffersFull = sk.num(v, 3)
	}
	r.WALRecords, r.WALFullPageImages, r.WALBytes = sk.num(v, 0), sk.num(v, 1), sk.num(v, 2)
	return lineOK
}

func cpu(sk *collector, r *Record, v *nums) lineResult {
	if v.f[0] < 0 || v.f[1] < 0 || v.f[2] < 0 {
		return lineBad
	}
	r.CPUUserS, r.CPUSystemS, r.ElapsedS = sk.dec(v, 0), sk.dec(v, 1), sk.dec(v, 2)
	return lineOK
}

func unusedItems(sk *collector, r *Record, v *nums) lineResult {
	r.UnusedItemIDs = sk.num(v, 0)
	return lineOK
}

func skipped(sk *collector, r *Record, v *nums) lineResult {
	r.PagesSkippedPinned, r.PagesSkippedFrozen = sk.num(v, 0), sk.num(v, 1)
	return lineOK
}

func emptyPages(sk *collector, r *Record, v *nums) lineResult {
	r.PagesEmpty = sk.num(v, 0)
	return lineOK
}

// isPct reports whether p is a percentage.
func isPct(p float64) bool { return p >= 0 && p <= 100 }
