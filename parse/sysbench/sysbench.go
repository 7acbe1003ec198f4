package sysbench

import (
	"io"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
)

// Run is what a sysbench 1.0 run printed on stdout: its header, the
// --report-interval lines and its final report. The report's fields are
// always printed, so they are not pointers; the SQL statistics are printed
// by the database tests only (oltp_*, select_random_*, ...).
type Run struct {
	// Version is sysbench's, "1.0.20"; LuaJIT the LuaJIT it says it uses,
	// "system LuaJIT 2.1.0-beta3".
	Version string `json:"version,omitempty"`
	LuaJIT  string `json:"luajit,omitempty"`
	// Threads is "Number of threads"; TargetRatePerS is --rate's
	// "Target transaction rate"; ReportIntervalS is --report-interval.
	Threads         *int `json:"threads,omitempty"`
	TargetRatePerS  *int `json:"target_rate_per_s,omitempty"`
	ReportIntervalS *int `json:"report_interval_s,omitempty"`

	// Intervals are the --report-interval lines, in order; their times
	// increase.
	Intervals []Interval `json:"intervals,omitempty"`
	// Histogram is --histogram's latency distribution.
	Histogram []Bucket `json:"histogram,omitempty"`
	// SQL is the "SQL statistics" section of the database tests.
	SQL *SQL `json:"sql,omitempty"`
	// UnfinishedTransactions is printed when --force-shutdown stopped
	// transactions still running.
	UnfinishedTransactions *int64 `json:"unfinished_transactions,omitempty"`

	// TotalTimeS and Events are the "General statistics".
	TotalTimeS float64 `json:"total_time_s"`
	Events     int64   `json:"events"`

	// The "Latency (ms)" section. LatencyPercentile is --percentile's
	// (95 by default); it and LatencyPercentileMs are absent with
	// --percentile=0 ("percentile stats: disabled").
	LatencyMinMs        float64  `json:"latency_min_ms"`
	LatencyAvgMs        float64  `json:"latency_avg_ms"`
	LatencyMaxMs        float64  `json:"latency_max_ms"`
	LatencyPercentile   *int     `json:"latency_percentile,omitempty"`
	LatencyPercentileMs *float64 `json:"latency_percentile_ms,omitempty"`
	LatencySumMs        float64  `json:"latency_sum_ms"`

	// The "Threads fairness" section: events per thread and execution
	// time per thread, average and standard deviation.
	FairnessEventsAvg       float64 `json:"fairness_events_avg"`
	FairnessEventsStddev    float64 `json:"fairness_events_stddev"`
	FairnessExecTimeAvgS    float64 `json:"fairness_exec_time_avg_s"`
	FairnessExecTimeStddevS float64 `json:"fairness_exec_time_stddev_s"`

	// Messages are sysbench's "FATAL: ", "ALERT: " and "WARNING: " lines.
	Messages []Message `json:"messages,omitempty"`
}

// SQL is the "SQL statistics" section. Total is Reads + Writes +
// Other, and so is Queries.
type SQL struct {
	Reads             int64   `json:"reads"`
	Writes            int64   `json:"writes"`
	Other             int64   `json:"other"`
	Total             int64   `json:"total"`
	Transactions      int64   `json:"transactions"`
	TransactionsPerS  float64 `json:"transactions_per_s"`
	Queries           int64   `json:"queries"`
	QueriesPerS       float64 `json:"queries_per_s"`
	IgnoredErrors     int64   `json:"ignored_errors"`
	IgnoredErrorsPerS float64 `json:"ignored_errors_per_s"`
	Reconnects        int64   `json:"reconnects"`
	ReconnectsPerS    float64 `json:"reconnects_per_s"`
}

// Interval is one --report-interval line: for the database tests
// "[ 5s ] thds: 4 tps: 123.45 qps: 2469.00 (r/w/o: 1728.30/493.80/246.90)
// lat (ms,95%): 9.22 err/s: 0.00 reconn/s: 0.00", for the others
// "[ 5s ] thds: 4 eps: 123.45 lat (ms,95%): 9.22". The rates are per
// second over the interval. An hour's run at --report-interval=1 prints
// 3600 of them, so the figures a layout does not print are parse.Opts,
// not pointers: a row holds no pointer (absent figures are left out of
// the JSON all the same).
type Interval struct {
	TimeS   float64 `json:"time_s"` // since the start
	Threads int     `json:"threads"`
	// TPS, QPS, the query mix, ErrorsPerS and ReconnectsPerS are the
	// database tests'; EPS (events per second) the others'.
	TPS            parse.Opt[float64] `json:"tps,omitzero"`
	QPS            parse.Opt[float64] `json:"qps,omitzero"`
	ReadsPerS      parse.Opt[float64] `json:"reads_per_s,omitzero"`
	WritesPerS     parse.Opt[float64] `json:"writes_per_s,omitzero"`
	OtherPerS      parse.Opt[float64] `json:"other_per_s,omitzero"`
	EPS            parse.Opt[float64] `json:"eps,omitzero"`
	ErrorsPerS     parse.Opt[float64] `json:"errors_per_s,omitzero"`
	ReconnectsPerS parse.Opt[float64] `json:"reconnects_per_s,omitzero"`
	// LatencyMs is the interval's LatencyPercentile-th percentile latency.
	LatencyPercentile int     `json:"latency_percentile"`
	LatencyMs         float64 `json:"latency_ms"`
	// QueueLength and Concurrency come from the "queue length" line that
	// follows with --rate.
	QueueLength parse.Opt[int64] `json:"queue_length,omitzero"`
	Concurrency parse.Opt[int64] `json:"concurrency,omitzero"`
}

// Bucket is one row of --histogram: the count of events whose
// latency falls in the bucket of ValueMs.
type Bucket struct {
	ValueMs float64 `json:"value_ms"`
	Count   int64   `json:"count"`
}

// Message is a line sysbench logged as FATAL, ALERT or WARNING.
type Message struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Parse parses what a sysbench 1.0 run printed, read from r; source names
// it in errors and warnings.
//
// Lines it does not understand are returned as Warnings. It is an error
// when no line is sysbench's (empty input, binary data, another tool's
// output), when the final report is missing (the run did not finish) or cut
// short, when its numbers disagree (a total that is not read + write +
// other) and when the input holds more than one report (two runs, or
// --report-checkpoints).
//
// Parse is the fold of ParseSeq's records into a Run. It holds every
// interval line it reads, so it refuses input longer than parse.MaxText
// (256 MiB, some 20 days of --report-interval=1): at once when the size
// is known (a file, bytes in memory), else at the line that passes the
// limit. ParseSeq, which holds none, has no limit.
func Parse(r io.Reader, source string) (Run, []parse.Warning, error) {
	size := parse.Size(r)
	if size > parse.MaxText {
		return Run{}, nil, parse.HeldTooLong(source, 0, "sysbench")
	}
	var f fold
	rd := newReader(r, source, parse.MaxText)
	for rd.Next() {
		if w := rd.Warning(); w != nil {
			f.warns = append(f.warns, *w)
			continue
		}
		rec := rd.cur()
		if rec.Kind == KindInterval && f.rows.Len() == 0 {
			// Room for the rows of the bytes left, from the first
			// interval's length (negative: the size is not known).
			f.rows.Expect(size-rd.l.Offset(), rd.p.firstLen)
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
	rows  batch.Rows[Interval]
	warns []parse.Warning
}

func (f *fold) add(rec *Record) {
	switch rec.Kind {
	case KindInterval:
		f.rows.Add(rec.Interval)
	case KindMessage:
		f.run.Messages = append(f.run.Messages, Message{Line: rec.Line, Text: rec.Text})
	case KindSummary:
		msgs := f.run.Messages
		f.run = *rec.Run
		f.run.Messages = msgs
	}
}

// result is the run, its intervals gathered.
func (f *fold) result() Run {
	f.run.Intervals = f.rows.All()
	return f.run
}
