package pgbench

import (
	"fmt"
	"math"
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// The per-script reports of a run that mixes scripts ("SQL script 1:"
// then " - " lines), and -r's statement latencies.

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
	if strings.HasPrefix(s, "statement latencies in milliseconds") {
		return p.statementHeader(s)
	}
	if v, ok := strings.CutPrefix(s, "weight: "); ok {
		return scriptWeight(p.script, v)
	}
	if figure, rest, ok := strings.Cut(s, " transactions ("); ok {
		return scriptTransactions(p.script, figure, rest)
	}
	key, value, ok := splitKey(s)
	if !ok {
		return "not a per-script line"
	}
	if read, ok := scriptKeys[key]; ok {
		return read(p.script, key, value)
	}
	return fmt.Sprintf("unknown per-script line %q", key)
}

// scriptKeys read a script's "key: value" lines, by key; each returns why
// the value is not understood, or "".
var scriptKeys = map[string]func(sc *Script, key, value string) string{
	"number of failed transactions": func(sc *Script, key, value string) string {
		return setCount(&sc.FailedTransactions, key, value)
	},
	"number of serialization failures": func(sc *Script, key, value string) string {
		return setCount(&sc.SerializationFailures, key, value)
	},
	"number of deadlock failures": func(sc *Script, key, value string) string {
		return setCount(&sc.DeadlockFailures, key, value)
	},
	"number of other failures": func(sc *Script, key, value string) string {
		return setCount(&sc.OtherFailures, key, value)
	},
	"number of transactions retried": func(sc *Script, key, value string) string {
		return setCount(&sc.RetriedTransactions, key, value)
	},
	"number of transactions skipped": func(sc *Script, key, value string) string {
		return setCount(&sc.SkippedTransactions, key, value)
	},
	"number of transactions actually processed": scriptProcessed,
	"total number of retries":                   func(sc *Script, key, value string) string { return setInt64Ptr(&sc.Retries, key, value) },
	"latency average":                           func(sc *Script, key, value string) string { return setMs(&sc.LatencyAvgMs, key, value) },
	"latency stddev": func(sc *Script, key, value string) string {
		return setStddev(&sc.LatencyStddevMs, key, value)
	},
}

// scriptWeight reads "2 (targets 66.7% of total)".
func scriptWeight(sc *Script, v string) string {
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

// scriptTransactions reads "3503 transactions (67.4% of total, tps =
// 713.187183)" or "3503 transactions (67.4% of total)", cut at
// " transactions (" into figure and rest.
func scriptTransactions(sc *Script, figure, rest string) string {
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

// scriptProcessed reads "N (tps = T)", the later versions' count and tps
// of a script.
func scriptProcessed(sc *Script, _, value string) string {
	figure, tps, _ := strings.Cut(value, " (tps = ")
	c, ok1 := num.Count(figure)
	tps, ok2 := strings.CutSuffix(tps, ")")
	t, ok3 := num.NonNegFloat(tps)
	if !ok1 || !ok2 || !ok3 {
		return "want \"number of transactions actually processed: N (tps = T)\""
	}
	sc.Processed, sc.TPS = &c, &t
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
