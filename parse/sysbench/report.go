package sysbench

import (
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// sysbench's report sections. This file reads the final report: the
// indented lines under each section's title, and the histogram's rows.
const (
	sectionNone = iota
	sectionQueries
	sectionSQL
	sectionGeneral
	sectionLatency
	sectionFairness
	sectionHistogram
)

var sectionNames = [...]string{
	sectionQueries: "queries performed", sectionSQL: "SQL statistics", sectionGeneral: "General statistics",
	sectionLatency: "Latency (ms)", sectionFairness: "Threads fairness",
}

// need lists the lines each section must have, by key.
var need = map[int][]string{
	sectionQueries:  {"read", "write", "other", "total"},
	sectionSQL:      {"transactions", "queries", "ignored errors", "reconnects"},
	sectionGeneral:  {"total time", "total number of events"},
	sectionLatency:  {"min", "avg", "max", "percentile", "sum"},
	sectionFairness: {"events (avg/stddev)", "execution time (avg/stddev)"},
}

// sectionLine reads an indented line of the report, trimmed.
func (p *parser) sectionLine(n int, s string) (string, error) {
	if p.section == sectionHistogram {
		return p.bucket(s), nil
	}
	key, value, ok := strings.Cut(s, ":")
	value = strings.TrimSpace(value)
	if !ok {
		return "not a line of a sysbench report", nil
	}
	sec := p.section
	if sec == sectionSQL && key == "queries performed" && value == "" {
		p.section = sectionQueries
		return "", nil
	}
	if sec == sectionQueries && (key == "transactions" || key == "queries" || key == "ignored errors" || key == "reconnects") {
		sec, p.section = sectionSQL, sectionSQL
	}
	if sec == sectionLatency && strings.HasSuffix(key, "th percentile") {
		pct, ok := num.Count(strings.TrimSuffix(key, "th percentile"))
		f, ok2 := num.NonNegFloat(value)
		if !ok || !ok2 || pct > 100 {
			return "want \"Nth percentile: L\"", nil
		}
		key = "percentile"
		if msg := p.mark(n, sec, key); msg != "" {
			return msg, nil
		}
		i := int(pct)
		p.run.LatencyPercentile, p.run.LatencyPercentileMs = &i, &f
		return "", nil
	}
	if sec == sectionLatency && key == "percentile stats" && value == "disabled" {
		return p.mark(n, sec, "percentile"), nil
	}
	var msg string
	switch sec {
	case sectionQueries:
		msg = p.queries(key, value)
	case sectionSQL:
		msg = p.sql(key, value)
	case sectionGeneral:
		msg = p.generalLine(key, value)
	case sectionLatency:
		msg = p.latency(key, value)
	case sectionFairness:
		msg = p.fairness(key, value)
	default:
		return "an indented line outside the report's sections", nil
	}
	if msg != "" {
		if k := sectionNames[sec] + "/" + key; p.unread[k] == 0 {
			if p.unread == nil {
				p.unread = map[string]int{}
			}
			p.unread[k] = n // there, but not understood: not cut short
		}
		return msg, nil
	}
	if msg := p.mark(n, sec, key); msg != "" {
		return msg, nil
	}
	if sec == sectionQueries && key == "total" {
		p.totalLine = n
	}
	return "", nil
}

// mark records that section's key was read on line n.
func (p *parser) mark(n, section int, key string) string {
	k := sectionNames[section] + "/" + key
	if m, ok := p.seen[k]; ok {
		return fmt.Sprintf("repeats line %d", m)
	}
	p.seen[k] = n
	return ""
}

func (p *parser) queries(key, value string) string {
	c, ok := num.Count(value)
	if !ok {
		return key + ": not a count"
	}
	sql := p.run.SQL
	switch key {
	case "read":
		sql.Reads = c
	case "write":
		sql.Writes = c
	case "other":
		sql.Other = c
	case "total":
		sql.Total = c
	default:
		return fmt.Sprintf("unknown line %q under \"queries performed\"", key)
	}
	return ""
}

// parseRate reads "107163 (21399.23 per sec.)".
func parseRate(value string) (int64, float64, bool) {
	count, rest, ok := strings.Cut(value, " ")
	if !ok {
		return 0, 0, false
	}
	c, ok1 := num.Count(count)
	rest, ok2 := strings.CutPrefix(strings.TrimSpace(rest), "(")
	rest, ok3 := strings.CutSuffix(rest, " per sec.)")
	f, ok4 := num.NonNegFloat(rest)
	return c, f, ok1 && ok2 && ok3 && ok4
}

func (p *parser) sql(key, value string) string {
	c, f, ok := parseRate(value)
	if !ok {
		return key + ": want \"N (R per sec.)\""
	}
	sql := p.run.SQL
	switch key {
	case "transactions":
		sql.Transactions, sql.TransactionsPerS = c, f
	case "queries":
		sql.Queries, sql.QueriesPerS = c, f
	case "ignored errors":
		sql.IgnoredErrors, sql.IgnoredErrorsPerS = c, f
	case "reconnects":
		sql.Reconnects, sql.ReconnectsPerS = c, f
	default:
		return fmt.Sprintf("unknown line %q under \"SQL statistics\"", key)
	}
	return ""
}

func (p *parser) generalLine(key, value string) string {
	switch key {
	case "total time":
		v, ok := strings.CutSuffix(value, "s")
		f, ok2 := num.NonNegFloat(v)
		if !ok || !ok2 {
			return "total time: want seconds, as \"5.0070s\""
		}
		p.run.TotalTimeS = f
	case "total number of events":
		c, ok := num.Count(value)
		if !ok {
			return "total number of events: not a count"
		}
		p.run.Events = c
	default:
		return fmt.Sprintf("unknown line %q under \"General statistics\"", key)
	}
	return ""
}

func (p *parser) latency(key, value string) string {
	f, ok := num.NonNegFloat(value)
	if !ok {
		return key + ": not a latency in ms"
	}
	switch key {
	case "min":
		p.run.LatencyMinMs = f
	case "avg":
		p.run.LatencyAvgMs = f
	case "max":
		p.run.LatencyMaxMs = f
	case "sum":
		p.run.LatencySumMs = f
	default:
		return fmt.Sprintf("unknown line %q under \"Latency (ms)\"", key)
	}
	return ""
}

func (p *parser) fairness(key, value string) string {
	a, s, ok := strings.Cut(value, "/")
	avg, ok1 := num.NonNegFloat(a)
	sd, ok2 := num.NonNegFloat(s)
	if !ok || !ok1 || !ok2 {
		return key + ": want \"avg/stddev\""
	}
	switch key {
	case "events (avg/stddev)":
		p.run.FairnessEventsAvg, p.run.FairnessEventsStddev = avg, sd
	case "execution time (avg/stddev)":
		p.run.FairnessExecTimeAvgS, p.run.FairnessExecTimeStddevS = avg, sd
	default:
		return fmt.Sprintf("unknown line %q under \"Threads fairness\"", key)
	}
	return ""
}

// bucket reads a histogram row, "0.052 |***                 1234" (trimmed).
func (p *parser) bucket(s string) string {
	v, rest, ok := strings.Cut(s, " |")
	f, ok1 := num.NonNegFloat(strings.TrimSpace(v))
	rest = strings.TrimLeft(rest, "*")
	c, ok2 := num.Count(strings.TrimSpace(rest))
	if !ok || !ok1 || !ok2 {
		return "not a histogram row (\"value |*** count\")"
	}
	if k := len(p.run.Histogram); k > 0 && f <= p.run.Histogram[k-1].ValueMs {
		return "a histogram row not after the one before"
	}
	p.run.Histogram = append(p.run.Histogram, Bucket{ValueMs: f, Count: c})
	return ""
}
