package sysbench

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
	"github.com/pgstudy/pgstudy/parse/internal/num"
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
// Parse holds every interval line it reads, so it refuses input longer
// than parse.MaxText (256 MiB, some 20 days of --report-interval=1): at
// once when the size is known (a file, bytes in memory), else at the line
// that passes the limit.
func Parse(r io.Reader, source string) (Run, []parse.Warning, error) {
	size := parse.Size(r)
	if size > parse.MaxText {
		return Run{}, nil, parse.HeldTooLong(source, 0, "sysbench")
	}
	p := parser{source: source, seen: map[string]int{}}
	l := parse.NewLines(r, source)
	for l.Next() {
		if l.Offset() > parse.MaxText {
			return Run{}, p.warns, parse.HeldTooLong(source, l.Line(), "sysbench")
		}
		p.left = size - l.Offset() // negative when the size is not known
		if err := p.lineBytes(l.Line(), l.Bytes()); err != nil {
			return Run{}, p.warns, err
		}
	}
	if err := l.Err(); err != nil {
		return Run{}, p.warns, err
	}
	if err := p.finish(l.Line()); err != nil {
		return Run{}, p.warns, err
	}
	p.run.Intervals = p.rows.All()
	return p.run, p.warns, nil
}

type parser struct {
	source  string
	run     Run
	warns   []parse.Warning
	known   int
	section int
	// seen holds the report's lines already read, by section and key,
	// with their line numbers.
	seen      map[string]int
	sqlLine   int // where "SQL statistics:" is, or 0
	general   int // where "General statistics:" is, or 0
	totalLine int // where the queries performed total is
	// rows gathers the intervals, Run.Intervals at the end; left is the
	// input's bytes after the current line, when its size is known.
	rows batch.Rows[Interval]
	left int64
}

func (p *parser) warn(n int, text, format string, args ...any) {
	p.warns = append(p.warns, parse.Warning{Source: p.source, Line: n, Text: text, Msg: fmt.Sprintf(format, args...)})
}

// lineBytes reads line n: an interval line from its bytes, which most
// lines of a long run are, any other as text.
func (p *parser) lineBytes(n int, b []byte) error {
	if !bytes.HasPrefix(b, intervalPrefix) {
		return p.line(n, string(b))
	}
	if p.section == sectionHistogram {
		p.section = sectionNone
	}
	if msg := p.interval(b); msg != "" {
		p.warn(n, string(b), "%s", msg)
	} else {
		p.known++
	}
	return nil
}

func (p *parser) line(n int, s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	msg, err := p.dispatch(n, s)
	if err != nil {
		return err
	}
	if msg != "" {
		p.warn(n, s, "%s", msg)
		return nil
	}
	p.known++
	return nil
}

func (p *parser) dispatch(n int, s string) (string, error) {
	if s[0] != ' ' && p.section == sectionHistogram {
		p.section = sectionNone
	}
	switch {
	case strings.HasPrefix(s, "FATAL: "), strings.HasPrefix(s, "ALERT: "), strings.HasPrefix(s, "WARNING: "):
		p.run.Messages = append(p.run.Messages, Message{Line: n, Text: s})
		return "", nil
	case strings.HasPrefix(s, "sysbench "):
		return p.banner(strings.TrimPrefix(s, "sysbench ")), nil
	case s == "SQL statistics:" || s == "General statistics:":
		if p.general != 0 || (s == "SQL statistics:" && p.sqlLine != 0) {
			return "", parse.Errorf(p.source, n, "a second report (the first starts on line %d): the input holds more than one sysbench run, or --report-checkpoints reports", p.reportStart())
		}
		if s == "SQL statistics:" {
			p.section, p.sqlLine = sectionSQL, n
			p.run.SQL = &SQL{}
		} else {
			p.section, p.general = sectionGeneral, n
		}
		return "", nil
	case s == "Latency (ms):":
		if p.general == 0 {
			return "\"Latency (ms):\" before \"General statistics:\"", nil
		}
		p.section = sectionLatency
		return "", nil
	case s == "Threads fairness:":
		if p.general == 0 {
			return "\"Threads fairness:\" before \"General statistics:\"", nil
		}
		p.section = sectionFairness
		return "", nil
	case strings.TrimSpace(s) == "value  ------------- distribution ------------- count":
		p.section = sectionHistogram
		return "", nil
	case s[0] == ' ' || s[0] == '\t':
		return p.sectionLine(n, strings.TrimSpace(s))
	}
	return p.header(s), nil
}

// banner reads "1.0.20 (using system LuaJIT 2.1.0-beta3)".
func (p *parser) banner(v string) string {
	ver, rest, _ := strings.Cut(v, " ")
	lua, ok := strings.CutPrefix(rest, "(using ")
	lua, ok2 := strings.CutSuffix(lua, ")")
	if !ok || !ok2 || ver == "" || ver[0] < '0' || ver[0] > '9' {
		return "not a sysbench banner (\"sysbench 1.0.20 (using ...)\")"
	}
	if p.run.Version != "" {
		return "a second sysbench banner"
	}
	p.run.Version, p.run.LuaJIT = ver, lua
	return ""
}

// header reads the lines sysbench prints before and between the
// intervals and the report.
func (p *parser) header(s string) string {
	p.section = sectionNone
	intOf := func(dst **int, v string) string {
		c, ok := num.Count(v)
		if !ok || c > math.MaxInt32 {
			return "not a count"
		}
		if *dst != nil {
			return "repeats an earlier line"
		}
		i := int(c)
		*dst = &i
		return ""
	}
	if v, ok := strings.CutPrefix(s, "Number of threads: "); ok {
		return intOf(&p.run.Threads, v)
	}
	if v, ok := strings.CutPrefix(s, "Target transaction rate: "); ok {
		if v, ok := strings.CutSuffix(v, "/sec"); ok {
			return intOf(&p.run.TargetRatePerS, v)
		}
		return "want \"Target transaction rate: N/sec\""
	}
	if v, ok := strings.CutPrefix(s, "Report intermediate results every "); ok {
		if v, ok := strings.CutSuffix(v, " second(s)"); ok {
			return intOf(&p.run.ReportIntervalS, v)
		}
		return "want \"Report intermediate results every N second(s)\""
	}
	if v, ok := strings.CutPrefix(s, "Number of unfinished transactions on forced shutdown: "); ok {
		c, ok := num.Count(v)
		if !ok {
			return "not a count"
		}
		p.run.UnfinishedTransactions = &c
		return ""
	}
	switch {
	case s == "Running the test with following options:",
		s == "Initializing worker threads...",
		s == "Threads started!",
		s == "Debug mode enabled.",
		s == "Validation checks: on.",
		s == "Latency histogram (values are in milliseconds)",
		strings.HasPrefix(s, "Initializing random number generator from "),
		strings.HasPrefix(s, "Report checkpoint(s) at "),
		strings.HasPrefix(s, "Forcing shutdown in "):
		return ""
	}
	return "not a line of sysbench output"
}

// finish checks what the whole input says; last is the last line's number.
func (p *parser) finish(last int) error {
	if p.known == 0 {
		if len(p.warns) == 0 {
			return parse.Errorf(p.source, 0, "empty input; expected sysbench output")
		}
		w := p.warns[0]
		return parse.Errorf(p.source, w.Line, "not sysbench output (no line of it is sysbench's): %s: %s", w.Msg, num.Quote(w.Text))
	}
	if p.general == 0 {
		why := ""
		if len(p.run.Messages) > 0 {
			m := p.run.Messages[0]
			why = fmt.Sprintf("; line %d says %s", m.Line, num.Quote(m.Text))
		}
		return parse.Errorf(p.source, last, "input ends before sysbench's report (\"General statistics:\"): the run did not finish or the output is cut short%s", why)
	}
	secs := []int{sectionGeneral, sectionLatency, sectionFairness}
	if p.run.SQL != nil {
		secs = append([]int{sectionQueries, sectionSQL}, secs...)
	}
	start := p.reportStart()
	for _, sec := range secs {
		for _, key := range need[sec] {
			if _, ok := p.seen[sectionNames[sec]+"/"+key]; !ok {
				return parse.Errorf(p.source, last, "the report that starts on line %d has no %q line under %q; the output is cut short",
					start, key, sectionNames[sec])
			}
		}
	}
	if sql := p.run.SQL; sql != nil {
		sum, ok := add(sql.Reads, sql.Writes, sql.Other)
		if !ok || sum != sql.Total {
			return parse.Errorf(p.source, p.totalLine, "queries performed: total %d is not read + write + other (%d + %d + %d)", sql.Total, sql.Reads, sql.Writes, sql.Other)
		}
		if sql.Queries != sql.Total {
			return parse.Errorf(p.source, p.seen["SQL statistics/queries"], "queries: %d is not the queries performed total %d", sql.Queries, sql.Total)
		}
	}
	return nil
}

// add adds non-negative counts, reporting overflow.
func add(xs ...int64) (int64, bool) {
	var s int64
	for _, x := range xs {
		if x > math.MaxInt64-s {
			return 0, false
		}
		s += x
	}
	return s, true
}

// reportStart is the line where the final report starts.
func (p *parser) reportStart() int {
	if p.sqlLine != 0 {
		return p.sqlLine
	}
	return p.general
}
