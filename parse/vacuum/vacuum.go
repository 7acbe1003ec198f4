// Package vacuum reads VACUUM (VERBOSE) and ANALYZE VERBOSE output into one
// record per table: as psql printed it, as a driver received it, or as the
// autovacuum entries of a server log.
//
// Parse reads what psql printed for VACUUM (VERBOSE) (and ANALYZE VERBOSE)
// statements, Notices the same server messages as a driver received
// them, and AutovacuumSeq the autovacuum entries of a server log. The three
// share one reader of the server's messages, so that the same run gives
// the same records whichever way it was captured:
//
//  1. A message starts a record, adds to one, or is not about vacuuming.
//     "vacuuming" and "aggressively vacuuming" start a VACUUM record
//     ("schema.table" up to 14, "db.schema.table" from 15); "finished
//     vacuuming" (15+) carries the summary of the table being vacuumed,
//     one line per fact; up to 14 the facts arrive as separate messages
//     ("scanned index", "removed", "index ... now contains", "found",
//     "truncated"), each with its DETAIL, and add to the table's record.
//     "analyzing" starts an ANALYZE record, its "scanned N of M pages"
//     lines are its samples (one per child of an inheritance tree), and
//     18's "finished analyzing table" adds its resource usage. In a server
//     log, "automatic [aggressive ]vacuum [to prevent wraparound ]of table"
//     and "automatic analyze of table" each carry a whole record.
//  2. A TOAST table's record (schema pg_toast) names its main table in
//     ToastOf when it directly follows that table's record in the same
//     statement, which is how VACUUM orders them. Autovacuum processes a
//     TOAST table on its own, so its records are not linked.
//  3. A line of a summary that is not understood is a Warning; the other
//     lines still count. So are server errors and warnings in psql's
//     output and notices (a VACUUM that failed), a message not about
//     vacuuming, a record that never got its summary, and numbers that
//     contradict each other (more pages scanned than the table has, a
//     percentage over 100), which are left out of the record. A second
//     summary line of a kind the record already got (two "WAL usage:"
//     lines in one entry, as entries interleaved or a garbled log give) is
//     a warning and is not read: the first stays. An autovacuum entry
//     without its "system usage" line (cut short by the log's end, or
//     lines lost) is a warning too.
//  4. A field the server did not print is absent (its parse.Opt not
//     Valid, left out of the JSON). Up to 14 a manual VACUUM
//     prints no "index scans" count, no buffer, WAL or rate lines, no
//     "pages removed" unless it truncated, and "nonremovable" row versions
//     (TuplesNonremovable) where later versions print "remain"
//     (TuplesRemain, an estimate for the whole table); the two are kept
//     apart. 17 and older count buffer "misses" (BufferMisses), 18 "reads"
//     (BufferReads); they are never merged. A number is read whole: one
//     that does not fit its field (WAL bytes are printed unsigned, up to
//     2^64-1; 13's tuples are doubles) leaves that field absent, with a
//     warning naming it, and the line's other fields are read. A sum
//     (13's and 14's passes) that would overflow is absent for good.
//
// ANALYZE output is recorded, as a record of its own with Operation
// "analyze", not folded into the VACUUM record of the same table: an
// autoanalyze runs on its own schedule, and VACUUM (ANALYZE) analyzes after
// vacuuming the table and its TOAST table.
//
// A server log is read in stderr, csvlog, jsonlog, syslog or journald
// format (AutovacuumSeq): the other formats are turned back into the lines
// the stderr format prints, so one reader reads them all.
//
// ParseSeq and AutovacuumSeq read psql's output and a server log a record
// at a time, each yielded as soon as no line to come can add to it, in
// memory bounded whatever the input's size (handout.go says how); Parse
// and Notices collect what ParseSeq and NoticesSeq yield.
//
// Names are printed raw, neither quoted nor escaped (names.go says how
// they are read): a double quote, spaces, a colon are kept; a name with
// more dots than the message joins names is ambiguous, read with the table
// taking the rest, and warned of.
//
// Known limits: messages in a language other than English (lc_messages)
// are not read, and refused; in a syslog file, a message whose lines are
// more than 256 messages apart is read in two parts; a name holding a
// newline is not read (its entry is a warning); 13's and 14's "vacuuming
// "a.b.c"" is taken for 15's "db.schema.table" until a later message names
// the table alone, and up to then, as 15's, may be handed out so.
package vacuum

import "github.com/pgstudy/pgstudy/parse"

// Record is one table's VACUUM or ANALYZE, as the server reported it.
//
// Its figures are parse.Opt values, not pointers: a record holds no
// pointer but its names and its lists, so that keeping thousands of them
// (Parse, Notices) costs the garbage collector a few pointers a record
// to trace, not fifty, and filling one stores no pointer under the write
// barrier; in JSON an absent figure is left out, as a nil pointer was.
type Record struct {
	Line      int    `json:"line"`      // where the record starts in the input
	Operation string `json:"operation"` // "vacuum" or "analyze"
	Database  string `json:"database,omitempty"`
	Schema    string `json:"schema,omitempty"`
	Table     string `json:"table"`
	// ToastOf is "schema.table" of the main table of a TOAST table's record.
	ToastOf             string `json:"toast_of,omitempty"`
	Automatic           bool   `json:"automatic"`
	Aggressive          bool   `json:"aggressive"`
	ToPreventWraparound bool   `json:"to_prevent_wraparound"`
	// Failsafe: the server bypassed index vacuuming to avoid wraparound
	// ("index scan bypassed by failsafe", or 14+'s WARNING "bypassing
	// nonessential maintenance").
	Failsafe bool `json:"failsafe,omitempty"`
	// InheritanceTree: an ANALYZE of a partitioned or inheritance parent.
	InheritanceTree bool `json:"inheritance_tree,omitempty"`
	// LogTime and PID come from a server log's line prefix, as printed.
	LogTime string `json:"log_time,omitempty"`
	PID     string `json:"pid,omitempty"`

	IndexScans          parse.Opt[int64]   `json:"index_scans,omitzero"`
	PagesRemoved        parse.Opt[int64]   `json:"pages_removed,omitzero"`
	PagesRemain         parse.Opt[int64]   `json:"pages_remain,omitzero"`
	PagesScanned        parse.Opt[int64]   `json:"pages_scanned,omitzero"`
	PagesScannedPct     parse.Opt[float64] `json:"pages_scanned_pct,omitzero"`
	PagesEagerlyScanned parse.Opt[int64]   `json:"pages_eagerly_scanned,omitzero"` // 18
	PagesSkippedPinned  parse.Opt[int64]   `json:"pages_skipped_pinned,omitzero"`  // up to 14
	PagesSkippedFrozen  parse.Opt[int64]   `json:"pages_skipped_frozen,omitzero"`  // up to 14
	PagesEmpty          parse.Opt[int64]   `json:"pages_empty,omitzero"`           // 13

	TuplesRemoved parse.Opt[int64] `json:"tuples_removed,omitzero"`
	TuplesRemain  parse.Opt[int64] `json:"tuples_remain,omitzero"`
	// TuplesNonremovable is 13's and 14's "N nonremovable row versions" of
	// a manual VACUUM: the row versions found in the pages scanned.
	TuplesNonremovable        parse.Opt[int64] `json:"tuples_nonremovable,omitzero"`
	TuplesDeadNotYetRemovable parse.Opt[int64] `json:"tuples_dead_not_yet_removable,omitzero"`
	// TuplesMissedDead and PagesMissedDead: 15+'s "tuples missed: N dead
	// from M pages not removed due to cleanup lock contention".
	TuplesMissedDead parse.Opt[int64] `json:"tuples_missed_dead,omitzero"`
	PagesMissedDead  parse.Opt[int64] `json:"pages_missed_dead,omitzero"`
	UnusedItemIDs    parse.Opt[int64] `json:"unused_item_ids,omitzero"` // 13

	RemovableCutoffXID     parse.Opt[int64] `json:"removable_cutoff_xid,omitzero"`      // 15+
	RemovableCutoffAgeXIDs parse.Opt[int64] `json:"removable_cutoff_age_xids,omitzero"` // "which was N XIDs old"
	OldestXmin             parse.Opt[int64] `json:"oldest_xmin,omitzero"`               // up to 14
	NewRelfrozenXID        parse.Opt[int64] `json:"new_relfrozenxid,omitzero"`
	RelfrozenXIDAheadXIDs  parse.Opt[int64] `json:"new_relfrozenxid_ahead_xids,omitzero"`
	NewRelminMXID          parse.Opt[int64] `json:"new_relminmxid,omitzero"`
	RelminMXIDAheadMXIDs   parse.Opt[int64] `json:"new_relminmxid_ahead_mxids,omitzero"`

	PagesFrozen    parse.Opt[int64]   `json:"pages_frozen,omitzero"` // 16+
	PagesFrozenPct parse.Opt[float64] `json:"pages_frozen_pct,omitzero"`
	TuplesFrozen   parse.Opt[int64]   `json:"tuples_frozen,omitzero"`

	VMPagesSetAllVisible  parse.Opt[int64] `json:"vm_pages_set_all_visible,omitzero"` // 18
	VMPagesSetAllFrozen   parse.Opt[int64] `json:"vm_pages_set_all_frozen,omitzero"`
	VMPagesWereAllVisible parse.Opt[int64] `json:"vm_pages_were_all_visible,omitzero"`

	// IndexScan is "needed", "not needed", "bypassed" or "bypassed by
	// failsafe" (14+). DeadItemPages and DeadItemIDs are the heap pages with
	// dead item identifiers and their number; up to 14 a manual VACUUM
	// prints them per pass ("removed N row versions in M pages"), and they
	// are summed.
	IndexScan        string             `json:"index_scan,omitempty"`
	DeadItemPages    parse.Opt[int64]   `json:"dead_item_pages,omitzero"`
	DeadItemPagesPct parse.Opt[float64] `json:"dead_item_pages_pct,omitzero"`
	DeadItemIDs      parse.Opt[int64]   `json:"dead_item_ids,omitzero"`

	Indexes []Index `json:"indexes,omitempty"`

	DelayMs   parse.Opt[float64] `json:"delay_ms,omitzero"` // 18, track_cost_delay_timing
	IOReadMs  parse.Opt[float64] `json:"io_read_ms,omitzero"`
	IOWriteMs parse.Opt[float64] `json:"io_write_ms,omitzero"`

	AvgReadMBs  parse.Opt[float64] `json:"avg_read_mb_s,omitzero"`
	AvgWriteMBs parse.Opt[float64] `json:"avg_write_mb_s,omitzero"`

	BufferHits    parse.Opt[int64] `json:"buffer_hits,omitzero"`
	BufferMisses  parse.Opt[int64] `json:"buffer_misses,omitzero"` // up to 17
	BufferReads   parse.Opt[int64] `json:"buffer_reads,omitzero"`  // 18
	BufferDirtied parse.Opt[int64] `json:"buffer_dirtied,omitzero"`

	WALRecords        parse.Opt[int64] `json:"wal_records,omitzero"`
	WALFullPageImages parse.Opt[int64] `json:"wal_full_page_images,omitzero"`
	WALBytes          parse.Opt[int64] `json:"wal_bytes,omitzero"`
	WALBuffersFull    parse.Opt[int64] `json:"wal_buffers_full,omitzero"` // 18

	CPUUserS   parse.Opt[float64] `json:"cpu_user_s,omitzero"`
	CPUSystemS parse.Opt[float64] `json:"cpu_system_s,omitzero"`
	ElapsedS   parse.Opt[float64] `json:"elapsed_s,omitzero"`

	// Analyze holds an ANALYZE record's samples: one, or one per child of
	// an inheritance tree.
	Analyze []AnalyzeSample `json:"analyze,omitempty"`
}

// Index is what VACUUM reported about one index of the table.
type Index struct {
	Name                  string           `json:"name"`
	PagesTotal            parse.Opt[int64] `json:"pages_total,omitzero"`
	PagesNewlyDeleted     parse.Opt[int64] `json:"pages_newly_deleted,omitzero"` // 14+
	PagesCurrentlyDeleted parse.Opt[int64] `json:"pages_currently_deleted,omitzero"`
	PagesReusable         parse.Opt[int64] `json:"pages_reusable,omitzero"`
	// Up to 14 a manual VACUUM also prints, per index: the row versions
	// each pass asked it to remove ("scanned index ... to remove N row
	// versions", summed, and how many such scans), the index row versions
	// it removed and the row versions it now contains.
	Scans          parse.Opt[int64] `json:"scans,omitzero"`
	TuplesToRemove parse.Opt[int64] `json:"tuples_to_remove,omitzero"`
	TuplesRemoved  parse.Opt[int64] `json:"tuples_removed,omitzero"`
	TuplesRemain   parse.Opt[int64] `json:"tuples_remain,omitzero"`
}

// AnalyzeSample is one "\"t\": scanned N of M pages, containing ..." line
// of ANALYZE VERBOSE.
type AnalyzeSample struct {
	Table              string `json:"table"`
	PagesScanned       int64  `json:"pages_scanned"`
	PagesTotal         int64  `json:"pages_total"`
	LiveRows           int64  `json:"live_rows"`
	DeadRows           int64  `json:"dead_rows"`
	SampleRows         int64  `json:"sample_rows"`
	EstimatedTotalRows int64  `json:"estimated_total_rows"`
}

// Notice is a message the server sent to the client (VACUUM VERBOSE's
// INFO messages arrive this way), with the fields a driver receives.
type Notice struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Detail   string `json:"detail"`
	Hint     string `json:"hint"`
	Where    string `json:"where"`
}
