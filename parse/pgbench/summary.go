package pgbench

import (
	"fmt"
	"math"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// The summary pgbench prints at the end of a run: "key: value" lines
// (or "key = value"), each read by the entry of summaryKeys for its key;
// the values' readers are shared with the per-script reports.

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
			p.second = true
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
		if _, ok := p.unread[key]; !ok {
			if p.unread == nil {
				p.unread = map[string]int{}
			}
			p.unread[key] = n
		}
		return msg, nil
	}
	p.seen[key] = n
	p.script = nil
	return "", nil
}

// summaryValue reads the value of the summary's line with key, creating
// the summary at line n; it returns why the value is not understood, or
// "" (summaryLine drops a summary that such a line would start).
func (p *parser) summaryValue(n int, key, value string) string {
	if read, ok := summaryKeys[key]; ok {
		return read(p.summary(n), key, value)
	}
	if ms, ok := latencyLimit(key); ok {
		return lateTransactions(p.summary(n), ms, value)
	}
	return fmt.Sprintf("unknown pgbench line %q", key)
}

// summaryKeys read the summary's lines, by key, into the summary; each
// returns why the value is not understood, or "".
var summaryKeys = map[string]func(sum *Summary, key, value string) string{
	"transaction type": func(sum *Summary, _, value string) string {
		if value == "" {
			return "empty transaction type"
		}
		sum.TransactionType = value
		return ""
	},
	"scaling factor": func(sum *Summary, key, value string) string { return setInt(&sum.ScalingFactor, key, value) },
	"partition method": func(sum *Summary, _, value string) string {
		sum.PartitionMethod = value
		return ""
	},
	"partitions": func(sum *Summary, key, value string) string { return setIntPtr(&sum.Partitions, key, value) },
	"query mode": func(sum *Summary, _, value string) string {
		if value == "" {
			return "empty query mode"
		}
		sum.QueryMode = value
		return ""
	},
	"number of clients":       func(sum *Summary, key, value string) string { return setInt(&sum.Clients, key, value) },
	"number of threads":       func(sum *Summary, key, value string) string { return setInt(&sum.Threads, key, value) },
	"maximum number of tries": func(sum *Summary, key, value string) string { return setIntPtr(&sum.MaxTries, key, value) },
	"duration": func(sum *Summary, key, value string) string {
		v, ok := strings.CutSuffix(value, " s")
		if !ok {
			return "duration: want seconds, as \"60 s\""
		}
		return setIntPtr(&sum.DurationS, key, v)
	},
	"number of transactions per client": func(sum *Summary, key, value string) string {
		return setInt64Ptr(&sum.TransactionsPerClient, key, value)
	},
	"number of transactions actually processed": processed,
	"number of failed transactions": func(sum *Summary, key, value string) string {
		return setCount(&sum.FailedTransactions, key, value)
	},
	"number of serialization failures": func(sum *Summary, key, value string) string {
		return setCount(&sum.SerializationFailures, key, value)
	},
	"number of deadlock failures": func(sum *Summary, key, value string) string {
		return setCount(&sum.DeadlockFailures, key, value)
	},
	"number of other failures": func(sum *Summary, key, value string) string {
		return setCount(&sum.OtherFailures, key, value)
	},
	"number of transactions retried": func(sum *Summary, key, value string) string {
		return setCount(&sum.RetriedTransactions, key, value)
	},
	"number of transactions skipped": func(sum *Summary, key, value string) string {
		return setCount(&sum.SkippedTransactions, key, value)
	},
	"total number of retries": func(sum *Summary, key, value string) string { return setInt64Ptr(&sum.Retries, key, value) },
	"latency average":         latencyAverage,
	"latency stddev": func(sum *Summary, key, value string) string {
		return setStddev(&sum.LatencyStddevMs, key, value)
	},
	"rate limit schedule lag": scheduleLag,
	"initial connection time": func(sum *Summary, key, value string) string {
		return setMs(&sum.InitialConnectionTimeMs, key, value)
	},
	"average connection time": func(sum *Summary, key, value string) string {
		return setMs(&sum.AvgConnectionTimeMs, key, value)
	},
	// The key is recorded with its wording, so that both of pgbench 13's
	// lines are read and neither twice.
	"tps": tps,
}

// processed reads "N" or, with -t, "N/planned".
func processed(sum *Summary, _, value string) string {
	done, planned, slash := strings.Cut(value, "/")
	d, ok := num.Count(done)
	if !ok {
		return "number of transactions actually processed: not a count"
	}
	if slash {
		pl, ok := num.Count(planned)
		if !ok {
			return "number of transactions actually processed: the planned total after \"/\" is not a count"
		}
		sum.TransactionsPlanned = &pl
	}
	sum.Transactions = d
	return ""
}

// latencyAverage reads "1.234 ms", and "1.234 ms (including failures)".
func latencyAverage(sum *Summary, _, value string) string {
	v, incl := strings.CutSuffix(value, " (including failures)")
	f, ok := parseMs(v)
	if !ok {
		return "latency average: want milliseconds, as \"1.234 ms\""
	}
	sum.LatencyAvgMs, sum.LatencyIncludesFailures = &f, incl
	return ""
}

// scheduleLag reads "avg 0.580 (max 13.984) ms".
func scheduleLag(sum *Summary, _, value string) string {
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
	sum.LagAvgMs, sum.LagMaxMs = &avg, &maxLag
	return ""
}

// tps reads "N (wording)", the wording saying whether the time spent
// connecting is in.
func tps(sum *Summary, _, value string) string {
	figure, wording, ok := strings.Cut(value, " ")
	f, ok2 := num.NonNegFloat(figure)
	if !ok || !ok2 {
		return "tps: want \"N (wording)\""
	}
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

// lateTransactions reads the value of the latency limit's line,
// "917/988 (92.814%)": the late transactions of those processed.
func lateTransactions(sum *Summary, ms float64, value string) string {
	cnt, rest, _ := strings.Cut(value, "/")
	tot, pct, _ := strings.Cut(rest, " ")
	c, ok1 := num.Count(cnt)
	_, ok2 := num.Count(tot)
	pc, ok3 := num.Percent(pct)
	if !ok1 || !ok2 || !ok3 {
		return "latency limit: want \"late/processed (P%)\""
	}
	sum.LatencyLimitMs, sum.LateTransactions = &ms, &Count{Count: c, Percent: pc}
	return ""
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

// setInt64Ptr reads a count into *dst.
func setInt64Ptr(dst **int64, key, value string) string {
	c, ok := num.Count(value)
	if !ok {
		return key + ": not a count"
	}
	*dst = &c
	return ""
}

// setCount reads a count and its percentage, "12 (0.345%)", into *dst.
func setCount(dst **Count, key, value string) string {
	c, ok := countOf(value)
	if !ok {
		return fmt.Sprintf("%s: want a count and its percentage, as \"12 (0.345%%)\"", key)
	}
	*dst = &c
	return ""
}

// setMs reads "1.234 ms" into *dst.
func setMs(dst **float64, key, value string) string {
	f, ok := parseMs(value)
	if !ok {
		return key + ": want milliseconds, as \"1.234 ms\""
	}
	*dst = &f
	return ""
}

// setStddev reads a standard deviation in milliseconds into *dst, and
// leaves it absent when pgbench printed a NaN.
func setStddev(dst **float64, key, value string) string {
	f, ok := parseMs(value)
	if !ok {
		if naN(strings.TrimSuffix(value, " ms")) {
			return ""
		}
		return key + ": want milliseconds, as \"1.234 ms\""
	}
	*dst = &f
	return ""
}
