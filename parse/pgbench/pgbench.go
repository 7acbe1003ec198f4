package pgbench

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
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
// ms stddev 0.123, 0 failed".
type Progress struct {
	// TimeS is the time since the start of the run, or the Unix time with
	// --progress-timestamp.
	TimeS        float64 `json:"time_s"`
	TPS          float64 `json:"tps"`
	LatencyAvgMs float64 `json:"latency_avg_ms"`
	// LatencyStddevMs is absent when pgbench printed "nan" (a rounding
	// error when an interval has very few transactions).
	LatencyStddevMs *float64 `json:"latency_stddev_ms,omitempty"`
	Failed          *int64   `json:"failed,omitempty"`  // 15+
	LagMs           *float64 `json:"lag_ms,omitempty"`  // -R
	Skipped         *int64   `json:"skipped,omitempty"` // -R with -L
	Retried         *int64   `json:"retried,omitempty"` // 15+, --max-tries other than 1
	Retries         *int64   `json:"retries,omitempty"`
}

// Message is a line pgbench logged.
type Message struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Pgbench parses what a pgbench run printed, read from r; source names it
// in errors and warnings. It reads the wording of pgbench 9.5 and later
// (up to 18).
//
// Lines it does not understand are returned as Warnings. It is an error
// when no line is pgbench's (empty input, binary data, another tool's
// output), when a summary is cut short (it lacks a line pgbench always
// prints) and when the input holds two runs' summaries.
func Parse(r io.Reader, source string) (Run, []parse.Warning, error) {
	p := parser{source: source, seen: map[string]int{}}
	err := parse.ReadLines(r, source, p.line, p.finish)
	if err != nil {
		return Run{}, p.warns, err
	}
	return p.run, p.warns, nil
}

type parser struct {
	source string
	run    Run
	warns  []parse.Warning
	known  int            // lines understood
	seen   map[string]int // summary keys already read, with their line
	first  int            // the summary's first line

	script *Script // the "SQL script N" block being read
	// stmtValid says statement lines are being read; stmtCols is their
	// number of count columns (0, 1 or 2) after the latency.
	stmtValid bool
	stmtCols  int
}

func (p *parser) warn(n int, text, format string, args ...any) {
	p.warns = append(p.warns, parse.Warning{Source: p.source, Line: n, Text: text, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) message(n int, text string) {
	p.run.Messages = append(p.run.Messages, Message{Line: n, Text: text})
	if strings.Contains(text, "Run was aborted") {
		p.run.Aborted = true
	}
}

func (p *parser) line(n int, s string) error {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	// Statement lines: "   %11.3f  %10d %s", indented.
	if p.stmtValid && (s[0] == ' ' || s[0] == '\t') {
		if msg := p.statement(s); msg != "" {
			p.warn(n, s, "%s", msg)
		} else {
			p.known++
		}
		return nil
	}
	p.stmtValid = false
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

// dispatch reads one line that is not a statement line; it returns why
// the line is not understood, or an error that ends the parse.
func (p *parser) dispatch(n int, s string) (string, error) {
	switch {
	case strings.HasPrefix(s, "progress: "):
		return p.progress(s), nil
	case strings.HasPrefix(s, "pgbench: "), strings.HasPrefix(s, "client "),
		strings.HasPrefix(s, "Run was aborted"):
		p.message(n, s)
		return "", nil
	case strings.HasPrefix(s, "starting vacuum..."):
		rest := strings.TrimPrefix(s, "starting vacuum...")
		if rest != "" && rest != "end." {
			p.message(n, rest)
		}
		return "", nil
	case strings.HasPrefix(s, "pgbench (") && strings.HasSuffix(s, ")"):
		return p.banner(strings.TrimSuffix(strings.TrimPrefix(s, "pgbench ("), ")")), nil
	case strings.HasPrefix(s, "SQL script "):
		return p.scriptHeader(n, s)
	case strings.HasPrefix(s, " - "):
		if p.script == nil {
			return "a per-script line outside a \"SQL script\" block", nil
		}
		return p.scriptLine(strings.TrimPrefix(s, " - ")), nil
	}
	if strings.HasPrefix(s, "statement latencies in milliseconds") {
		return p.statementHeader(s), nil
	}
	return p.summaryLine(n, s)
}

// banner reads "15.18 (Debian 15.18-0+deb12u1)" or "16.1, server 15.4".
func (p *parser) banner(v string) string {
	if p.run.Version != "" {
		return "a second pgbench banner"
	}
	if i := strings.LastIndex(v, ", server "); i >= 0 {
		p.run.Version, p.run.ServerVersion = v[:i], v[i+len(", server "):]
	} else {
		p.run.Version = v
	}
	if p.run.Version == "" || (p.run.Version[0] < '0' || p.run.Version[0] > '9') {
		p.run.Version, p.run.ServerVersion = "", ""
		return "not a pgbench version banner"
	}
	return ""
}

// summary returns the summary, starting it at line n.
func (p *parser) summary(n int) *Summary {
	if p.run.Summary == nil {
		p.run.Summary = &Summary{}
		p.first = n
	}
	return p.run.Summary
}

// splitKey splits "key: value" and "key = value" (pgbench 9.5 printed
// "latency average: 1.2 ms", later versions "latency average = 1.2 ms").
func splitKey(s string) (key, value string, ok bool) {
	i := strings.Index(s, ": ")
	j := strings.Index(s, " = ")
	switch {
	case i < 0 && j < 0:
		return "", "", false
	case j < 0 || (i >= 0 && i < j):
		return s[:i], strings.TrimSpace(s[i+2:]), true
	default:
		return s[:j], strings.TrimSpace(s[j+3:]), true
	}
}

func (p *parser) summaryLine(n int, s string) (string, error) {
	key, value, ok := splitKey(s)
	if !ok {
		return "not a line of pgbench output", nil
	}
	if key == "transaction type" {
		if m, dup := p.seen[key]; dup {
			return "", parse.Errorf(p.source, n, "a second summary (the first starts on line %d); the input holds more than one pgbench run", m)
		}
	}
	if m, dup := p.seen[key]; dup && key != "tps" {
		return fmt.Sprintf("repeats line %d; the first is kept", m), nil
	}
	had := p.run.Summary != nil
	if msg := p.summaryValue(n, key, value); msg != "" {
		if !had { // a line not understood starts no summary
			p.run.Summary, p.first = nil, 0
		}
		return msg, nil
	}
	p.seen[key] = n
	p.script = nil
	return "", nil
}

func (p *parser) summaryValue(n int, key, value string) string {
	if c := p.countField(n, key); c != nil {
		v, ok := countOf(value)
		if !ok {
			return fmt.Sprintf("%s: want a count and its percentage, as \"12 (0.345%%)\"", key)
		}
		*c = &v
		return ""
	}
	switch key {
	case "transaction type":
		if value == "" {
			return "empty transaction type"
		}
		p.summary(n).TransactionType = value
	case "scaling factor":
		return setInt(&p.summary(n).ScalingFactor, key, value)
	case "partition method":
		p.summary(n).PartitionMethod = value
	case "partitions":
		return setIntPtr(&p.summary(n).Partitions, key, value)
	case "query mode":
		if value == "" {
			return "empty query mode"
		}
		p.summary(n).QueryMode = value
	case "number of clients":
		return setInt(&p.summary(n).Clients, key, value)
	case "number of threads":
		return setInt(&p.summary(n).Threads, key, value)
	case "maximum number of tries":
		return setIntPtr(&p.summary(n).MaxTries, key, value)
	case "duration":
		v, ok := strings.CutSuffix(value, " s")
		if !ok {
			return "duration: want seconds, as \"60 s\""
		}
		return setIntPtr(&p.summary(n).DurationS, key, v)
	case "number of transactions per client":
		c, ok := num.Count(value)
		if !ok {
			return "number of transactions per client: not a count"
		}
		p.summary(n).TransactionsPerClient = &c
	case "number of transactions actually processed":
		done, planned, slash := strings.Cut(value, "/")
		d, ok := num.Count(done)
		if !ok {
			return "number of transactions actually processed: not a count"
		}
		sum := p.summary(n)
		if slash {
			pl, ok := num.Count(planned)
			if !ok {
				return "number of transactions actually processed: the planned total after \"/\" is not a count"
			}
			sum.TransactionsPlanned = &pl
		}
		sum.Transactions = d
	case "total number of retries":
		c, ok := num.Count(value)
		if !ok {
			return "total number of retries: not a count"
		}
		p.summary(n).Retries = &c
	case "latency average":
		v, incl := strings.CutSuffix(value, " (including failures)")
		f, ok := parseMs(v)
		if !ok {
			return "latency average: want milliseconds, as \"1.234 ms\""
		}
		sum := p.summary(n)
		sum.LatencyAvgMs, sum.LatencyIncludesFailures = &f, incl
	case "latency stddev":
		f, ok := parseMs(value)
		if !ok {
			if naN(strings.TrimSuffix(value, " ms")) {
				p.summary(n)
				return ""
			}
			return "latency stddev: want milliseconds, as \"1.234 ms\""
		}
		p.summary(n).LatencyStddevMs = &f
	case "rate limit schedule lag":
		// "avg 0.580 (max 13.984) ms"
		var avg, maxLag float64
		fs := strings.Fields(value)
		ok := len(fs) == 5 && fs[0] == "avg" && strings.HasPrefix(fs[2], "(") && fs[3] != "" && strings.HasSuffix(fs[3], ")") && fs[4] == "ms"
		if ok {
			var ok1, ok2 bool
			avg, ok1 = num.NonNegFloat(fs[1])
			maxLag, ok2 = num.NonNegFloat(strings.TrimSuffix(fs[3], ")"))
			ok = ok1 && ok2 && fs[2] == "(max"
		}
		if !ok {
			return "rate limit schedule lag: want \"avg A (max M) ms\""
		}
		sum := p.summary(n)
		sum.LagAvgMs, sum.LagMaxMs = &avg, &maxLag
	case "initial connection time":
		f, ok := parseMs(value)
		if !ok {
			return "initial connection time: want milliseconds, as \"1.234 ms\""
		}
		p.summary(n).InitialConnectionTimeMs = &f
	case "average connection time":
		f, ok := parseMs(value)
		if !ok {
			return "average connection time: want milliseconds, as \"1.234 ms\""
		}
		p.summary(n).AvgConnectionTimeMs = &f
	case "tps":
		// The key is recorded with its wording, so that both of pgbench
		// 13's lines are read and neither twice.
		return p.tps(n, value)
	default:
		if ms, ok := latencyLimit(key); ok {
			// "917/988 (92.814%)"
			cnt, rest, _ := strings.Cut(value, "/")
			tot, pct, _ := strings.Cut(rest, " ")
			c, ok1 := num.Count(cnt)
			_, ok2 := num.Count(tot)
			pc, ok3 := num.Percent(pct)
			if !ok1 || !ok2 || !ok3 {
				return "latency limit: want \"late/processed (P%)\""
			}
			sum := p.summary(n)
			sum.LatencyLimitMs, sum.LateTransactions = &ms, &Count{Count: c, Percent: pc}
			return ""
		}
		return fmt.Sprintf("unknown pgbench line %q", key)
	}
	return ""
}

func (p *parser) tps(n int, value string) string {
	figure, wording, ok := strings.Cut(value, " ")
	f, ok2 := num.NonNegFloat(figure)
	if !ok || !ok2 {
		return "tps: want \"N (wording)\""
	}
	sum := p.summary(n)
	var dst **float64
	switch wording {
	case "(without initial connection time)", "(excluding connections establishing)":
		dst = &sum.TPS
	case "(including reconnection times)", "(including connections establishing)":
		dst = &sum.TPSIncludingConnections
	default:
		return fmt.Sprintf("tps: unknown wording %s", wording)
	}
	if *dst != nil {
		return "a second tps line of this kind; the first is kept"
	}
	*dst = &f
	return ""
}

// countField returns where a "number of ...: N (P%)" line of the summary
// goes, or nil when key is not one.
func (p *parser) countField(n int, key string) **Count {
	switch key {
	case "number of failed transactions":
		return &p.summary(n).FailedTransactions
	case "number of serialization failures":
		return &p.summary(n).SerializationFailures
	case "number of deadlock failures":
		return &p.summary(n).DeadlockFailures
	case "number of other failures":
		return &p.summary(n).OtherFailures
	case "number of transactions retried":
		return &p.summary(n).RetriedTransactions
	case "number of transactions skipped":
		return &p.summary(n).SkippedTransactions
	}
	return nil
}

// latencyLimit reads "number of transactions above the 2.0 ms
// latency limit".
func latencyLimit(key string) (float64, bool) {
	v, ok := strings.CutPrefix(key, "number of transactions above the ")
	if !ok {
		return 0, false
	}
	v, ok = strings.CutSuffix(v, " ms latency limit")
	if !ok {
		return 0, false
	}
	return num.NonNegFloat(v)
}

// countOf reads "12 (0.345%)".
func countOf(s string) (Count, bool) {
	figure, pct, ok := strings.Cut(s, " ")
	if !ok {
		return Count{}, false
	}
	c, ok1 := num.Count(figure)
	p, ok2 := num.Percent(strings.TrimSpace(pct))
	return Count{Count: c, Percent: p}, ok1 && ok2
}

// parseMs reads "1.234 ms".
func parseMs(s string) (float64, bool) {
	v, ok := strings.CutSuffix(s, " ms")
	if !ok {
		return 0, false
	}
	return num.NonNegFloat(v)
}

// naN reports whether s is how C prints a NaN.
func naN(s string) bool {
	switch s {
	case "nan", "-nan", "NaN", "-NaN":
		return true
	}
	return false
}

func setInt(dst *int, key, value string) string {
	c, ok := num.Count(value)
	if !ok || c > math.MaxInt32 {
		return key + ": not a count"
	}
	*dst = int(c)
	return ""
}

func setIntPtr(dst **int, key, value string) string {
	var v int
	if msg := setInt(&v, key, value); msg != "" {
		return msg
	}
	*dst = &v
	return ""
}

func (p *parser) scriptHeader(n int, s string) (string, error) {
	// "SQL script 1: <builtin: select only>"
	figure, name, ok := strings.Cut(strings.TrimPrefix(s, "SQL script "), ": ")
	k, ok2 := num.Count(figure)
	if !ok || !ok2 || k < 1 || name == "" {
		return "want \"SQL script N: name\"", nil
	}
	sum := p.summary(n)
	if int(k) != len(sum.Scripts)+1 {
		return fmt.Sprintf("script %d after %d scripts", k, len(sum.Scripts)), nil
	}
	sum.Scripts = append(sum.Scripts, Script{Number: int(k), Name: name})
	p.script = &sum.Scripts[len(sum.Scripts)-1]
	return "", nil
}

// scriptLine reads a " - " line of a script block (without the " - ").
func (p *parser) scriptLine(s string) string {
	sc := p.script
	if strings.HasPrefix(s, "statement latencies in milliseconds") {
		return p.statementHeader(s)
	}
	if v, ok := strings.CutPrefix(s, "weight: "); ok {
		// "2 (targets 66.7% of total)"
		w, rest, _ := strings.Cut(v, " ")
		c, ok1 := num.Count(w)
		pct, ok2 := strings.CutPrefix(rest, "(targets ")
		pct, ok3 := strings.CutSuffix(pct, " of total)")
		f, ok4 := num.Percent(pct)
		if !ok1 || !ok2 || !ok3 || !ok4 || c > math.MaxInt32 {
			return "weight: want \"W (targets P% of total)\""
		}
		sc.Weight, sc.WeightPercent = int(c), f
		return ""
	}
	if figure, rest, ok := strings.Cut(s, " transactions ("); ok {
		// "3503 transactions (67.4% of total, tps = 713.187183)" or
		// "3503 transactions (67.4% of total)"
		c, ok1 := num.Count(figure)
		rest, ok2 := strings.CutSuffix(rest, ")")
		pct, tps, hasTPS := strings.Cut(rest, " of total, tps = ")
		if !hasTPS {
			pct, ok2 = strings.CutSuffix(rest, " of total")
			ok2 = ok2 && ok1
		}
		f, ok3 := num.Percent(pct)
		if !ok1 || !ok2 || !ok3 {
			return "want \"N transactions (P% of total[, tps = T])\""
		}
		if hasTPS {
			t, ok := num.NonNegFloat(tps)
			if !ok {
				return "want \"N transactions (P% of total, tps = T)\""
			}
			sc.TPS = &t
		}
		sc.Transactions = &Count{Count: c, Percent: f}
		return ""
	}
	key, value, ok := splitKey(s)
	if !ok {
		return "not a per-script line"
	}
	var dst **Count
	switch key {
	case "number of failed transactions":
		dst = &sc.FailedTransactions
	case "number of serialization failures":
		dst = &sc.SerializationFailures
	case "number of deadlock failures":
		dst = &sc.DeadlockFailures
	case "number of other failures":
		dst = &sc.OtherFailures
	case "number of transactions retried":
		dst = &sc.RetriedTransactions
	case "number of transactions skipped":
		dst = &sc.SkippedTransactions
	case "number of transactions actually processed":
		// "N (tps = T)"
		figure, tps, _ := strings.Cut(value, " (tps = ")
		c, ok1 := num.Count(figure)
		tps, ok2 := strings.CutSuffix(tps, ")")
		t, ok3 := num.NonNegFloat(tps)
		if !ok1 || !ok2 || !ok3 {
			return "want \"number of transactions actually processed: N (tps = T)\""
		}
		sc.Processed, sc.TPS = &c, &t
		return ""
	case "total number of retries":
		c, ok := num.Count(value)
		if !ok {
			return "total number of retries: not a count"
		}
		sc.Retries = &c
		return ""
	case "latency average":
		f, ok := parseMs(value)
		if !ok {
			return "latency average: want milliseconds, as \"1.234 ms\""
		}
		sc.LatencyAvgMs = &f
		return ""
	case "latency stddev":
		f, ok := parseMs(value)
		if !ok {
			if naN(strings.TrimSuffix(value, " ms")) {
				return ""
			}
			return "latency stddev: want milliseconds, as \"1.234 ms\""
		}
		sc.LatencyStddevMs = &f
		return ""
	default:
		return fmt.Sprintf("unknown per-script line %q", key)
	}
	c, ok := countOf(value)
	if !ok {
		return fmt.Sprintf("%s: want a count and its percentage, as \"12 (0.345%%)\"", key)
	}
	*dst = &c
	return ""
}

// statementHeader reads "statement latencies in milliseconds[ and
// failures|, failures and retries]:".
func (p *parser) statementHeader(s string) string {
	switch strings.TrimPrefix(s, "statement latencies in milliseconds") {
	case ":":
		p.stmtCols = 0
	case " and failures:":
		p.stmtCols = 1
	case ", failures and retries:":
		p.stmtCols = 2
	default:
		return "unknown statement latencies header"
	}
	p.stmtValid = true
	if p.script == nil {
		p.summary(0) // a summary that starts here is cut: finish says so
	}
	return ""
}

// statement reads "   %11.3f  %10d %10d %s".
func (p *parser) statement(s string) string {
	rest := strings.TrimLeft(s, " \t")
	var cols [3]string
	for i := 0; i <= p.stmtCols; i++ {
		var ok bool
		cols[i], rest, ok = strings.Cut(rest, " ")
		if !ok {
			return "a statement line without its command"
		}
		rest = strings.TrimLeft(rest, " ")
	}
	lat, ok := num.NonNegFloat(cols[0])
	if !ok {
		return "a statement line whose latency is not a number"
	}
	st := Statement{Script: 1, LatencyAvgMs: lat, Command: rest}
	if p.script != nil {
		st.Script = p.script.Number
	}
	for i := 1; i <= p.stmtCols; i++ {
		c, ok := num.Count(cols[i])
		if !ok {
			return "a statement line whose failures or retries are not a count"
		}
		if i == 1 {
			st.Failures = &c
		} else {
			st.Retries = &c
		}
	}
	if rest == "" {
		return "a statement line without its command"
	}
	sum := p.run.Summary
	sum.Statements = append(sum.Statements, st)
	return ""
}

// progress reads "progress: 5.0 s, 1234.5 tps, lat 0.810 ms stddev 0.123,
// 0 failed[, lag 0.1 ms[, 3 skipped]][, 0 retried, 0 retries]".
func (p *parser) progress(s string) string {
	parts := strings.Split(strings.TrimPrefix(s, "progress: "), ", ")
	if len(parts) < 3 {
		return "a progress line without its time, tps and latency"
	}
	var pr Progress
	t, ok1 := strings.CutSuffix(parts[0], " s")
	tps, ok2 := strings.CutSuffix(parts[1], " tps")
	var ok3, ok4 bool
	pr.TimeS, ok3 = num.NonNegFloat(t)
	pr.TPS, ok4 = num.NonNegFloat(tps)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return "a progress line without \"T s, N tps\""
	}
	lat := strings.Fields(parts[2])
	if len(lat) != 5 || lat[0] != "lat" || lat[2] != "ms" || lat[3] != "stddev" {
		return "a progress line without \"lat L ms stddev S\""
	}
	var ok bool
	if pr.LatencyAvgMs, ok = num.NonNegFloat(lat[1]); !ok {
		return "a progress line whose latency is not a number"
	}
	if sd, ok := num.NonNegFloat(lat[4]); ok {
		pr.LatencyStddevMs = &sd
	} else if !naN(lat[4]) {
		return "a progress line whose stddev is not a number"
	}
	for _, part := range parts[3:] {
		if v, ok := strings.CutPrefix(part, "lag "); ok {
			v, ok := strings.CutSuffix(v, " ms")
			f, ok2 := num.NonNegFloat(v)
			if !ok || !ok2 || pr.LagMs != nil {
				return fmt.Sprintf("a progress line with %q", part)
			}
			pr.LagMs = &f
			continue
		}
		figure, what, _ := strings.Cut(part, " ")
		c, ok := num.Count(figure)
		var dst **int64
		switch what {
		case "failed":
			dst = &pr.Failed
		case "skipped":
			dst = &pr.Skipped
		case "retried":
			dst = &pr.Retried
		case "retries":
			dst = &pr.Retries
		}
		if !ok || dst == nil || *dst != nil {
			return fmt.Sprintf("a progress line with %q", part)
		}
		*dst = &c
	}
	if k := len(p.run.Progress); k > 0 && pr.TimeS <= p.run.Progress[k-1].TimeS {
		return fmt.Sprintf("a progress time (%g s) not after the one before (%g s); another run's output?", pr.TimeS, p.run.Progress[k-1].TimeS)
	}
	p.run.Progress = append(p.run.Progress, pr)
	return ""
}

// finish checks what the whole input says; last is the last line's number.
func (p *parser) finish(last int) error {
	if p.known == 0 {
		if len(p.warns) == 0 {
			return parse.Errorf(p.source, 0, "empty input; expected pgbench output")
		}
		w := p.warns[0]
		return parse.Errorf(p.source, w.Line, "not pgbench output (no line of it is pgbench's): %s: %s", w.Msg, num.Quote(w.Text))
	}
	sum := p.run.Summary
	if sum == nil {
		return nil
	}
	first := p.first
	if first == 0 {
		first = last
	}
	for _, need := range []string{
		"transaction type", "scaling factor", "query mode", "number of clients",
		"number of threads", "number of transactions actually processed",
	} {
		if _, ok := p.seen[need]; !ok {
			return parse.Errorf(p.source, last, "the summary that starts on line %d has no %q line; the output is cut short", first, need)
		}
	}
	if sum.Transactions > 0 && sum.TPS == nil && sum.TPSIncludingConnections == nil {
		return parse.Errorf(p.source, last, "the summary that starts on line %d ends before its tps line; the output is cut short", first)
	}
	return nil
}
