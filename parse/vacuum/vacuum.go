package vacuum

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/psqlloc"
)

// Reading VACUUM (VERBOSE)
//
// Vacuum reads what psql printed for VACUUM (VERBOSE) (and ANALYZE VERBOSE)
// statements, Notices the same server messages as a driver received
// them, and Autovacuum the autovacuum entries of a server log. The three
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
//     percentage over 100), which are left out of the record.
//  4. A field the server did not print is nil. Up to 14 a manual VACUUM
//     prints no "index scans" count, no buffer, WAL or rate lines, no
//     "pages removed" unless it truncated, and "nonremovable" row versions
//     (TuplesNonremovable) where later versions print "remain"
//     (TuplesRemain, an estimate for the whole table); the two are kept
//     apart. 17 and older count buffer "misses" (BufferMisses), 18 "reads"
//     (BufferReads); they are never merged.
//
// ANALYZE output is recorded, as a record of its own with Operation
// "analyze", not folded into the VACUUM record of the same table: an
// autoanalyze runs on its own schedule, and VACUUM (ANALYZE) analyzes after
// vacuuming the table and its TOAST table.
//
// Known limits: a table or schema name holding a dot or a double quote is
// split or cut wrongly (the server prints names unquoted); messages in a
// language other than English (lc_messages) are not read.

// Record is one table's VACUUM or ANALYZE, as the server reported it.
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

	IndexScans          *int64   `json:"index_scans,omitempty"`
	PagesRemoved        *int64   `json:"pages_removed,omitempty"`
	PagesRemain         *int64   `json:"pages_remain,omitempty"`
	PagesScanned        *int64   `json:"pages_scanned,omitempty"`
	PagesScannedPct     *float64 `json:"pages_scanned_pct,omitempty"`
	PagesEagerlyScanned *int64   `json:"pages_eagerly_scanned,omitempty"` // 18
	PagesSkippedPinned  *int64   `json:"pages_skipped_pinned,omitempty"`  // up to 14
	PagesSkippedFrozen  *int64   `json:"pages_skipped_frozen,omitempty"`  // up to 14
	PagesEmpty          *int64   `json:"pages_empty,omitempty"`           // 13

	TuplesRemoved *int64 `json:"tuples_removed,omitempty"`
	TuplesRemain  *int64 `json:"tuples_remain,omitempty"`
	// TuplesNonremovable is 13's and 14's "N nonremovable row versions" of
	// a manual VACUUM: the row versions found in the pages scanned.
	TuplesNonremovable        *int64 `json:"tuples_nonremovable,omitempty"`
	TuplesDeadNotYetRemovable *int64 `json:"tuples_dead_not_yet_removable,omitempty"`
	// TuplesMissedDead and PagesMissedDead: 15+'s "tuples missed: N dead
	// from M pages not removed due to cleanup lock contention".
	TuplesMissedDead *int64 `json:"tuples_missed_dead,omitempty"`
	PagesMissedDead  *int64 `json:"pages_missed_dead,omitempty"`
	UnusedItemIDs    *int64 `json:"unused_item_ids,omitempty"` // 13

	RemovableCutoffXID     *int64 `json:"removable_cutoff_xid,omitempty"`      // 15+
	RemovableCutoffAgeXIDs *int64 `json:"removable_cutoff_age_xids,omitempty"` // "which was N XIDs old"
	OldestXmin             *int64 `json:"oldest_xmin,omitempty"`               // up to 14
	NewRelfrozenXID        *int64 `json:"new_relfrozenxid,omitempty"`
	RelfrozenXIDAheadXIDs  *int64 `json:"new_relfrozenxid_ahead_xids,omitempty"`
	NewRelminMXID          *int64 `json:"new_relminmxid,omitempty"`
	RelminMXIDAheadMXIDs   *int64 `json:"new_relminmxid_ahead_mxids,omitempty"`

	PagesFrozen    *int64   `json:"pages_frozen,omitempty"` // 16+
	PagesFrozenPct *float64 `json:"pages_frozen_pct,omitempty"`
	TuplesFrozen   *int64   `json:"tuples_frozen,omitempty"`

	VMPagesSetAllVisible  *int64 `json:"vm_pages_set_all_visible,omitempty"` // 18
	VMPagesSetAllFrozen   *int64 `json:"vm_pages_set_all_frozen,omitempty"`
	VMPagesWereAllVisible *int64 `json:"vm_pages_were_all_visible,omitempty"`

	// IndexScan is "needed", "not needed", "bypassed" or "bypassed by
	// failsafe" (14+). DeadItemPages and DeadItemIDs are the heap pages with
	// dead item identifiers and their number; up to 14 a manual VACUUM
	// prints them per pass ("removed N row versions in M pages"), and they
	// are summed.
	IndexScan        string   `json:"index_scan,omitempty"`
	DeadItemPages    *int64   `json:"dead_item_pages,omitempty"`
	DeadItemPagesPct *float64 `json:"dead_item_pages_pct,omitempty"`
	DeadItemIDs      *int64   `json:"dead_item_ids,omitempty"`

	Indexes []Index `json:"indexes,omitempty"`

	DelayMs   *float64 `json:"delay_ms,omitempty"` // 18, track_cost_delay_timing
	IOReadMs  *float64 `json:"io_read_ms,omitempty"`
	IOWriteMs *float64 `json:"io_write_ms,omitempty"`

	AvgReadMBs  *float64 `json:"avg_read_mb_s,omitempty"`
	AvgWriteMBs *float64 `json:"avg_write_mb_s,omitempty"`

	BufferHits    *int64 `json:"buffer_hits,omitempty"`
	BufferMisses  *int64 `json:"buffer_misses,omitempty"` // up to 17
	BufferReads   *int64 `json:"buffer_reads,omitempty"`  // 18
	BufferDirtied *int64 `json:"buffer_dirtied,omitempty"`

	WALRecords        *int64 `json:"wal_records,omitempty"`
	WALFullPageImages *int64 `json:"wal_full_page_images,omitempty"`
	WALBytes          *int64 `json:"wal_bytes,omitempty"`
	WALBuffersFull    *int64 `json:"wal_buffers_full,omitempty"` // 18

	CPUUserS   *float64 `json:"cpu_user_s,omitempty"`
	CPUSystemS *float64 `json:"cpu_system_s,omitempty"`
	ElapsedS   *float64 `json:"elapsed_s,omitempty"`

	// Analyze holds an ANALYZE record's samples: one, or one per child of
	// an inheritance tree.
	Analyze []AnalyzeSample `json:"analyze,omitempty"`
}

// Index is what VACUUM reported about one index of the table.
type Index struct {
	Name                  string `json:"name"`
	PagesTotal            *int64 `json:"pages_total,omitempty"`
	PagesNewlyDeleted     *int64 `json:"pages_newly_deleted,omitempty"` // 14+
	PagesCurrentlyDeleted *int64 `json:"pages_currently_deleted,omitempty"`
	PagesReusable         *int64 `json:"pages_reusable,omitempty"`
	// Up to 14 a manual VACUUM also prints, per index: the row versions
	// each pass asked it to remove ("scanned index ... to remove N row
	// versions", summed, and how many such scans), the index row versions
	// it removed and the row versions it now contains.
	Scans          *int64 `json:"scans,omitempty"`
	TuplesToRemove *int64 `json:"tuples_to_remove,omitempty"`
	TuplesRemoved  *int64 `json:"tuples_removed,omitempty"`
	TuplesRemain   *int64 `json:"tuples_remain,omitempty"`
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

// Vacuum reads psql's output of VACUUM (VERBOSE) statements from
// PostgreSQL 13 to 18: the INFO and DETAIL lines, with or without psql's
// echo of the statements (-e), command tags, Time: lines and "Timing is
// on.", which are recognised and skipped. It returns one record per table
// vacuumed or analyzed, in order, as "Reading VACUUM (VERBOSE)" in vacuum.go describes.
// Input without any VACUUM VERBOSE message is an error, and so is output
// in another language (lc_messages, psql's locale), naming its first line.
func Parse(r io.Reader, source string) ([]Record, []parse.Warning, error) {
	sink := &collector{source: source}
	st := newStream(sink, false)
	unknown, unknownText := 0, ""
	warnUnknown := func(n int, line string) {
		if unknown == 0 {
			unknown, unknownText = n, line
		}
		sink.warn(n, line, "not VACUUM VERBOSE output")
	}
	// An echoed statement without a final ";" may go on over the next
	// lines; they are held until a line ending with ";" shows that they
	// were the statement's, and are not understood otherwise.
	echo := false
	var pending []held
	flush := func() {
		for _, p := range pending {
			warnUnknown(p.n, p.text)
		}
		pending, echo = pending[:0], false
	}
	ls := parse.NewLines(r, source)
	for ls.Next() {
		n, line := ls.Line(), ls.Text()
		s := stripLocation(line)
		if sev, msg, ok := splitLabel(s); ok {
			flush()
			st.part(sev, msg, line, n)
			continue
		}
		if line == "" {
			flush()
			st.end()
			continue
		}
		if st.active() {
			if st.cont(line, n) {
				continue
			}
			if !psqlNoise(line) && !sqlStart(line) {
				sink.warn(n, line, "unrecognized line in "+st.what())
				continue
			}
			st.end()
		}
		switch {
		case psqlNoise(line):
			flush()
			st.boundary()
		case echo && len(pending) < echoLines:
			pending = append(pending, held{n, line})
			if endsStatement(line) {
				pending, echo = pending[:0], false
			}
		case sqlStart(line):
			flush()
			st.boundary()
			echo = !endsStatement(line)
		default:
			flush()
			warnUnknown(n, line)
		}
	}
	if err := ls.Err(); err != nil {
		return nil, nil, err
	}
	flush()
	if err := sink.foreignError(); err != nil {
		return nil, nil, err
	}
	if len(sink.recs) == 0 {
		switch {
		case ls.Line() == 0:
			return nil, nil, parse.Errorf(source, 0, "empty input; expected psql's output of VACUUM (VERBOSE)")
		case unknown > 0:
			return nil, nil, parse.Errorf(source, unknown, "expected psql's output of VACUUM (VERBOSE) (INFO:  vacuuming \"table\"), found %s", parse.Quote(unknownText))
		default:
			return nil, nil, parse.Errorf(source, 0, "no VACUUM (VERBOSE) output (INFO:  vacuuming \"table\"); was VERBOSE given?")
		}
	}
	sink.finish()
	return sink.result(), sink.warns, nil
}

// Notices reads the messages a VACUUM (VERBOSE) statement sent, as a
// driver received them (see Notices), and returns the records Vacuum
// returns for the same run printed by psql. A record's Line, and a
// warning's, is the 1-based position of its notice in notices. Notices
// without any VACUUM VERBOSE message are an error.
func Notices(notices []Notice, source string) ([]Record, []parse.Warning, error) {
	if len(notices) == 0 {
		return nil, nil, parse.Errorf(source, 0, "no notices; expected the messages of VACUUM (VERBOSE)")
	}
	sink := &collector{source: source}
	st := newStream(sink, false)
	first := len(sink.warns)
	for i, nt := range notices {
		n := i + 1
		sev := nt.Severity
		if sev == "" {
			sev = "INFO"
		}
		msg, rest, more := strings.Cut(nt.Message, "\n")
		st.part(sev, msg, msg, n)
		for more {
			var l string
			l, rest, more = strings.Cut(rest, "\n")
			if !st.cont(l, n) && st.active() {
				sink.warn(n, l, "unrecognized line in "+st.what())
			}
		}
		if nt.Detail != "" {
			d, rest, more := strings.Cut(nt.Detail, "\n")
			st.part("DETAIL", d, d, n)
			for more {
				var l string
				l, rest, more = strings.Cut(rest, "\n")
				if !st.cont(l, n) && st.active() {
					sink.warn(n, l, "unrecognized line in "+st.what())
				}
			}
		}
		st.end()
	}
	if err := sink.foreignError(); err != nil {
		return nil, nil, err
	}
	if len(sink.recs) == 0 {
		if len(sink.warns) > first {
			w := sink.warns[first]
			return nil, nil, parse.Errorf(source, w.Line, "expected the messages of VACUUM (VERBOSE) (vacuuming \"table\"), found %s", parse.Quote(w.Text))
		}
		return nil, nil, parse.Errorf(source, 0, "no VACUUM (VERBOSE) message (vacuuming \"table\") among %d notices; was VERBOSE given?", len(notices))
	}
	sink.finish()
	return sink.result(), sink.warns, nil
}

// Notices reads notices as JSON Lines, one object a line with the fields
// of Notice ({"severity":"INFO","code":"00000","message":...}); other
// fields are ignored and blank lines skipped. A line that is not such an
// object is an error, and so is input without any notice.
func ReadNotices(r io.Reader, source string) ([]Notice, error) {
	ls := parse.NewLines(r, source)
	var out []Notice
	for ls.Next() {
		b := bytes.TrimSpace(ls.Bytes())
		if len(b) == 0 {
			continue
		}
		if b[0] != '{' {
			return nil, parse.Errorf(source, ls.Line(), "expected a JSON object (a notice), found %s", parse.Quote(string(b)))
		}
		var nt Notice
		if err := json.Unmarshal(b, &nt); err != nil {
			return nil, parse.Errorf(source, ls.Line(), "notice: %v", err)
		}
		if nt.Message == "" && nt.Severity == "" {
			return nil, parse.Errorf(source, ls.Line(), "expected a notice with a severity and a message, found %s", parse.Quote(string(b)))
		}
		out = append(out, nt)
	}
	if err := ls.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, parse.Errorf(source, 0, "empty input; expected notices as JSON lines")
	}
	return out, nil
}

// echoLines bounds the lines of one echoed statement after its first.
const echoLines = 20

// held is a line held until it is known what it is.
type held struct {
	n    int
	text string
}

// endsStatement reports whether an echoed line ends its statement.
func endsStatement(s string) bool {
	return strings.HasSuffix(strings.TrimRight(s, " \t"), ";")
}

// stripLocation removes the "psql:FILE:N: " psql puts before a
// message when it reads a script file.
func stripLocation(s string) string {
	_, _, rest, _ := psqlloc.Cut(s) // one reading of the prefix for every parser
	return rest
}

// psqlNoise reports whether a line is something psql printed of its
// own: a Time: line, its answer to a meta-command ("Timing is on.",
// "Expanded display is off.", ...) or a command tag ("VACUUM", "SET",
// "INSERT 0 1").
func psqlNoise(s string) bool {
	if strings.HasPrefix(s, "Time: ") && strings.Contains(s, " ms") {
		return true
	}
	if strings.HasSuffix(s, ".") {
		for _, p := range psqlAnswers {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
	}
	return commandTag(s)
}

// psqlAnswers start psql's answers to meta-commands.
var psqlAnswers = [...]string{"Timing is ", "Pager usage is ", "Expanded display is ", "Output format is ",
	"Null display is ", "Border style is ", "Tuples only is ", "Field separator is ", "Record separator is ",
	"You are now connected to database "}

// commandTag reports whether s is a command tag: upper-case words, then
// optional counts.
func commandTag(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	digits := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if digits {
				return false
			}
		case c >= '0' && c <= '9':
			if i == 0 || (s[i-1] != ' ' && (s[i-1] < '0' || s[i-1] > '9')) {
				return false
			}
			digits = true
		case c == ' ':
			if i+1 == len(s) || s[i+1] == ' ' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// sqlWords are the first words of the statements psql echoes.
var sqlWords = map[string]bool{
	"ABORT": true, "ALTER": true, "ANALYSE": true, "ANALYZE": true, "BEGIN": true, "CALL": true,
	"CHECKPOINT": true, "CLOSE": true, "CLUSTER": true, "COMMENT": true, "COMMIT": true, "COPY": true,
	"CREATE": true, "DEALLOCATE": true, "DECLARE": true, "DELETE": true, "DISCARD": true, "DO": true,
	"DROP": true, "END": true, "EXECUTE": true, "EXPLAIN": true, "FETCH": true, "GRANT": true,
	"IMPORT": true, "INSERT": true, "LISTEN": true, "LOAD": true, "LOCK": true, "MERGE": true,
	"MOVE": true, "NOTIFY": true, "PREPARE": true, "REASSIGN": true, "REFRESH": true, "REINDEX": true,
	"RELEASE": true, "RESET": true, "REVOKE": true, "ROLLBACK": true, "SAVEPOINT": true, "SECURITY": true,
	"SELECT": true, "SET": true, "SHOW": true, "START": true, "TABLE": true, "TRUNCATE": true,
	"UNLISTEN": true, "UPDATE": true, "VACUUM": true, "VALUES": true, "WITH": true,
}

// sqlStart reports whether a line starts a statement psql echoed: its
// first word is an SQL command, or it opens with "(", "--", "/*" or a
// backslash (psql -a echoes meta-commands).
func sqlStart(s string) bool {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return false
	}
	switch {
	case s[0] == '(' || s[0] == '\\' || strings.HasPrefix(s, "--") || strings.HasPrefix(s, "/*"):
		return true
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == 0 || i > 10 || (i < len(s) && s[i] != ' ' && s[i] != ';' && s[i] != '(' && s[i] != '\t') {
		return false
	}
	var up [10]byte
	for k := 0; k < i; k++ {
		c := s[k]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[k] = c
	}
	return sqlWords[string(up[:i])]
}
