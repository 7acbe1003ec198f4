package vacuum

import "github.com/pgstudy/pgstudy/parse/internal/jsonw"

// AppendJSON appends r as an encoding/json Encoder with
// SetEscapeHTML(false) writes it (without the newline), the fields in the
// struct's order and omitted as its tags say: pgstudy parse writes
// records by the million, and encoding/json's reflection cost several
// times what parsing them did. It fails with jsonw.ErrUnsupported where
// encoding/json fails (a NaN or infinite figure), for the caller to let
// encoding/json write the record and report its error. TestAppendJSON
// checks it against encoding/json on every fixture's records.
func (r *Record) AppendJSON(b []byte) ([]byte, error) {
	e := jsonw.Enc{B: b}
	e.Open()
	r.jsonHead(&e)
	r.jsonPages(&e)
	r.jsonXIDs(&e)
	e.OmitString("index_scan", r.IndexScan)
	e.OptInt("dead_item_pages", r.DeadItemPages)
	e.OptFloat("dead_item_pages_pct", r.DeadItemPagesPct)
	e.OptInt("dead_item_ids", r.DeadItemIDs)
	if len(r.Indexes) > 0 {
		e.OpenArray("indexes")
		for i := range r.Indexes {
			r.Indexes[i].appendJSON(&e)
		}
		e.CloseArray()
	}
	r.jsonIO(&e)
	if len(r.Analyze) > 0 {
		e.OpenArray("analyze")
		for i := range r.Analyze {
			r.Analyze[i].appendJSON(&e)
		}
		e.CloseArray()
	}
	e.Close()
	return e.B, e.Err
}

// jsonHead writes what names the record: where, what and how.
func (r *Record) jsonHead(e *jsonw.Enc) {
	e.Int("line", int64(r.Line))
	e.String("operation", r.Operation)
	e.OmitString("database", r.Database)
	e.OmitString("schema", r.Schema)
	e.String("table", r.Table)
	e.OmitString("toast_of", r.ToastOf)
	e.Bool("automatic", r.Automatic)
	e.Bool("aggressive", r.Aggressive)
	e.Bool("to_prevent_wraparound", r.ToPreventWraparound)
	e.OmitBool("failsafe", r.Failsafe)
	e.OmitBool("inheritance_tree", r.InheritanceTree)
	e.OmitString("log_time", r.LogTime)
	e.OmitString("pid", r.PID)
	e.OptInt("index_scans", r.IndexScans)
}

// jsonPages writes the pages and tuples.
func (r *Record) jsonPages(e *jsonw.Enc) {
	e.OptInt("pages_removed", r.PagesRemoved)
	e.OptInt("pages_remain", r.PagesRemain)
	e.OptInt("pages_scanned", r.PagesScanned)
	e.OptFloat("pages_scanned_pct", r.PagesScannedPct)
	e.OptInt("pages_eagerly_scanned", r.PagesEagerlyScanned)
	e.OptInt("pages_skipped_pinned", r.PagesSkippedPinned)
	e.OptInt("pages_skipped_frozen", r.PagesSkippedFrozen)
	e.OptInt("pages_empty", r.PagesEmpty)
	e.OptInt("tuples_removed", r.TuplesRemoved)
	e.OptInt("tuples_remain", r.TuplesRemain)
	e.OptInt("tuples_nonremovable", r.TuplesNonremovable)
	e.OptInt("tuples_dead_not_yet_removable", r.TuplesDeadNotYetRemovable)
	e.OptInt("tuples_missed_dead", r.TuplesMissedDead)
	e.OptInt("pages_missed_dead", r.PagesMissedDead)
	e.OptInt("unused_item_ids", r.UnusedItemIDs)
}

// jsonXIDs writes the cutoffs, the new frozen XIDs and what was frozen.
func (r *Record) jsonXIDs(e *jsonw.Enc) {
	e.OptInt("removable_cutoff_xid", r.RemovableCutoffXID)
	e.OptInt("removable_cutoff_age_xids", r.RemovableCutoffAgeXIDs)
	e.OptInt("oldest_xmin", r.OldestXmin)
	e.OptInt("new_relfrozenxid", r.NewRelfrozenXID)
	e.OptInt("new_relfrozenxid_ahead_xids", r.RelfrozenXIDAheadXIDs)
	e.OptInt("new_relminmxid", r.NewRelminMXID)
	e.OptInt("new_relminmxid_ahead_mxids", r.RelminMXIDAheadMXIDs)
	e.OptInt("pages_frozen", r.PagesFrozen)
	e.OptFloat("pages_frozen_pct", r.PagesFrozenPct)
	e.OptInt("tuples_frozen", r.TuplesFrozen)
	e.OptInt("vm_pages_set_all_visible", r.VMPagesSetAllVisible)
	e.OptInt("vm_pages_set_all_frozen", r.VMPagesSetAllFrozen)
	e.OptInt("vm_pages_were_all_visible", r.VMPagesWereAllVisible)
}

// jsonIO writes the delay, I/O, buffers, WAL and CPU.
func (r *Record) jsonIO(e *jsonw.Enc) {
	e.OptFloat("delay_ms", r.DelayMs)
	e.OptFloat("io_read_ms", r.IOReadMs)
	e.OptFloat("io_write_ms", r.IOWriteMs)
	e.OptFloat("avg_read_mb_s", r.AvgReadMBs)
	e.OptFloat("avg_write_mb_s", r.AvgWriteMBs)
	e.OptInt("buffer_hits", r.BufferHits)
	e.OptInt("buffer_misses", r.BufferMisses)
	e.OptInt("buffer_reads", r.BufferReads)
	e.OptInt("buffer_dirtied", r.BufferDirtied)
	e.OptInt("wal_records", r.WALRecords)
	e.OptInt("wal_full_page_images", r.WALFullPageImages)
	e.OptInt("wal_bytes", r.WALBytes)
	e.OptInt("wal_buffers_full", r.WALBuffersFull)
	e.OptFloat("cpu_user_s", r.CPUUserS)
	e.OptFloat("cpu_system_s", r.CPUSystemS)
	e.OptFloat("elapsed_s", r.ElapsedS)
}

func (x *Index) appendJSON(e *jsonw.Enc) {
	e.Open()
	e.String("name", x.Name)
	e.OptInt("pages_total", x.PagesTotal)
	e.OptInt("pages_newly_deleted", x.PagesNewlyDeleted)
	e.OptInt("pages_currently_deleted", x.PagesCurrentlyDeleted)
	e.OptInt("pages_reusable", x.PagesReusable)
	e.OptInt("scans", x.Scans)
	e.OptInt("tuples_to_remove", x.TuplesToRemove)
	e.OptInt("tuples_removed", x.TuplesRemoved)
	e.OptInt("tuples_remain", x.TuplesRemain)
	e.Close()
}

func (s *AnalyzeSample) appendJSON(e *jsonw.Enc) {
	e.Open()
	e.String("table", s.Table)
	e.Int("pages_scanned", s.PagesScanned)
	e.Int("pages_total", s.PagesTotal)
	e.Int("live_rows", s.LiveRows)
	e.Int("dead_rows", s.DeadRows)
	e.Int("sample_rows", s.SampleRows)
	e.Int("estimated_total_rows", s.EstimatedTotalRows)
	e.Close()
}
