package pgbench

import (
	"io"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
)

// Run is what one pgbench run printed: its report on stdout and its
// progress lines and messages on stderr. The input may be either stream
// alone or both (as the collector records them apart, or as 2>&1 merges
// them).
//
// Fields a pgbench version (or a run's options) does not print are absent:
// nil pointers, empty strings and slices, left out of the JSON.
type Run struct {
	// Version is pgbench's from its banner, "15.18 (Debian 15.18-0+deb12u1)"
	// in "pgbench (15.18 (Debian 15.18-0+deb12u1))"; pgbench 14 and later
	// print it.
	Version string `json:"version,omitempty"`
	// ServerVersion is the server's when it differs from pgbench's
	// ("pgbench (16.1, server 15.4)").
	ServerVersion string `json:"server_version,omitempty"`
	// Summary is the report printed at the end of the run (stdout); nil
	// when the input is stderr alone.
	Summary *Summary `json:"summary,omitempty"`
	// Progress holds the -P lines (stderr), in order; their times increase.
	Progress []Progress `json:"progress,omitempty"`
	// Messages are the lines pgbench logged ("pgbench: error: ...",
	// "client 3 aborted in command 4 ...") and the vacuum step's errors.
	Messages []Message `json:"messages,omitempty"`
	// Aborted says pgbench printed "Run was aborted; the above results
	// are incomplete.": some client stopped on an error.
	Aborted bool `json:"aborted,omitempty"`
}

// Summary is pgbench's report at the end of a run. The first fields
// (up to Transactions) are always printed, so they are not pointers.
type Summary struct {
	// TransactionType is "<builtin: TPC-B (sort of)>", "<builtin: select
	// only>", a script's file name as given to -f, or "multiple scripts".
	TransactionType string `json:"transaction_type"`
	ScalingFactor   int    `json:"scaling_factor"`
	PartitionMethod string `json:"partition_method,omitempty"` // "range" or "hash", when partitioned (13+)
	Partitions      *int   `json:"partitions,omitempty"`
	QueryMode       string `json:"query_mode"` // simple, extended or prepared
	Clients         int    `json:"clients"`
	Threads         int    `json:"threads"`
	// MaxTries is "maximum number of tries" (15+; not printed when
	// unlimited, --max-tries=0).
	MaxTries *int `json:"max_tries,omitempty"`
	// DurationS is -T's duration; TransactionsPerClient is -t's count.
	// One of them is present.
	DurationS             *int   `json:"duration_s,omitempty"`
	TransactionsPerClient *int64 `json:"transactions_per_client,omitempty"`
	// Transactions is "number of transactions actually processed";
	// TransactionsPlanned is the planned total after the slash with -t.
	Transactions        int64  `json:"transactions"`
	TransactionsPlanned *int64 `json:"transactions_planned,omitempty"`

	FailedTransactions    *Count `json:"failed_transactions,omitempty"`    // 15+
	SerializationFailures *Count `json:"serialization_failures,omitempty"` // --failures-detailed
	DeadlockFailures      *Count `json:"deadlock_failures,omitempty"`      // --failures-detailed
	OtherFailures         *Count `json:"other_failures,omitempty"`         // --failures-detailed, 19+
	RetriedTransactions   *Count `json:"retried_transactions,omitempty"`   // --max-tries other than 1
	Retries               *int64 `json:"retries,omitempty"`                // "total number of retries"
	SkippedTransactions   *Count `json:"skipped_transactions,omitempty"`   // -R with -L
	// LateTransactions are those "above the LatencyLimitMs ms latency
	// limit" (-L); their percent is of the processed transactions.
	LatencyLimitMs   *float64 `json:"latency_limit_ms,omitempty"`
	LateTransactions *Count   `json:"late_transactions,omitempty"`

	// LatencyAvgMs is "latency average". Without -P, -R or -L pgbench
	// computes it from the run's duration; LatencyIncludesFailures says it
	// printed "(including failures)".
	LatencyAvgMs            *float64 `json:"latency_avg_ms,omitempty"`
	LatencyIncludesFailures bool     `json:"latency_includes_failures,omitempty"`
	// LatencyStddevMs is printed with -P, -R or -L only.
	LatencyStddevMs *float64 `json:"latency_stddev_ms,omitempty"`
	// LagAvgMs and LagMaxMs are the "rate limit schedule lag" (-R).
	LagAvgMs *float64 `json:"lag_avg_ms,omitempty"`
	LagMaxMs *float64 `json:"lag_max_ms,omitempty"`
	// InitialConnectionTimeMs (14+, without -C) and AvgConnectionTimeMs
	// (14+, with -C: "average connection time").
	InitialConnectionTimeMs *float64 `json:"initial_connection_time_ms,omitempty"`
	AvgConnectionTimeMs     *float64 `json:"avg_connection_time_ms,omitempty"`
	// TPS is the throughput without the time spent connecting: "(without
	// initial connection time)" from pgbench 14, "(excluding connections
	// establishing)" before.
	TPS *float64 `json:"tps,omitempty"`
	// TPSIncludingConnections is the throughput including the time spent
	// connecting: "(including connections establishing)" before pgbench
	// 14, "(including reconnection times)" with -C from 14 (which then
	// prints no TPS).
	TPSIncludingConnections *float64 `json:"tps_including_connections,omitempty"`

	// Scripts are the per-script reports pgbench prints when a run mixes
	// scripts ("SQL script 1: ..."); empty for a single script.
	Scripts []Script `json:"scripts,omitempty"`
	// Statements are the per-statement latencies (-r), script by script.
	Statements []Statement `json:"statements,omitempty"`
}

// Count is a count pgbench prints with its percentage, "12 (0.345%)".
type Count struct {
	Count   int64   `json:"count"`
	Percent float64 `json:"percent"`
}

// Script is one script's report in a run of several.
type Script struct {
	Number        int     `json:"number"` // from 1, as in "SQL script 1:"
	Name          string  `json:"name"`
	Weight        int     `json:"weight"`
	WeightPercent float64 `json:"weight_percent"` // "targets N% of total"
	// Transactions is " - N transactions (P% of total[, tps = T])", as
	// printed; TPS is the tps in it, or in the "actually processed" line
	// of later versions, which also gives Processed.
	Transactions          *Count   `json:"transactions,omitempty"`
	Processed             *int64   `json:"processed,omitempty"`
	TPS                   *float64 `json:"tps,omitempty"`
	FailedTransactions    *Count   `json:"failed_transactions,omitempty"`
	SerializationFailures *Count   `json:"serialization_failures,omitempty"`
	DeadlockFailures      *Count   `json:"deadlock_failures,omitempty"`
	OtherFailures         *Count   `json:"other_failures,omitempty"`
	RetriedTransactions   *Count   `json:"retried_transactions,omitempty"`
	Retries               *int64   `json:"retries,omitempty"`
	SkippedTransactions   *Count   `json:"skipped_transactions,omitempty"`
	LatencyAvgMs          *float64 `json:"latency_avg_ms,omitempty"`
	LatencyStddevMs       *float64 `json:"latency_stddev_ms,omitempty"`
}

// Statement is one line of -r's per-statement report.
type Statement struct {
	// Script is the script the statement belongs to, from 1 (always 1
	// when the run has one script).
	Script       int     `json:"script"`
	LatencyAvgMs float64 `json:"latency_avg_ms"`
	Failures     *int64  `json:"failures,omitempty"` // 15+
	Retries      *int64  `json:"retries,omitempty"`  // 15+, --max-tries other than 1
	// Command is the statement's first line as pgbench printed it.
	Command string `json:"command"`
}

// Progress is one -P line: "progress: 5.0 s, 1234.5 tps, lat 0.810
// ms stddev 0.123, 0 failed". An hour's run at -P 1 prints 3600 of them,
// so the figures a version or a run's options do not print are
// parse.Opts, not pointers: a row holds no pointer (absent figures are
// left out of the JSON all the same).
type Progress struct {
	// TimeS is the time since the start of the run, or the Unix time with
	// --progress-timestamp.
	TimeS float64 `json:"time_s"`
	TPS   float64 `json:"tps"`
	// LatencyAvgMs is absent when pgbench printed "-nan": an interval
	// without a transaction (a stall), whose tps, 0, is the figure that
	// matters; the line was dropped, and the stall with it.
	LatencyAvgMs parse.Opt[float64] `json:"latency_avg_ms,omitzero"`
	// LatencyStddevMs is absent when pgbench printed "nan" (a rounding
	// error when an interval has very few transactions).
	LatencyStddevMs parse.Opt[float64] `json:"latency_stddev_ms,omitzero"`
	Failed          parse.Opt[int64]   `json:"failed,omitzero"`  // 15+
	LagMs           parse.Opt[float64] `json:"lag_ms,omitzero"`  // -R
	Skipped         parse.Opt[int64]   `json:"skipped,omitzero"` // -R with -L
	Retried         parse.Opt[int64]   `json:"retried,omitzero"` // 15+, --max-tries other than 1
	Retries         parse.Opt[int64]   `json:"retries,omitzero"`
}

// Message is a line pgbench logged.
type Message struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Parse parses what a pgbench run printed, read from r; source names it
// in errors and warnings. It reads the wording of pgbench 9.5 and later
// (up to 18).
//
// Lines it does not understand are returned as Warnings. It is an error
// when no line is pgbench's (empty input, binary data, another tool's
// output), when a summary is cut short (it lacks a line pgbench always
// prints) and when the input holds two runs' summaries.
//
// Parse is the fold of ParseSeq's records into a Run. It holds every
// progress line it reads, so it refuses input longer than parse.MaxText
// (256 MiB, some 46 days of -P 1): at once when the size is known (a
// file, bytes in memory), else at the line that passes the limit.
// ParseSeq, which holds none, has no limit.
func Parse(r io.Reader, source string) (Run, []parse.Warning, error) {
	size := parse.Size(r)
	if size > parse.MaxText {
		return Run{}, nil, parse.HeldTooLong(source, 0, "pgbench")
	}
	var f fold
	rd := newReader(r, source, parse.MaxText)
	for rd.Next() {
		if w := rd.Warning(); w != nil {
			f.warns = append(f.warns, *w)
			continue
		}
		rec := &rd.p.rec
		if rec.Kind == KindProgress && f.rows.Len() == 0 {
			// Room for the rows of the bytes left, from this line's
			// length (negative: the size is not known).
			f.rows.Expect(size-rd.l.Offset(), len(rd.l.Bytes())+1)
		}
		f.add(rec)
	}
	if err := rd.End(); err != nil {
		return Run{}, f.warns, err
	}
	return f.result(), f.warns, nil
}

// fold gathers a run's records and warnings into the Run Parse returns.
type fold struct {
	run   Run
	rows  batch.Rows[Progress]
	warns []parse.Warning
}

func (f *fold) add(rec *Record) {
	switch rec.Kind {
	case KindProgress:
		f.rows.Add(rec.Progress)
	case KindMessage:
		f.run.Messages = append(f.run.Messages, Message{Line: rec.Line, Text: rec.Text})
	case KindSummary:
		r := rec.Run
		f.run.Version, f.run.ServerVersion, f.run.Summary, f.run.Aborted = r.Version, r.ServerVersion, r.Summary, r.Aborted
	}
}

// result is the run, its progress lines gathered.
func (f *fold) result() Run {
	f.run.Progress = f.rows.All()
	return f.run
}
