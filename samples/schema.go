package samples

import "time"

// FormatVersion is the version of the capture format. Every row of the
// capture table carries it, so a reader knows what it is reading.
//
// Changelog:
//
//	1: first format: capture, host, runs, steps, statements, outputs,
//	   notices, plans, diskstats, stats, servers, settings, probes,
//	   attachments. Later, raw_bytes: optional, so a reader that does not
//	   know it reads the capture as before (the values it keeps are valid
//	   UTF-8 with U+FFFD in their invalid bytes' place). Later, the runs'
//	   wal_insert_lsn_* and wal_insert_pos_*: nullable, absent from older
//	   parts. Later, pg_aios samples (stats, phase "sample") carry
//	   every_ms, are taken at their own interval, and one that found no
//	   handle in use is a row with state null and n 0; older captures
//	   recorded only samples that found some. Later, calibrations:
//	   optional (a study without protocol.calibrate writes none, and
//	   older captures have no folder for it); its bytes and requests are
//	   nullable.
//	   Later, with no new column: stats rows of the view
//	   "relation_sizes" (phase "before", once per configuration and
//	   round: each user relation's size) and steps of phase "client"
//	   (once per configuration in a session: the timing client's version).
const FormatVersion = 1

// Every row type below is one table of a capture. A capture is a folder with
// one sub-folder per table, named by the table, holding Parquet files. The
// `pq` tag names the column; a pointer field is a nullable column. Every
// table starts with capture_id so that the captures of many hosts can be
// queried together.
//
// Text that a server, a client or a shell printed is stored verbatim: the
// collector never parses it. Numbers it measures itself (elapsed times from
// a monotonic clock, WAL positions, timestamps) are typed columns.

// Capture is one row per collect session: the first one and each resume.
type Capture struct {
	CaptureID     string    `pq:"capture_id"`
	Session       int32     `pq:"session"`        // The session: 1 for the first collect, then one more per --resume.
	FormatVersion int32     `pq:"format_version"` // The capture format's version (samples.FormatVersion) this session wrote.
	ToolVersion   string    `pq:"tool_version"`   // The pgstudy version that wrote the session.
	StartedAt     time.Time `pq:"started_at"`     // When the session started.
	Command       string    `pq:"command"`        // The command line, secrets removed.
	StudyFile     string    `pq:"study_file"`     // The study file's path as given (an import's manifest or folder).
	StudyYAML     string    `pq:"study_yaml"`     // with secrets removed
	StudySHA256   string    `pq:"study_sha256"`   // of StudyYAML; empty when the session ran no study (an import's StudyYAML is its manifest)
	ScheduledRuns int64     `pq:"scheduled_runs"` // Runs in the study's schedule (an import's runs).
}

// Host is one fact about the machine the study ran on, read once per
// session: kernel, CPU, memory, each recorded block device's queue settings,
// the mount holding each data directory. Value is what the source said.
type Host struct {
	CaptureID string `pq:"capture_id"`
	Session   int32  `pq:"session"` // The session that read it.
	Name      string `pq:"name"`    // e.g. "kernel.release", "device.nvme1n1.queue.scheduler"
	Source    string `pq:"source"`  // the file or call it came from
	Value     string `pq:"value"`   // The value verbatim (a file's text, a call's result).
}

// Run is one timed statement of the schedule. A run's row is written last,
// after every other row of the run is durable: a run is in the capture
// exactly when its row is.
type Run struct {
	CaptureID    string    `pq:"capture_id"`
	RunID        int64     `pq:"run_id"`         // 1-based place in the schedule
	Session      int32     `pq:"session"`        // The session that ran it (capture.session).
	Round        int32     `pq:"round"`          // 1-based
	Position     int32     `pq:"position"`       // 1-based place of the configuration in its turn
	Config       string    `pq:"config"`         // The configuration (study configs[].name).
	Test         string    `pq:"test"`           // The test (study tests[].name).
	Kind         string    `pq:"kind"`           // "timed"
	Client       string    `pq:"client"`         // "pgx" or "psql"
	StartedAt    time.Time `pq:"started_at"`     // When the timed statement was sent.
	EndedAt      time.Time `pq:"ended_at"`       // When its last result arrived.
	ElapsedNs    int64     `pq:"elapsed_ns"`     // client side, monotonic clock
	Status       string    `pq:"status"`         // "ok", "failed", "timeout"
	Error        string    `pq:"error"`          // Why it failed or timed out; empty when status is ok.
	Cold         string    `pq:"cold"`           // the cold-cache steps that ran, in order
	BackendPID   *int32    `pq:"backend_pid"`    // The server process that ran it; null when unknown.
	WALLSNBefore *string   `pq:"wal_lsn_before"` // pg_current_wal_lsn(): the write position
	WALLSNAfter  *string   `pq:"wal_lsn_after"`  // pg_current_wal_lsn() after the run.
	WALPosBefore *int64    `pq:"wal_pos_before"` // the LSN as a byte position
	WALPosAfter  *int64    `pq:"wal_pos_after"`  // That LSN as a byte position.
	Devices      string    `pq:"devices"`        // the block devices this run's disk figures are about, comma-separated
	// The insert position (pg_current_wal_insert_lsn()), which is ahead
	// of the write position by what sits in the WAL buffers: what a
	// statement generated, whether or not it was written out yet. Null in
	// captures made before it was recorded.
	WALInsertLSNBefore *string `pq:"wal_insert_lsn_before"`
	WALInsertLSNAfter  *string `pq:"wal_insert_lsn_after"`  // pg_current_wal_insert_lsn() after the run.
	WALInsertPosBefore *int64  `pq:"wal_insert_pos_before"` // The insert LSN before the run as a byte position.
	WALInsertPosAfter  *int64  `pq:"wal_insert_pos_after"`  // The insert LSN after the run as a byte position.
}

// Step is one thing that ran for a run outside the timed statement: a
// setting applied, a `before` statement, a cold-cache step.
type Step struct {
	CaptureID string    `pq:"capture_id"`
	RunID     int64     `pq:"run_id"`
	Seq       int32     `pq:"seq"`        // Order within the run.
	Phase     string    `pq:"phase"`      // "settings", "before", "cold", "client"
	Name      string    `pq:"name"`       // "stop-all", "drop-caches", "start", "evict", "wait-ready", "sh", "sql", "version", ...
	Detail    string    `pq:"detail"`     // What it ran: the SQL, the shell command, the setting.
	StartedAt time.Time `pq:"started_at"` // When it started.
	ElapsedNs int64     `pq:"elapsed_ns"` // How long it took, from a monotonic clock.
	ExitCode  *int32    `pq:"exit_code"`  // A shell step's exit code; null for other steps.
	Output    string    `pq:"output"`     // What it printed, verbatim.
	Error     string    `pq:"error"`      // Why it failed; empty when it did not.
}

// Statement is one SQL statement sent by pgstudy on a run's session: the
// session settings, the plan, the timed statement, the bookkeeping queries.
type Statement struct {
	CaptureID  string    `pq:"capture_id"`
	RunID      int64     `pq:"run_id"`
	Seq        int32     `pq:"seq"`         // Order within the run's session (outputs.statement and notices.statement refer to it).
	Phase      string    `pq:"phase"`       // "set", "explain", "timed", "explain-analyze", "before"
	SQL        string    `pq:"sql"`         // The statement's text.
	StartedAt  time.Time `pq:"started_at"`  // When it was sent.
	ElapsedNs  int64     `pq:"elapsed_ns"`  // From sending it to its last result, from a monotonic clock.
	CommandTag string    `pq:"command_tag"` // The server's command tag (SELECT 1, VACUUM).
	SQLState   string    `pq:"sqlstate"`    // The error's SQLSTATE; empty when it succeeded.
	Error      string    `pq:"error"`       // The error's message; empty when it succeeded.
}

// Output is what a client printed, verbatim. psql gives "stdout" and
// "stderr"; the pgx client gives one "result" per result set, as
// tab-separated text with a header line.
type Output struct {
	CaptureID string `pq:"capture_id"`
	RunID     int64  `pq:"run_id"`
	Statement int32  `pq:"statement"` // Statement.Seq it belongs to
	Seq       int32  `pq:"seq"`       // Order within the statement.
	Stream    string `pq:"stream"`    // "stdout", "stderr" (psql) or "result" (pgx).
	Text      string `pq:"text"`      // The text verbatim.
}

// Notice is one message the server sent on a session (VACUUM VERBOSE's
// output arrives this way), tied to the statement that caused it.
type Notice struct {
	CaptureID  string    `pq:"capture_id"`
	RunID      int64     `pq:"run_id"`
	Statement  int32     `pq:"statement"`   // Statement.Seq
	Seq        int32     `pq:"seq"`         // order of arrival within the run
	ReceivedAt time.Time `pq:"received_at"` // When it arrived.
	Severity   string    `pq:"severity"`    // INFO, NOTICE, WARNING, ...
	Code       string    `pq:"code"`        // Its SQLSTATE.
	Message    string    `pq:"message"`     // The primary message (VACUUM VERBOSE's report is here).
	Detail     string    `pq:"detail"`      // DETAIL, when sent.
	Hint       string    `pq:"hint"`        // HINT, when sent.
	Where      string    `pq:"where"`       // CONTEXT, when sent.
}

// Plan is the EXPLAIN output of a run's test statement, as the server
// printed it.
type Plan struct {
	CaptureID string `pq:"capture_id"`
	RunID     int64  `pq:"run_id"`
	Kind      string `pq:"kind"`   // "explain" (before the cold steps) or "explain-analyze" (after the timed run)
	Format    string `pq:"format"` // "json" or "text".
	Text      string `pq:"text"`   // The plan as the server printed it.
	Error     string `pq:"error"`  // Why EXPLAIN failed; empty when it did not.
}

// Diskstats is one verbatim copy of /proc/diskstats.
type Diskstats struct {
	CaptureID string    `pq:"capture_id"`
	RunID     int64     `pq:"run_id"`
	Seq       int32     `pq:"seq"`       // Order within the run.
	Phase     string    `pq:"phase"`     // "before", "sample", "after"
	TakenAt   time.Time `pq:"taken_at"`  // When it was read.
	OffsetNs  int64     `pq:"offset_ns"` // monotonic, from the start of the timed statement
	Text      string    `pq:"text"`      // /proc/diskstats verbatim.
}

// Stat is one row of a statistics view (pg_stat_wal, pg_stat_io, the other
// sessions of pg_stat_activity, the vacuum counters) read before or after
// a run, or of pg_aios sampled during it (Phase "sample", 18+), as the
// server's row_to_json printed it. View "pg_settings" (phase "before") is
// the settings the study's configurations declare, read back before the
// run; view "postgresql.auto.conf" (phase "found") an entry of that file
// as pgstudy found it before its first change ({"name", "setting"}, null
// for no entry), in the run that made the change.
// View "relation_sizes" is pgstudy's own
// reading of pg_class (each user table, index, materialized view and TOAST
// table: schema, name, kind, table, bytes, total_bytes, reltuples), made
// once per configuration and round in the round's first run of it.
type Stat struct {
	CaptureID string `pq:"capture_id"`
	RunID     int64  `pq:"run_id"`
	Phase     string `pq:"phase"` // "before", "after", "sample"
	View      string `pq:"view"`  // The view (pg_stat_io, pg_stat_wal, pg_stat_activity, vacuum_counts, pg_aios, pg_settings, relation_sizes, postgresql.auto.conf).
	Row       int32  `pq:"row"`   // Row number within the view's reading.
	JSON      string `pq:"json"`  // The row as row_to_json printed it.
}

// Server describes a configuration's server as one round found it.
type Server struct {
	CaptureID        string    `pq:"capture_id"`
	RunID            int64     `pq:"run_id"`             // the run during which it was read
	Round            int32     `pq:"round"`              // The round it was read in.
	Config           string    `pq:"config"`             // The configuration (study configs[].name).
	ReadAt           time.Time `pq:"read_at"`            // When it was read.
	Version          string    `pq:"version"`            // select version()
	ServerVersion    string    `pq:"server_version"`     // current_setting('server_version').
	ServerVersionNum int32     `pq:"server_version_num"` // current_setting('server_version_num'), e.g. 170010.
	DataChecksums    string    `pq:"data_checksums"`     // current_setting('data_checksums').
	DataDirectory    string    `pq:"data_directory"`     // The data directory, when the role may read it.
	Device           string    `pq:"device"`             // the whole disk holding the data directory, when known
	Mount            string    `pq:"mount"`              // the mountinfo line of the data directory's file system, when known
}

// Setting is one row of pg_settings, per configuration and round.
type Setting struct {
	CaptureID      string `pq:"capture_id"`
	RunID          int64  `pq:"run_id"`
	Round          int32  `pq:"round"`           // The round it was read in.
	Config         string `pq:"config"`          // The configuration.
	Name           string `pq:"name"`            // pg_settings.name.
	Setting        string `pq:"setting"`         // pg_settings.setting.
	Unit           string `pq:"unit"`            // pg_settings.unit (empty for none).
	Source         string `pq:"source"`          // pg_settings.source.
	Context        string `pq:"context"`         // pg_settings.context.
	VarType        string `pq:"vartype"`         // pg_settings.vartype.
	BootVal        string `pq:"boot_val"`        // pg_settings.boot_val.
	ResetVal       string `pq:"reset_val"`       // pg_settings.reset_val.
	PendingRestart bool   `pq:"pending_restart"` // pg_settings.pending_restart.
}

// Probe is the output of one of the study's probe commands, run before and
// after each run (a cloud volume's burst balance, say), or of pgstudy's own
// reading of /proc/stat before and after a throughput run (Name
// "/proc/stat"), or of the server's cgroup's I/O counters before and after
// every run (Name "cgroup io.stat", "cgroup blkio.throttle.io_service_bytes"
// or "cgroup blkio.throttle.io_serviced" with the file's path in Command;
// "cgroup of the server" with the /proc/PID/cgroup it was found from;
// "cgroup io" with Error saying why there are no counters): rows added in
// format 1, read by analyses that know them and ignored by older ones.
type Probe struct {
	CaptureID string    `pq:"capture_id"`
	RunID     int64     `pq:"run_id"`
	Phase     string    `pq:"phase"`      // "before", "after"
	Name      string    `pq:"name"`       // The probe's name (the study's, or pgstudy's own: /proc/stat, cgroup ...).
	Command   string    `pq:"command"`    // What it ran, or the file it read.
	StartedAt time.Time `pq:"started_at"` // When it started.
	ElapsedNs int64     `pq:"elapsed_ns"` // How long it took, from a monotonic clock.
	ExitCode  *int32    `pq:"exit_code"`  // Its exit code; null when it was no command.
	Stdout    string    `pq:"stdout"`     // What it printed on standard output, verbatim.
	Stderr    string    `pq:"stderr"`     // What it printed on standard error, verbatim.
	Error     string    `pq:"error"`      // Why it failed; empty when it did not.
}

// Attachment is a file kept verbatim with a run: what an import found
// beside the outputs it knows (a cloud console export, a note).
type Attachment struct {
	CaptureID string `pq:"capture_id"`
	RunID     int64  `pq:"run_id"`
	Name      string `pq:"name"` // the file's path, relative to what was imported
	Text      string `pq:"text"` // The file's text verbatim.
}

// Calibration is one measurement of a device's own read ceiling, made when
// the study asks for it (protocol: calibrate) at the start of a session
// and after the last run of the schedule: pgstudy writes a file of its own
// on the file system of a configuration's data directory (Pattern
// "write"), reads it with O_DIRECT, so that no page cache serves it, for
// a set time in sequential and in random requests, and removes it. One
// row per pattern; /proc/diskstats verbatim around each, so that the
// device's own counters can check what pgstudy counted. A session's rows
// are in its part, sNNN, which each calibration of the session rewrites
// whole.
type Calibration struct {
	CaptureID       string    `pq:"capture_id"`
	Session         int32     `pq:"session"`          // The session that measured.
	Seq             int32     `pq:"seq"`              // order within the session
	Phase           string    `pq:"phase"`            // "start": before the session's first run; "end": after the schedule's last run
	Pattern         string    `pq:"pattern"`          // "write" (making the file), "sequential", "random"
	BlockSize       int64     `pq:"block_size"`       // Bytes per request.
	Depth           int32     `pq:"depth"`            // requests in flight
	Device          string    `pq:"device"`           // the whole disk holding the file, as diskstats names it
	Configs         string    `pq:"configs"`          // the configurations whose data directory is on it, comma-separated
	File            string    `pq:"file"`             // The file read.
	FileSize        int64     `pq:"file_size"`        // Its size in bytes.
	StartedAt       time.Time `pq:"started_at"`       // When the pattern started.
	ElapsedNs       int64     `pq:"elapsed_ns"`       // monotonic, from the first request to the end of the last
	Bytes           *int64    `pq:"bytes"`            // null when the pattern failed
	Requests        *int64    `pq:"requests"`         // Requests completed; null when the pattern failed.
	Error           string    `pq:"error"`            // Why the pattern failed; empty when it did not.
	DiskstatsBefore string    `pq:"diskstats_before"` // /proc/diskstats verbatim before the pattern.
	DiskstatsAfter  string    `pq:"diskstats_after"`  // ... and after it.
}

// RawBytes keeps a text value that was not valid UTF-8 (a Latin-1 server
// log, a shell step printing binary): its column holds the value with each
// invalid byte sequence replaced by U+FFFD, so that DuckDB, pandas and
// pgstudy read every capture, and this table holds the original bytes.
// The writer makes these rows itself. A row names the value by its table,
// column and row number within the part of that table that has this part's
// file name (DuckDB: file_row_number); FROM_BASE64(base64) gives the bytes.
// A session's values (capture, host) are in the session's part, sNNN, with
// run id 0.
type RawBytes struct {
	CaptureID string `pq:"capture_id"`
	RunID     int64  `pq:"run_id"`
	Table     string `pq:"table"`  // The table of the value.
	Column    string `pq:"column"` // The column of the value.
	Row       int64  `pq:"row"`    // The value's row number (from 0) within that table's part of the same file name (DuckDB: file_row_number).
	Base64    string `pq:"base64"` // The original bytes, base64 (DuckDB: from_base64(base64)).
}

// The fact tables below hold, per run, the numbers the analysis reads of
// the raw text above, as typed columns: what each parser made of it at
// the facts version in each row (analyze/facts defines how). The raw text
// stays the source of truth. Collect and import write a run's facts with
// the run; an analysis of a capture without them (or with an older
// version's) computes them from the raw text and stores them beside it,
// part by part under the part names of the runs they are of, run_facts
// last: a part's facts count when its run_facts rows are of the current
// version, its raw_parts (the size and CRC-32C of the diskstats and stats
// parts they were computed from) are those of the parts in the capture,
// and the other fact tables hold the rows it counts: a raw part or a fact
// part replaced, damaged or lost since has its facts computed again.
// Every fact row names its facts_version.

// RunFact is one row per run: its figures over the run from the statistics
// views (after minus before; null when a side is missing or the difference
// is negative), and whether it has statistics rows at all.
type RunFact struct {
	CaptureID    string   `pq:"capture_id"`
	RunID        int64    `pq:"run_id"`
	FactsVersion int32    `pq:"facts_version"` // The version of the definition that computed the row.
	RawParts     string   `pq:"raw_parts"`     // The raw parts the facts are of: each of diskstats and stats, its size and CRC-32C ("none": no part). The writer sets it.
	DiskRows     *int64   `pq:"disk_rows"`     // The run's rows in disk_facts, by which a fact part lost, damaged or replaced since is noticed (from facts version 2).
	IORows       *int64   `pq:"io_rows"`       // The run's rows in io_facts (from facts version 2).
	ViewRows     *int64   `pq:"view_rows"`     // The run's rows in view_facts (from facts version 2).
	ProblemRows  *int64   `pq:"problem_rows"`  // The run's rows in fact_problems (from facts version 2).
	HasStats     bool     `pq:"has_stats"`     // statistics rows before or after the run
	PGReadBytes  *float64 `pq:"pg_read_bytes"` // pg_stat_io: bytes read, all rows (read_bytes from 18, reads × op_bytes before)
	WALRecords   *float64 `pq:"wal_records"`   // pg_stat_wal (14+), the whole server's
	WALFPI       *float64 `pq:"wal_fpi"`       // pg_stat_wal: full page images over the run.
	WALBytes     *float64 `pq:"wal_bytes"`     // pg_stat_wal: WAL bytes over the run, the whole server's.
	Autovacuums  *int64   `pq:"autovacuums"`   // autovacuums and autoanalyzes that ended during the run; null when none did
	FigureRows   *int64   `pq:"figure_rows"`   // The run's rows in disk_figures, 0 or 1 (from facts version 3; null: not computed, see disk_figures).
	IntervalRows *int64   `pq:"interval_rows"` // The run's rows in disk_intervals (from facts version 3).
}

// DiskFact is one device's counters in one /proc/diskstats snapshot of a
// run: only the run's device when it names one, every device otherwise (an
// import's). A snapshot in which that device is missing is one row with an
// empty device and zero counters, so that every snapshot read has a row.
// The discard and flush counters are null where the kernel printed none.
type DiskFact struct {
	CaptureID      string    `pq:"capture_id"`
	RunID          int64     `pq:"run_id"`
	FactsVersion   int32     `pq:"facts_version"`   // The version of the definition that computed the row (analyze/facts.Version).
	Seq            int32     `pq:"seq"`             // Diskstats.Seq of the snapshot
	Phase          string    `pq:"phase"`           // Diskstats.Phase of the snapshot: "before", "sample", "after".
	TakenAt        time.Time `pq:"taken_at"`        // Diskstats.TakenAt of the snapshot.
	OffsetNs       int64     `pq:"offset_ns"`       // Diskstats.OffsetNs of the snapshot.
	Device         string    `pq:"device"`          // The device's name; empty for a snapshot that lacked the run's device.
	Major          int64     `pq:"major"`           // The device's major number.
	Minor          int64     `pq:"minor"`           // The device's minor number.
	Fields         int32     `pq:"fields"`          // how many fields the kernel printed: 14, 18 or 20
	Reads          int64     `pq:"reads"`           // Reads completed (field 4 of /proc/diskstats), since boot.
	ReadsMerged    int64     `pq:"reads_merged"`    // Reads merged (field 5).
	ReadSectors    int64     `pq:"read_sectors"`    // Sectors read (field 6), 512 bytes each whatever the device's block size.
	ReadMs         int64     `pq:"read_ms"`         // Milliseconds spent reading (field 7).
	Writes         int64     `pq:"writes"`          // Writes completed (field 8).
	WritesMerged   int64     `pq:"writes_merged"`   // Writes merged (field 9).
	WriteSectors   int64     `pq:"write_sectors"`   // Sectors written (field 10).
	WriteMs        int64     `pq:"write_ms"`        // Milliseconds spent writing (field 11).
	InFlight       int64     `pq:"in_flight"`       // I/Os in progress at the reading (field 12).
	IOMs           int64     `pq:"io_ms"`           // Milliseconds spent doing I/O (field 13).
	WeightedIOMs   int64     `pq:"weighted_io_ms"`  // Weighted milliseconds doing I/O (field 14).
	Discards       *int64    `pq:"discards"`        // Discards completed (field 15, 4.18+).
	DiscardsMerged *int64    `pq:"discards_merged"` // Discards merged (field 16).
	DiscardSectors *int64    `pq:"discard_sectors"` // Sectors discarded (field 17).
	DiscardMs      *int64    `pq:"discard_ms"`      // Milliseconds spent discarding (field 18).
	Flushes        *int64    `pq:"flushes"`         // Flush requests completed (field 19, 5.5+).
	FlushMs        *int64    `pq:"flush_ms"`        // Milliseconds spent flushing (field 20).
}

// DiskFigure is what one run's device did over the whole run, from its
// first snapshot ("before") to its last ("after"): the increases of its
// counters (disk_facts' columns), from which the analysis takes iostat's
// figures, so that it need not read every snapshot's counters again. A
// run has a row when its snapshots begin before it and end after it and
// its device is known (named by the run, or for an import's run the whole
// disk that moved the most bytes). Its counts are zero unless known is
// true: the device missing from either snapshot, or its counters gone
// backwards (reset), leaves them unknown. The times count modulo 2^32 ms
// where the kernel's wrapped. A collected run whose snapshots came out of
// order has none, and its run_facts row null figure_rows: the first
// analysis computes them from the raw text.
type DiskFigure struct {
	CaptureID      string  `pq:"capture_id"`
	RunID          int64   `pq:"run_id"`
	FactsVersion   int32   `pq:"facts_version"`   // The version of the definition that computed the row.
	Device         string  `pq:"device"`          // The device the row is of, as diskstats names it.
	DeviceNum      string  `pq:"device_num"`      // Its number, "major:minor", from the first snapshot; empty when that lacks it.
	Known          bool    `pq:"known"`           // The counts are known: the device is in both snapshots and its counters did not go backwards.
	Reset          bool    `pq:"reset"`           // The device's counters went backwards during the run (re-created, or statistics reset): the counts are unknown.
	Seconds        float64 `pq:"seconds"`         // The time between the two snapshots, by their offsets, else their wall clocks (0 or less: unknown).
	Reads          float64 `pq:"reads"`           // Reads completed over the run.
	ReadsMerged    float64 `pq:"reads_merged"`    // Reads merged.
	ReadSectors    float64 `pq:"read_sectors"`    // Sectors read, 512 bytes each.
	ReadMs         float64 `pq:"read_ms"`         // Milliseconds spent reading.
	Writes         float64 `pq:"writes"`          // Writes completed.
	WritesMerged   float64 `pq:"writes_merged"`   // Writes merged.
	WriteSectors   float64 `pq:"write_sectors"`   // Sectors written.
	WriteMs        float64 `pq:"write_ms"`        // Milliseconds spent writing.
	IOMs           float64 `pq:"io_ms"`           // Milliseconds the device was busy.
	WeightedIOMs   float64 `pq:"weighted_io_ms"`  // Milliseconds of I/O weighted by the requests in flight.
	Discards       float64 `pq:"discards"`        // Discards completed (0 unless has_discards).
	DiscardsMerged float64 `pq:"discards_merged"` // Discards merged.
	DiscardSectors float64 `pq:"discard_sectors"` // Sectors discarded.
	DiscardMs      float64 `pq:"discard_ms"`      // Milliseconds spent discarding.
	Flushes        float64 `pq:"flushes"`         // Flushes completed (0 unless has_flushes).
	FlushMs        float64 `pq:"flush_ms"`        // Milliseconds spent flushing.
	HasDiscards    bool    `pq:"has_discards"`    // Both snapshots carry the discard counters (Linux 4.18+).
	HasFlushes     bool    `pq:"has_flushes"`     // Both snapshots carry the flush counters (Linux 5.5+).
}

// DiskInterval is what the run's device did between two consecutive
// snapshots, for a run with snapshots taken during it (more than two)
// whose counts over the run are known (disk_figures): the increases of
// the counters the analysis's series read, in the order of the snapshots.
// An interval whose counters went backwards has no row.
type DiskInterval struct {
	CaptureID    string  `pq:"capture_id"`
	RunID        int64   `pq:"run_id"`
	FactsVersion int32   `pq:"facts_version"`  // The version of the definition that computed the row.
	OffsetS      float64 `pq:"offset_s"`       // The end of the interval: its later snapshot's offset from the start of the timed statement, in seconds.
	Seconds      float64 `pq:"seconds"`        // The interval's length, by the offsets, else the wall clocks, of its snapshots.
	Reads        float64 `pq:"reads"`          // Reads completed in the interval.
	ReadSectors  float64 `pq:"read_sectors"`   // Sectors read, 512 bytes each.
	Writes       float64 `pq:"writes"`         // Writes completed.
	WriteSectors float64 `pq:"write_sectors"`  // Sectors written.
	IOMs         float64 `pq:"io_ms"`          // Milliseconds the device was busy.
	WeightedIOMs float64 `pq:"weighted_io_ms"` // Milliseconds of I/O weighted by the requests in flight.
}

// IOFact is one row of pg_stat_io (a backend type, object and context)
// that moved during a run: after minus before.
type IOFact struct {
	CaptureID    string  `pq:"capture_id"`
	RunID        int64   `pq:"run_id"`
	FactsVersion int32   `pq:"facts_version"` // The version of the definition that computed the row.
	BackendType  string  `pq:"backend_type"`  // pg_stat_io.backend_type.
	Object       string  `pq:"object"`        // pg_stat_io.object.
	Context      string  `pq:"context"`       // pg_stat_io.context.
	Reads        float64 `pq:"reads"`         // Reads over the run (after minus before).
	ReadBytes    float64 `pq:"read_bytes"`    // read_bytes from 18, reads × op_bytes before
	Writes       float64 `pq:"writes"`        // Writes over the run.
	WriteBytes   float64 `pq:"write_bytes"`   // Bytes written over the run (write_bytes from 18, writes × op_bytes before).
	Extends      float64 `pq:"extends"`       // Relation extensions over the run.
	Hits         float64 `pq:"hits"`          // Shared buffer hits over the run.
	Evictions    float64 `pq:"evictions"`     // Buffers evicted over the run.
}

// ViewFact is one row of the statistics views the analysis reads row by
// row (Stat.View: pg_stat_activity, pg_settings, relation_sizes, pg_aios),
// typed: the columns of the other views are null.
type ViewFact struct {
	CaptureID    string   `pq:"capture_id"`
	RunID        int64    `pq:"run_id"`
	FactsVersion int32    `pq:"facts_version"` // The version of the definition that computed the row.
	Phase        string   `pq:"phase"`         // Stat.Phase of the row it is read from.
	View         string   `pq:"view"`          // Stat.View of that row.
	Row          int32    `pq:"row"`           // Stat.Row of that row.
	PID          *int64   `pq:"pid"`           // pg_stat_activity
	BackendType  *string  `pq:"backend_type"`  // pg_stat_activity
	State        *string  `pq:"state"`         // pg_stat_activity, pg_aios (null: a sample that found no handle)
	Query        *string  `pq:"query"`         // pg_stat_activity
	Name         *string  `pq:"name"`          // pg_settings, relation_sizes
	Setting      *string  `pq:"setting"`       // pg_settings
	Unit         *string  `pq:"unit"`          // pg_settings
	Source       *string  `pq:"source"`        // pg_settings
	Schema       *string  `pq:"schema"`        // relation_sizes
	Kind         *string  `pq:"kind"`          // relation_sizes: pg_class.relkind
	Table        *string  `pq:"table"`         // relation_sizes: an index's table, a TOAST table's owner
	Bytes        *float64 `pq:"bytes"`         // relation_sizes
	TotalBytes   *float64 `pq:"total_bytes"`   // relation_sizes
	Tuples       *float64 `pq:"tuples"`        // relation_sizes: reltuples
	At           *string  `pq:"at"`            // pg_aios: the sample's time
	N            *float64 `pq:"n"`             // pg_aios: handles in the state
	EveryMs      *float64 `pq:"every_ms"`      // pg_aios: the sampling interval
}

// FactProblem is what a parser could not read of a run's raw text, as the
// analysis says it: one row per kind, with its first line and a count.
type FactProblem struct {
	CaptureID    string `pq:"capture_id"`
	RunID        int64  `pq:"run_id"`
	FactsVersion int32  `pq:"facts_version"` // The version of the definition that computed the row.
	Source       string `pq:"source"`        // the raw table: "diskstats", "stats"
	Message      string `pq:"message"`       // What could not be read, with its first line, as the analysis says it.
}

// Tables lists every table of the format, in the order a run's parts are
// written: runs comes last, because its row is what makes a run count.
var Tables = []Table{
	newTable[Capture]("capture"),
	newTable[Host]("host"),
	newTable[Server]("servers"),
	newTable[Setting]("settings"),
	newTable[Step]("steps"),
	newTable[Statement]("statements"),
	newTable[Output]("outputs"),
	newTable[Notice]("notices"),
	newTable[Plan]("plans"),
	newTable[Diskstats]("diskstats"),
	newTable[Stat]("stats"),
	newTable[Probe]("probes"),
	newTable[Attachment]("attachments"),
	newTable[RawBytes]("raw_bytes"),
	newTable[Calibration]("calibrations"),
	newTable[DiskFact]("disk_facts"),
	newTable[DiskFigure]("disk_figures"),
	newTable[DiskInterval]("disk_intervals"),
	newTable[IOFact]("io_facts"),
	newTable[ViewFact]("view_facts"),
	newTable[FactProblem]("fact_problems"),
	newTable[RunFact]("run_facts"),
	newTable[Run]("runs"),
}
