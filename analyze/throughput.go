package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/parse/pgbench"
	"github.com/pgstudy/pgstudy/parse/procstat"
	"github.com/pgstudy/pgstudy/parse/sysbench"
)

// ThroughputRun is what a throughput run's client (pgbench, sysbench)
// reported, and the hardware it cost per query, from the diskstats and
// /proc/stat deltas over the measured run.
type ThroughputRun struct {
	Client       string
	DurationS    float64 // the client's own measure of the run
	Queries      int64   // sysbench: queries; pgbench: transactions × queries per transaction (pgbenchQueries)
	Transactions int64
	QPS          float64 // queries per second: sysbench's; pgbench's tps × queries per transaction
	TPS          float64
	// QueriesKnown is false for a pgbench script whose queries per
	// transaction are unknown (a custom script run without -r): its
	// Queries and QPS are then its transactions and tps, and its costs per
	// transaction; the runs table leaves its qps blank.
	QueriesKnown    bool
	LatencyAvgMs    *float64
	LatencyStddevMs *float64
	LatencyPctMs    *float64 // sysbench's --percentile (95th by default)
	LatencyPct      *int
	Failures        int64
	// Intervals are the client's own per-interval lines (pgbench's
	// --progress, sysbench's --report-interval): the queries per second
	// of each second of the run, for the guards that look inside a run.
	Intervals []Interval

	PerQuery
}

// Interval is one of a throughput client's progress lines.
type Interval struct {
	EndS float64 // seconds from the start of the run
	QPS  float64 // queries per second over the interval (pgbench: its tps times the queries of a transaction)
}

// pgbenchProgress reads pgbench's progress lines (its standard error),
// each interval's tps times perTx queries. A line it cannot read is a
// problem of the run, not a reason to drop the run's totals.
func (run *Run) pgbenchProgress(stderr, src string, perTx float64) []Interval {
	if strings.TrimSpace(stderr) == "" {
		return nil
	}
	p, warns, err := pgbench.Parse(strings.NewReader(stderr), src+" stderr")
	run.warnParse("pgbench progress", warns)
	if err != nil {
		run.warnf("pgbench progress: %v", err)
		return nil
	}
	if !(perTx > 0) || math.IsInf(perTx, 0) {
		perTx = 1
	}
	out := make([]Interval, 0, len(p.Progress))
	for _, pr := range p.Progress {
		out = append(out, Interval{EndS: pr.TimeS, QPS: pr.TPS * perTx})
	}
	return out
}

// builtinQueries are the SQL commands a transaction of each of pgbench's
// built-in scripts sends (BEGIN and END counted, as sysbench counts its
// transactions' BEGIN and COMMIT among its queries).
var builtinQueries = map[string]int{
	"<builtin: TPC-B (sort of)>": 7, // begin, 3 updates, select, insert, end
	"<builtin: simple update>":   5, // begin, update, select, insert, end
	"<builtin: select only>":     1,
}

// pgbenchQueries is the queries per transaction of a pgbench run: the SQL
// statements -r listed for its one script, or a built-in script's count;
// 0 when unknown (a custom script without -r, or several scripts).
func pgbenchQueries(s *pgbench.Summary) int {
	if len(s.Scripts) > 0 {
		return 0
	}
	if len(s.Statements) > 0 {
		n := 0
		for _, st := range s.Statements {
			if !strings.HasPrefix(strings.TrimSpace(st.Command), "\\") {
				n++
			}
		}
		return n
	}
	return builtinQueries[s.TransactionType]
}

// PerQuery is the hardware cost of a query over a measured run: the whole
// machine's, so the client's own work counts too (on the same host).
// CPU time is given twice: user + nice + system, the time processes
// spent, and the same with irq + softirq, the time the kernel spent on
// interrupts, which on a loopback connection is mostly the network stack
// carrying the queries (nearly half the busy time in a pgbench run).
type PerQuery struct {
	ReadsPerQuery        *float64
	BytesReadPerQuery    *float64
	BytesWrittenPerQuery *float64
	CPUUsPerQuery        *float64 // user + nice + system
	CPUIRQUsPerQuery     *float64 // user + nice + system + irq + softirq; nil when /proc/stat has no irq fields
	CtxSwPerQuery        *float64
}

// readThroughput reads a throughput run's client output.
func (run *Run) readThroughput(out map[string]string) {
	src := fmt.Sprintf("run %d", run.RunID)
	tr := &ThroughputRun{Client: run.Client}
	switch run.Client {
	case "pgbench":
		// pgbench prints its summary on stdout, its progress on stderr.
		p, warns, err := pgbench.Parse(strings.NewReader(out["stdout"]), src+" stdout")
		run.warnParse("pgbench output", warns)
		if err != nil {
			run.warnf("pgbench output: %v", err)
			return
		}
		if p.Summary == nil {
			run.warnf("pgbench output: no summary (the run did not finish?)")
			return
		}
		s := p.Summary
		if s.TPS == nil {
			run.warnf("pgbench output: no tps line")
			return
		}
		tr.Transactions, tr.Queries, tr.TPS, tr.QPS = s.Transactions, s.Transactions, *s.TPS, *s.TPS
		if q := pgbenchQueries(s); q > 0 {
			tr.Queries, tr.QPS, tr.QueriesKnown = s.Transactions*int64(q), *s.TPS*float64(q), true
		}
		if s.DurationS != nil {
			tr.DurationS = float64(*s.DurationS)
		}
		tr.LatencyAvgMs, tr.LatencyStddevMs = s.LatencyAvgMs, s.LatencyStddevMs
		if s.FailedTransactions != nil {
			tr.Failures = s.FailedTransactions.Count
		}
		tr.Intervals = run.pgbenchProgress(out["stderr"], src, tr.QPS/tr.TPS)
	case "sysbench":
		p, warns, err := sysbench.Parse(strings.NewReader(out["stdout"]), src)
		run.warnParse("sysbench output", warns)
		if err != nil {
			run.warnf("sysbench output: %v", err)
			return
		}
		if p.SQL == nil {
			run.warnf("sysbench output: no SQL statistics")
			return
		}
		tr.Transactions, tr.Queries, tr.TPS, tr.QPS = p.SQL.Transactions, p.SQL.Queries, p.SQL.TransactionsPerS, p.SQL.QueriesPerS
		tr.QueriesKnown = true
		tr.DurationS = p.TotalTimeS
		avg := p.LatencyAvgMs
		tr.LatencyAvgMs, tr.LatencyPctMs, tr.LatencyPct = &avg, p.LatencyPercentileMs, p.LatencyPercentile
		tr.Failures = p.SQL.IgnoredErrors
		for _, iv := range p.Intervals {
			if iv.QPS.Valid {
				tr.Intervals = append(tr.Intervals, Interval{EndS: iv.TimeS, QPS: iv.QPS.V})
			}
		}
	default:
		return
	}
	run.Throughput = tr
}

// procStat is what the analysis needs of /proc/stat: the machine's CPU
// time in USER_HZ ticks (user, nice and system; irq and softirq apart),
// and its context switches. hasIRQ is false for a kernel that printed no
// irq and softirq fields (before 2.6.0): their time is unknown, not 0.
type procStat struct {
	cpuTicks, irqTicks, ctxt float64
	hasIRQ                   bool
}

// readProcStat reads a /proc/stat probe's output; ok is false when it
// lacks the CPU times or the context switches.
func (run *Run) readProcStat(text, phase string) (ps procStat, ok bool) {
	st, warns, err := procstat.Parse(strings.NewReader(text), fmt.Sprintf("run %d /proc/stat %s", run.RunID, phase))
	run.warnParse("/proc/stat", warns)
	switch {
	case err != nil:
		run.warnf("/proc/stat %s: %v: the run's CPU time and context switches per query are unknown", phase, err)
		return procStat{}, false
	case st.ContextSwitches == nil:
		run.warnf("/proc/stat %s has no ctxt line: the run's CPU time and context switches per query are unknown", phase)
		return procStat{}, false
	}
	c := st.CPU
	return procStat{cpuTicks: float64(c.User + c.Nice + c.System), irqTicks: float64(c.IRQ + c.SoftIRQ),
		ctxt: float64(*st.ContextSwitches), hasIRQ: c.Fields >= 7}, true
}

// userHZ is the unit of /proc/stat's CPU times: 100 on every Linux
// architecture pgstudy runs on (sysconf(_SC_CLK_TCK)).
const userHZ = 100

// costs divides the run's hardware use by its queries.
func (run *Run) costs(before, after procStat, haveStat bool) {
	tr := run.Throughput
	if tr == nil || tr.Queries <= 0 {
		return
	}
	q := float64(tr.Queries)
	per := func(v float64) *float64 { v /= q; return &v }
	if run.Disk != nil {
		tr.ReadsPerQuery = per(run.Disk.Reads)
		tr.BytesReadPerQuery = per(run.Disk.ReadBytes)
		tr.BytesWrittenPerQuery = per(run.Disk.WriteBytes)
	}
	if haveStat && after.cpuTicks >= before.cpuTicks && after.ctxt >= before.ctxt {
		tr.CPUUsPerQuery = per((after.cpuTicks - before.cpuTicks) * 1e6 / userHZ)
		tr.CtxSwPerQuery = per(after.ctxt - before.ctxt)
		if before.hasIRQ && after.hasIRQ && after.irqTicks >= before.irqTicks {
			tr.CPUIRQUsPerQuery = per((after.cpuTicks - before.cpuTicks + after.irqTicks - before.irqTicks) * 1e6 / userHZ)
		}
	}
}

// ThroughputGroup is a throughput test on a configuration over its rounds,
// against the baseline.
type ThroughputGroup struct {
	Host    string
	Test    string
	Config  string
	N       int
	QPS     stats.Summary
	Compare *TimingCompare // QPS against the baseline's
	// Medians over rounds.
	LatencyAvgMs float64
	Failures     int64
	PerQuery
}

func (a *Analysis) throughputs(opt Options) {
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && r.Throughput != nil })
	index := map[key]int{}
	for _, k := range keys {
		runs := groups[k]
		g := ThroughputGroup{Host: k.Host, Test: k.Test, Config: k.Config, N: len(runs)}
		qps := make([]float64, len(runs))
		var lat []float64
		for i, r := range runs {
			qps[i] = r.Throughput.QPS
			g.Failures += r.Throughput.Failures
			if r.Throughput.LatencyAvgMs != nil {
				lat = append(lat, *r.Throughput.LatencyAvgMs)
			}
		}
		g.QPS = stats.Summarize(qps, opt.Confidence)
		g.LatencyAvgMs = stats.Median(lat)
		med := func(f func(*ThroughputRun) *float64) *float64 {
			var xs []float64
			for _, r := range runs {
				if p := f(r.Throughput); p != nil {
					xs = append(xs, *p)
				}
			}
			if len(xs) == 0 {
				return nil
			}
			m := stats.Median(xs)
			return &m
		}
		g.ReadsPerQuery = med(func(t *ThroughputRun) *float64 { return t.ReadsPerQuery })
		g.BytesReadPerQuery = med(func(t *ThroughputRun) *float64 { return t.BytesReadPerQuery })
		g.BytesWrittenPerQuery = med(func(t *ThroughputRun) *float64 { return t.BytesWrittenPerQuery })
		g.CPUUsPerQuery = med(func(t *ThroughputRun) *float64 { return t.CPUUsPerQuery })
		g.CPUIRQUsPerQuery = med(func(t *ThroughputRun) *float64 { return t.CPUIRQUsPerQuery })
		g.CtxSwPerQuery = med(func(t *ThroughputRun) *float64 { return t.CtxSwPerQuery })
		index[k] = len(a.Throughputs)
		a.Throughputs = append(a.Throughputs, g)
	}
	// Each configuration against the baseline; Holm over the tests of a
	// configuration, as for timed tests (seed 003's suite has 32).
	for _, h := range a.Hosts {
		for _, c := range a.Configs {
			if c == a.Baseline {
				continue
			}
			var family []*TimingCompare
			for _, test := range a.Tests {
				base, ok := groups[key{h, test, a.Baseline}]
				i, ok2 := index[key{h, test, c}]
				if !ok || !ok2 {
					continue
				}
				g := &a.Throughputs[i]
				g.Compare = compare(qpsOf(base), qpsOf(groups[key{h, test, c}]), opt)
				if g.Compare.Testable {
					family = append(family, g.Compare)
				}
			}
			holm(family, opt.Alpha)
		}
	}
}

func qpsOf(runs []*Run) []float64 {
	xs := make([]float64, len(runs))
	for i, r := range runs {
		xs[i] = r.Throughput.QPS
	}
	return xs
}

// RelativeQPSTable is seed 003's table: tests as rows, configurations as
// columns, QPS relative to the baseline's to two decimals, marked with
// each comparison's verdict.
func (a *Analysis) RelativeQPSTable() table.Table {
	return a.relative("relative_qps", "Relative QPS",
		fmt.Sprintf("Median QPS relative to %s (above 1.00 is faster); %s.", a.Baseline, a.marksNote()),
		func(h, test, c string) (bool, *TimingCompare) {
			g := a.throughput(h, test, c)
			if g == nil {
				return false, nil
			}
			return true, g.Compare
		}, nil)
}

func (a *Analysis) throughput(host, test, config string) *ThroughputGroup {
	for i := range a.Throughputs {
		g := &a.Throughputs[i]
		if g.Host == host && g.Test == test && g.Config == config {
			return g
		}
	}
	return nil
}

// throughputTable is each throughput test's QPS over rounds and its
// hardware cost per query.
func (a *Analysis) throughputTable() table.Table {
	t := table.Table{Name: "throughput", Title: "Throughput and cost per query",
		Note: fmt.Sprintf("QPS over rounds (median, min, max); ratio is the median QPS against %s's (above 1.00 is faster). "+
			"Latency and costs per query are medians over rounds, the costs from the machine's diskstats and /proc/stat over each measured run "+
			"(the client's own work included when it runs on the host). CPU per query is given twice: user+nice+system, "+
			"and user+nice+system+irq+softirq, which adds the kernel's interrupt work (on a loopback connection, mostly carrying the queries). "+
			"pgbench's queries are its transactions times the SQL commands of one (BEGIN and END counted, as sysbench counts them). %s", a.Baseline, a.verdictNote()) + a.perTransactionNote()}
	perQ := func(key, title, unit string, f func(g *ThroughputGroup) *float64) table.Field[ThroughputGroup] {
		return table.On(table.Num(key, title, unit), func(g ThroughputGroup) any { return opt(f(&g)) })
	}
	fields := []table.Field[ThroughputGroup]{
		table.On(table.Text("test", "test"), func(g ThroughputGroup) any { return g.Test }),
		table.On(table.Text("config", "config"), func(g ThroughputGroup) any { return g.Config }),
		table.On(table.Int("n", "n", ""), func(g ThroughputGroup) any { return int64(g.N) }),
		table.On(table.Num("qps", "qps", ""), func(g ThroughputGroup) any { return g.QPS.Median }),
		table.On(table.Num("qps_min", "min", ""), func(g ThroughputGroup) any { return g.QPS.Min }),
		table.On(table.Num("qps_max", "max", ""), func(g ThroughputGroup) any { return g.QPS.Max }),
		baselineField(a.Baseline, func(g ThroughputGroup) string { return g.Config }),
		table.On(table.Fixed("ratio", "ratio", "", 3), func(g ThroughputGroup) any {
			switch {
			case g.Config == a.Baseline:
				return 1.0
			case g.Compare != nil:
				return g.Compare.Ratio
			}
			return nil
		}),
	}
	fields = append(fields, compareFields(func(g ThroughputGroup) *TimingCompare {
		if g.Config == a.Baseline {
			return nil
		}
		return g.Compare
	})...)
	fields = append(fields,
		table.On(table.Num("latency_ms", "latency", "ms"), func(g ThroughputGroup) any { return g.LatencyAvgMs }),
		table.On(table.Int("failures", "failures", ""), func(g ThroughputGroup) any { return g.Failures }),
		perQ("reads_per_q", "reads/q", "", func(g *ThroughputGroup) *float64 { return g.ReadsPerQuery }),
		table.On(table.Bytes("read_bytes_per_q", "read/q", "KiB"), func(g ThroughputGroup) any { return optBytes(g.BytesReadPerQuery) }),
		table.On(table.Bytes("written_bytes_per_q", "written/q", "KiB"), func(g ThroughputGroup) any { return optBytes(g.BytesWrittenPerQuery) }),
		perQ(cpuKey, cpuTitle, "µs", func(g *ThroughputGroup) *float64 { return g.CPUUsPerQuery }),
		perQ(cpuIRQKey, cpuIRQTitle, "µs", func(g *ThroughputGroup) *float64 { return g.CPUIRQUsPerQuery }),
		perQ("cs_per_q", "cs/q", "", func(g *ThroughputGroup) *float64 { return g.CtxSwPerQuery }),
	)
	return build(a, t, func(g ThroughputGroup) string { return g.Host }, fields, a.Throughputs)
}

// The two CPU figures' columns, named by what they count: in the
// throughput table (medians over rounds) and the runs table (each run's).
const (
	cpuKey      = "cpu_user_sys_us_per_q"
	cpuTitle    = "cpu/q (user+nice+system)"
	cpuIRQKey   = "cpu_with_irq_us_per_q"
	cpuIRQTitle = "cpu/q (user+nice+system+irq+softirq)"
)

// throughputRunsNote is what the runs table's note says of a throughput
// run's columns.
const throughputRunsNote = " For a throughput run: qps, tps and latency as its client printed them (pgbench: tps without the initial connection time, " +
	"qps its tps times the SQL commands of a transaction (BEGIN and END counted, as sysbench counts them: 7 for tpcb-like, 5 for simple-update, 1 for select-only, " +
	"or those -r listed), blank for a custom script run without -r; " +
	"its latency average and stddev; sysbench: queries and transactions per second, its latency average and at the percentile it printed), " +
	"and the machine's CPU time per query from /proc/stat over the measured run, without and with irq+softirq."

// throughputRunFields are the runs table's columns of a throughput run:
// what its client reported (QPS, tps, latency, the percentile sysbench
// printed) and its CPU per query both ways, blank for other runs (every
// column always, so that the export's columns do not depend on the
// capture). note says what they are when the analysis has a throughput
// run.
func (a *Analysis) throughputRunFields() (fields []table.Field[*Run], note string) {
	num := func(f func(*ThroughputRun) *float64) func(*Run) any {
		return func(r *Run) any {
			if r.Throughput == nil {
				return nil
			}
			return opt(f(r.Throughput))
		}
	}
	val := func(f func(*ThroughputRun) float64) func(*Run) any {
		return num(func(t *ThroughputRun) *float64 { v := f(t); return &v })
	}
	client := table.On(table.Text("client", "client"), func(r *Run) any { return table.Maybe(r.Client) })
	if slices.ContainsFunc(a.Runs, func(r *Run) bool { return r.Kind == "throughput" }) {
		note = throughputRunsNote
	}
	return []table.Field[*Run]{client,
		table.On(table.Num("qps", "qps", ""), num(func(t *ThroughputRun) *float64 {
			if !t.QueriesKnown {
				return nil // a custom pgbench script's queries per transaction are unknown
			}
			return &t.QPS
		})),
		table.On(table.Num("tps", "tps", ""), val(func(t *ThroughputRun) float64 { return t.TPS })),
		table.On(table.Num("latency_avg_ms", "latency avg", "ms"), num(func(t *ThroughputRun) *float64 { return t.LatencyAvgMs })),
		table.On(table.Num("latency_stddev_ms", "latency stddev", "ms"), num(func(t *ThroughputRun) *float64 { return t.LatencyStddevMs })),
		table.On(table.Int("latency_percentile", "percentile", ""), func(r *Run) any {
			if r.Throughput == nil || r.Throughput.LatencyPct == nil {
				return nil
			}
			return int64(*r.Throughput.LatencyPct)
		}),
		table.On(table.Num("latency_percentile_ms", "latency at percentile", "ms"), num(func(t *ThroughputRun) *float64 { return t.LatencyPctMs })),
		table.On(table.Int("failures", "failures", ""), func(r *Run) any {
			if r.Throughput == nil {
				return nil
			}
			return r.Throughput.Failures
		}),
		table.On(table.Num(cpuKey, cpuTitle, "µs"), num(func(t *ThroughputRun) *float64 { return t.CPUUsPerQuery })),
		table.On(table.Num(cpuIRQKey, cpuIRQTitle, "µs"), num(func(t *ThroughputRun) *float64 { return t.CPUIRQUsPerQuery })),
	}, note
}

// perTransactionNote names the pgbench tests whose queries per transaction
// are unknown: their qps is tps and their costs are per transaction.
func (a *Analysis) perTransactionNote() string {
	var tests []string
	for _, r := range a.Runs {
		if r.Throughput != nil && !r.Throughput.QueriesKnown && !slices.Contains(tests, r.Test) {
			tests = append(tests, r.Test)
		}
	}
	if len(tests) == 0 {
		return ""
	}
	return " For " + strings.Join(tests, ", ") + " (pgbench with a custom script run without -r, so its queries per transaction are unknown), " +
		"qps is transactions per second and the costs are per transaction."
}
