package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/samples/study"
)

// Tables returns the result tables, in the order a reader wants them:
// findings first, then timings, the relative table, disk, pg_stat_io,
// pg_aios (when sampled), WAL, vacuum, plans, EXPLAIN ANALYZE (when a run
// has it) and settings.
func (a *Analysis) Tables() []table.Table {
	ts := []table.Table{a.findingsTable()}
	if len(a.Timings) > 0 || len(a.Throughputs) == 0 {
		ts = append(ts, a.timingsTable(), a.RelativeTable())
	}
	if len(a.Throughputs) > 0 {
		ts = append(ts, a.throughputTable(), a.RelativeQPSTable())
	}
	if len(a.Noise) > 0 {
		ts = append(ts, a.noiseTable())
	}
	ts = append(ts, a.diskTable())
	if len(a.Ceilings) > 0 {
		ts = append(ts, a.ceilingsTable())
	}
	ts = append(ts, a.readAmpTable(), a.ioTable())
	if a.sampledAIO() {
		ts = append(ts, a.aiosTable())
	}
	ts = append(ts, a.walTable(), a.vacuumTable(), a.plansTable())
	if a.analyzedAny() {
		ts = append(ts, a.explainAnalyzeTable())
	}
	return append(ts, a.settingsTable())
}

// EveryTable is every table an analysis can have, without rows: what the
// export's schema is made from. Tables gives those a capture has.
func EveryTable() []table.Table {
	a := &Analysis{}
	ts := []table.Table{a.findingsTable(), a.timingsTable(), a.RelativeTable(), a.throughputTable(), a.RelativeQPSTable(),
		a.noiseTable(), a.diskTable(), a.ceilingsTable(), a.readAmpTable(), a.ioTable(), a.aiosTable(), a.walTable(),
		a.vacuumTable(), a.plansTable(), a.explainAnalyzeTable(), a.settingsTable()}
	return append(ts, a.DetailTables()...)
}

// DetailTables are the tables of every run and of every sampled interval
// within a run: as long as the capture, so asked for on their own.
func (a *Analysis) DetailTables() []table.Table {
	return []table.Table{a.runsTable(), a.seriesTable()}
}

// build evaluates a table's fields over its rows, with a host column
// first: always, so that a machine reader sees the same columns whatever
// the captures (a person's view leaves it out for a single host).
func build[R any](a *Analysis, t table.Table, host func(R) string, fields []table.Field[R], rows []R) table.Table {
	fields = append([]table.Field[R]{table.On(table.Text("host", "host"), func(r R) any { return table.Maybe(host(r)) })}, fields...)
	t.Columns, t.Rows = table.Of(fields, rows)
	if len(a.Hosts) <= 1 {
		t.Hidden = []string{"host"}
	}
	return t
}

// pivotKeys are a pivot's row key: the host, when there are several, then
// the keys given.
func (a *Analysis) pivotKeys(keys ...string) []string {
	if len(a.Hosts) > 1 {
		return append([]string{"host"}, keys...)
	}
	return keys
}

// opt is a pointer's value, or nil (unknown).
func opt[T int64 | float64](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// optBytes is a byte count as a float64, or nil.
func optBytes[T int64 | float64](p *T) any {
	if p == nil {
		return nil
	}
	return float64(*p)
}

func (a *Analysis) findingsTable() table.Table {
	t := table.Table{Name: "findings", Title: "Findings", Note: "What the guards found; an error means the capture cannot support the comparison it was made for."}
	return build(a, t, func(f Finding) string { return f.Host }, findingFields, a.Findings)
}

// findingFields are a finding's columns, after its host.
var findingFields = []table.Field[Finding]{
	table.On(table.Text("severity", "severity"), func(f Finding) any { return string(f.Severity) }),
	table.On(table.Text("guard", "guard"), func(f Finding) any { return f.Guard }),
	table.On(table.Text("test", "test"), func(f Finding) any { return table.Maybe(f.Test) }),
	table.On(table.Text("config", "config"), func(f Finding) any { return table.Maybe(f.Config) }),
	table.On(table.Column{Key: "runs", Title: "runs", Kind: table.Ranges}, func(f Finding) any {
		if len(f.Runs) == 0 {
			return nil
		}
		return f.Runs
	}),
	table.On(table.Text("message", "finding"), func(f Finding) any { return f.Message }),
}

// baselineField says which rows are the baseline's, whose ratio is 1 by
// definition and who have no comparison.
func baselineField[R any](baseline string, config func(R) string) table.Field[R] {
	return table.On(table.Bool("baseline", "baseline", "yes", ""), func(r R) any { return config(r) == baseline })
}

func (a *Analysis) timingsTable() table.Table {
	conf := 100 * a.Confidence
	t := table.Table{Name: "timings", Title: "Timings",
		Note: fmt.Sprintf("Median over rounds with its %.0f%% interval (order statistics); ratio = median / median of %s (below 1.00 is faster), with its %.0f%% interval and the Mann-Whitney p-value, Holm-corrected over tests; ~ = not significant at %.2f, blank where no test could be. %s",
			conf, a.Baseline, conf, a.Alpha, a.verdictNote())}
	ci := func(f func(tm Timing) float64) func(Timing) any {
		return func(tm Timing) any {
			if !tm.Summary.CIValid {
				return nil
			}
			return f(tm)
		}
	}
	cmp := func(valid func(c *TimingCompare) bool, f func(c *TimingCompare) any) func(Timing) any {
		return func(tm Timing) any {
			if tm.Config == a.Baseline || tm.Compare == nil || !valid(tm.Compare) {
				return nil
			}
			return f(tm.Compare)
		}
	}
	always := func(*TimingCompare) bool { return true }
	ciOK := func(c *TimingCompare) bool { return c.CIValid }
	fields := []table.Field[Timing]{
		table.On(table.Text("test", "test"), func(tm Timing) any { return tm.Test }),
		table.On(table.Text("config", "config"), func(tm Timing) any { return tm.Config }),
		table.On(table.Int("n", "n", ""), func(tm Timing) any { return int64(tm.Summary.N) }),
		table.On(table.Num("median_ms", "median", "ms"), func(tm Timing) any { return tm.Summary.Median }),
		table.On(table.Num("ci_low_ms", "ci low", "ms"), ci(func(tm Timing) float64 { return tm.Summary.Lo })),
		table.On(table.Num("ci_high_ms", "ci high", "ms"), ci(func(tm Timing) float64 { return tm.Summary.Hi })),
		table.On(table.Num("min_ms", "min", "ms"), func(tm Timing) any { return tm.Summary.Min }),
		table.On(table.Num("max_ms", "max", "ms"), func(tm Timing) any { return tm.Summary.Max }),
		table.On(table.Num("iqr_ms", "iqr", "ms"), func(tm Timing) any { return tm.Summary.IQR }),
		baselineField(a.Baseline, func(tm Timing) string { return tm.Config }),
		table.On(table.Fixed("ratio", "ratio", "", 3), func(tm Timing) any {
			if tm.Config == a.Baseline {
				return 1.0
			}
			return cmp(always, func(c *TimingCompare) any { return c.Ratio })(tm)
		}),
		table.On(table.Fixed("ratio_ci_low", "ratio ci low", "", 3), cmp(ciOK, func(c *TimingCompare) any { return c.Lo })),
		table.On(table.Fixed("ratio_ci_high", "ratio ci high", "", 3), cmp(ciOK, func(c *TimingCompare) any { return c.Hi })),
	}
	fields = append(fields, compareFields(func(tm Timing) *TimingCompare {
		if tm.Config == a.Baseline {
			return nil
		}
		return tm.Compare
	})...)
	fields = append(fields,
		table.On(table.Column{Key: "round_times_ms", AtKey: "rounds", Title: "rounds", Unit: "ms", Kind: table.Points, Digits: 4}, func(tm Timing) any {
			ps := make([]table.Point, len(tm.Rounds))
			for i, r := range tm.Rounds {
				ps[i] = table.Point{At: int64(r.Round), Value: r.TimeMs}
			}
			return ps
		}),
		table.On(table.Text("notes", "notes"), func(tm Timing) any { return table.Maybe(strings.Join(tm.Notes, "; ")) }),
	)
	return build(a, t, func(tm Timing) string { return tm.Host }, fields, a.Timings)
}

// compareFields are the columns of a comparison with the baseline, for
// the timings and the throughput tables alike: its p-values, whether it
// is significant (blank where no test could be), its verdict with the
// reason, and the runs a side that would find the smallest difference
// that matters.
func compareFields[R any](get func(R) *TimingCompare) []table.Field[R] {
	on := func(valid func(c *TimingCompare) bool, f func(c *TimingCompare) any) func(R) any {
		return func(r R) any {
			c := get(r)
			if c == nil || !valid(c) {
				return nil
			}
			return f(c)
		}
	}
	pOK := func(c *TimingCompare) bool { return c.PValid }
	testable := func(c *TimingCompare) bool { return c.Testable }
	always := func(*TimingCompare) bool { return true }
	return []table.Field[R]{
		table.On(table.P("p", "p"), on(pOK, func(c *TimingCompare) any { return c.P })),
		table.On(table.P("p_holm", "p holm"), on(testable, func(c *TimingCompare) any { return c.PAdjusted })),
		table.On(table.Bool("significant", "significant", "yes", "~"), on(testable, func(c *TimingCompare) any { return c.Significant })),
		table.On(table.Text("verdict", "verdict"), on(always, func(c *TimingCompare) any { return c.Verdict.Word })),
		table.On(table.Int("rounds_needed", "rounds needed", ""), on(func(c *TimingCompare) bool {
			return c.Verdict.RoundsNeeded > 0 && c.Verdict.RoundsNeeded < stats.MaxRounds
		},
			func(c *TimingCompare) any { return int64(c.Verdict.RoundsNeeded) })),
		table.On(table.Text("verdict_why", "why"), on(always, func(c *TimingCompare) any { return c.Verdict.Why })),
	}
}

// ratioRow is one configuration's ratio to the baseline for a test (or,
// with Test "geomean", across the tests), as the relative tables hold it.
type ratioRow struct {
	Host, Test, Config string
	AcrossTests        bool // the geomean row, not a test's
	Ratio              float64
	Compare            *TimingCompare // nil for the baseline and the geomean
}

// RelativeTable is the table a post shows: for each test, each
// configuration's median time relative to the baseline's (below 1 is
// faster), marked with its verdict, and the geometric mean across tests.
// It is long (one row per test and configuration) and pivots into tests
// as rows and configurations as columns.
func (a *Analysis) RelativeTable() table.Table {
	return a.relative("relative", "Relative times",
		fmt.Sprintf("Median time relative to %s (below 1.00 is faster); %s; geomean is across the tests.", a.Baseline, a.marksNote()),
		func(h, test, c string) (bool, *TimingCompare) {
			tm := a.timing(h, test, c)
			if tm == nil {
				return false, nil
			}
			return true, tm.Compare
		},
		func(h string) []ratioRow {
			if len(a.Geomeans) == 0 {
				return nil
			}
			var rows []ratioRow
			for _, c := range a.Configs {
				if c == a.Baseline {
					rows = append(rows, ratioRow{Host: h, Test: "geomean", AcrossTests: true, Config: c, Ratio: 1})
					continue
				}
				for _, g := range a.Geomeans {
					if g.Host == h && g.Config == c {
						rows = append(rows, ratioRow{Host: h, Test: "geomean", AcrossTests: true, Config: c, Ratio: g.Ratio})
					}
				}
			}
			return rows
		})
}

// The groups of rows that have none in a study whose tests have groups:
// the geomean across the tests, and tests without a group.
var acrossGroups, otherTests = study.ReservedGroups[0], study.ReservedGroups[1]

// groupOf is the heading a test is shown under on a host (its capture's
// study's group:), or "" (an import's tests, or a study without groups):
// two captures may give one test name different groups.
func (a *Analysis) groupOf(host, test string) string {
	if s := a.study[host]; s != nil {
		if t := s.Test(test); t != nil {
			return t.Group
		}
	}
	return ""
}

// testsByGroup are the tests in the study's order, those of a group
// together where the group first appears, so that a group is one heading.
func (a *Analysis) testsByGroup(h string) []string {
	first := map[string]int{}
	for i, t := range a.Tests {
		if g := a.groupOf(h, t); g != "" {
			if _, ok := first[g]; !ok {
				first[g] = i
			}
		}
	}
	out := slices.Clone(a.Tests)
	slices.SortStableFunc(out, func(x, y string) int {
		return cmp.Compare(a.groupRank(h, x, first), a.groupRank(h, y, first))
	})
	return out
}

// groupRank is where a test's group first appears, or its own place.
func (a *Analysis) groupRank(h, test string, first map[string]int) int {
	if g := a.groupOf(h, test); g != "" {
		return first[g]
	}
	return slices.Index(a.Tests, test)
}

// grouped says whether any test has a group on any host.
func (a *Analysis) grouped() bool {
	return slices.ContainsFunc(a.Hosts, func(h string) bool {
		return slices.ContainsFunc(a.Tests, func(t string) bool { return a.groupOf(h, t) != "" })
	})
}

// verdictNote says what the verdict and rounds-needed columns mean.
func (a *Analysis) verdictNote() string {
	return fmt.Sprintf("Verdict: faster or slower (significant), equivalent (within ±%s by two one-sided tests at %.2f), inconclusive (neither), untested (too few runs for any test to reach %.2f), "+
		"noise (significant, but no larger than two copies of one setup differ), control (a copy of the baseline); rounds needed: runs a side that would find a %s difference with %.0f%% power, from the runs' spread (blank above %d).",
		pctAbs(a.Tolerance), a.Alpha, a.Alpha, pctAbs(a.Tolerance), 100*targetPower, stats.MaxRounds)
}

// marksNote says what the marks beside a ratio mean.
func (a *Analysis) marksNote() string {
	return fmt.Sprintf("no mark: a significant difference (Mann-Whitney, Holm-corrected, at %.2f); ~ inconclusive; = equivalent within ±%s (two one-sided tests); "+
		"? untested (too few rounds for any test to reach %.2f); (noise) no larger than two copies of one setup differ; (A/A) a copy of the baseline", a.Alpha, pctAbs(a.Tolerance), a.Alpha)
}

// relative builds a long table of ratios to the baseline, one row per
// (host, test, configuration) with a result, pivoted for people into tests
// as rows and configurations as columns. get says whether a (host, test,
// configuration) has a result and, off the baseline, its comparison; a
// result without a ratio (too few runs) has no row. last, when it gives
// rows, ends each host's.
func (a *Analysis) relative(name, title, note string, get func(host, test, config string) (bool, *TimingCompare),
	last func(host string) []ratioRow) table.Table {
	var rows []ratioRow
	for _, h := range a.Hosts {
		for _, test := range a.testsByGroup(h) {
			for _, c := range a.Configs {
				found, cmp := get(h, test, c)
				switch {
				case !found:
				case c == a.Baseline:
					rows = append(rows, ratioRow{Host: h, Test: test, Config: c, Ratio: 1})
				case cmp != nil && cmp.Ratio > 0 && !math.IsInf(cmp.Ratio, 0):
					rows = append(rows, ratioRow{Host: h, Test: test, Config: c, Ratio: cmp.Ratio, Compare: cmp})
				}
			}
		}
		if last != nil {
			rows = append(rows, last(h)...)
		}
	}
	t := table.Table{Name: name, Title: title, Note: note,
		Pivot: &table.Pivot{Keys: a.pivotKeys("test"), Split: []string{"across_tests"}, Name: "config", Names: a.Configs, Cell: []string{"ratio", "mark"}}}
	if a.grouped() {
		t.Group = "group"
	}
	verdict := func(f func(v Verdict) any) func(r ratioRow) any {
		return func(r ratioRow) any {
			if r.Compare == nil {
				return nil
			}
			return f(r.Compare.Verdict)
		}
	}
	return build(a, t, func(r ratioRow) string { return r.Host }, []table.Field[ratioRow]{
		table.On(table.Text("test", "test"), func(r ratioRow) any { return r.Test }),
		table.On(table.Text("group", "group"), func(r ratioRow) any {
			if r.AcrossTests {
				if a.grouped() {
					return acrossGroups
				}
				return nil
			}
			if g := a.groupOf(r.Host, r.Test); g != "" || !a.grouped() {
				return g
			}
			return otherTests
		}),
		table.On(table.Bool("across_tests", "across tests", "yes", ""), func(r ratioRow) any { return r.AcrossTests }),
		table.On(table.Text("config", "config"), func(r ratioRow) any { return r.Config }),
		table.On(table.Fixed("ratio", "ratio", "", 2), func(r ratioRow) any { return r.Ratio }),
		table.On(table.Bool("significant", "significant", "yes", "no"), func(r ratioRow) any {
			if r.Compare == nil || !r.Compare.Testable {
				return nil
			}
			return r.Compare.Significant
		}),
		table.On(table.Text("verdict", "verdict"), verdict(func(v Verdict) any { return v.Word })),
		table.On(table.Text("mark", "mark"), verdict(func(v Verdict) any { return v.Mark() })),
	}, rows)
}

func (a *Analysis) diskTable() table.Table {
	note := "Medians over rounds of each run's figures over its timed statement, with iostat -x's definitions (the whole device: every process's I/O); bounded = runs within 10% of the device's limit, blank where the study declares none (unknown, not zero)."
	var over []int64
	for _, r := range a.Runs {
		if r.DiskRatesOver == "statement" {
			over = append(over, r.RunID)
		}
	}
	if len(over) > 0 {
		note += fmt.Sprintf(" The snapshots of %d run(s) have no times (an import's): their rates (r/s, MiB/s, w/s, aqu-sz, util) are over the statement's own time instead; rates are blank where neither is known.", len(over))
	}
	note += a.serverNote()
	t := table.Table{Name: "disk", Title: "Disk", Note: note}
	return build(a, t, func(d DiskGroup) string { return d.Host }, diskFields, a.Disks)
}

func (a *Analysis) vacuumTable() table.Table {
	t := table.Table{Name: "vacuum", Title: "Vacuum",
		Note: "VACUUM VERBOSE's figures for every round, summed over the tables vacuumed. " + strings.Join(a.Contrast, " ")}
	count := func(key, title string, f func(v VacuumRow) *int64) table.Field[VacuumRow] {
		return table.On(table.Int(key, title, ""), func(v VacuumRow) any { return opt(f(v)) })
	}
	return build(a, t, func(v VacuumRow) string { return v.Host }, []table.Field[VacuumRow]{
		table.On(table.Text("test", "test"), func(v VacuumRow) any { return v.Test }),
		table.On(table.Text("config", "config"), func(v VacuumRow) any { return v.Config }),
		table.On(table.Int("round", "round", ""), func(v VacuumRow) any { return int64(v.Round) }),
		table.On(table.Int("run", "run", ""), func(v VacuumRow) any { return v.RunID }),
		count("pages_scanned", "pages scanned", func(v VacuumRow) *int64 { return v.PagesScanned }),
		count("buffers_hit", "buffers hit", func(v VacuumRow) *int64 { return v.BufferHits }),
		count("buffers_read", "buffers read", func(v VacuumRow) *int64 { return v.BufferReads }),
		count("pages_dirtied", "pages dirtied", func(v VacuumRow) *int64 { return v.BufferDirtied }),
		count("wal_records", "wal records", func(v VacuumRow) *int64 { return v.WALRecords }),
		count("full_page_images", "full page images", func(v VacuumRow) *int64 { return v.WALFPI }),
		table.On(table.Bytes("wal_bytes", "wal", "MiB"), func(v VacuumRow) any { return optBytes(v.WALBytes) }),
		count("tuples_frozen", "tuples frozen", func(v VacuumRow) *int64 { return v.TuplesFrozen }),
		count("tuples_removed", "tuples removed", func(v VacuumRow) *int64 { return v.TuplesRemoved }),
		table.On(table.Num("cpu_s", "cpu", "s"), func(v VacuumRow) any { return opt(v.CPUS) }),
		table.On(table.Num("elapsed_s", "elapsed", "s"), func(v VacuumRow) any { return opt(v.ElapsedS) }),
	}, a.Vacuums)
}

func (a *Analysis) plansTable() table.Table {
	t := table.Table{Name: "plans", Title: "Plans",
		Note: "The plan each configuration ran (EXPLAIN before the cold steps); the fingerprint ignores costs, rows and timings."}
	return build(a, t, func(p PlanRow) string { return p.Host }, []table.Field[PlanRow]{
		table.On(table.Text("test", "test"), func(p PlanRow) any { return p.Test }),
		table.On(table.Text("config", "config"), func(p PlanRow) any { return p.Config }),
		table.On(table.Column{Key: "fingerprint", Title: "fingerprint", Kind: table.Plain, Width: 12}, func(p PlanRow) any { return p.Fingerprint }),
		table.On(table.Text("shape", "shape"), func(p PlanRow) any { return p.Shape }),
		table.On(table.Column{Key: "rounds", Title: "rounds", Kind: table.Listed}, func(p PlanRow) any {
			rs := make([]int64, len(p.Rounds))
			for i, r := range p.Rounds {
				rs[i] = int64(r)
			}
			return rs
		}),
	}, a.Plans)
}

// settingValue is one configuration's value of a setting that differs.
type settingValue struct {
	Host, Setting, Config, Value, Source string
	Declared                             bool
}

// settingsTable is long, one row per setting and configuration, and
// pivots into settings as rows and configurations as columns.
func (a *Analysis) settingsTable() table.Table {
	var rows []settingValue
	for _, s := range a.Settings {
		for _, c := range a.Configs {
			if v, ok := s.Values[c]; ok {
				rows = append(rows, settingValue{Host: s.Host, Setting: s.Name, Config: c, Value: v, Source: s.Sources[c], Declared: s.Declared})
			}
		}
	}
	t := table.Table{Name: "settings", Title: "Settings that differ",
		Note: "pg_settings of each configuration's server; the settings most likely to matter first; declared = named by the study.",
		Pivot: &table.Pivot{Keys: a.pivotKeys("setting"), Name: "config", Names: a.Configs, Cell: []string{"value"},
			Rest: []string{"declared"}, Gather: []table.Gather{{Key: "source", Title: "sources"}}}}
	return build(a, t, func(s settingValue) string { return s.Host }, []table.Field[settingValue]{
		table.On(table.Text("setting", "setting"), func(s settingValue) any { return s.Setting }),
		table.On(table.Text("config", "config"), func(s settingValue) any { return s.Config }),
		table.On(table.Column{Key: "value", Title: "value", Kind: table.Plain, Empty: true}, func(s settingValue) any { return s.Value }),
		table.On(table.Text("source", "source"), func(s settingValue) any { return table.Maybe(s.Source) }),
		table.On(table.Bool("declared", "declared", "yes", "no"), func(s settingValue) any { return s.Declared }),
	}, rows)
}

func (a *Analysis) runsTable() table.Table {
	tput, note := a.throughputRunFields()
	t := table.Table{Name: "runs", Title: "Runs", Note: "Every run analysed, in the order it ran; read and written are the device's (/proc/diskstats: the whole device), others the device's less the server's;" +
		" server reads and writes are I/Os as the cgroup counts them, before the scheduler merges them;" + a.serverNote() + note}
	disk := func(f func(r *Run) float64) func(*Run) any {
		return func(r *Run) any {
			if r.Disk == nil {
				return nil
			}
			return f(r)
		}
	}
	server := func(f func(s *ServerIO) any) func(*Run) any {
		return func(r *Run) any {
			if r.Server == nil {
				return nil
			}
			return f(r.Server)
		}
	}
	aio := func(f func(r *Run) float64) func(*Run) any {
		return func(r *Run) any {
			if r.AIO == nil {
				return nil
			}
			return f(r)
		}
	}
	return build(a, t, func(r *Run) string { return r.Host }, append([]table.Field[*Run]{
		table.On(table.Int("run", "run", ""), func(r *Run) any { return r.RunID }),
		table.On(table.Int("round", "round", ""), func(r *Run) any { return int64(r.Round) }),
		table.On(table.Int("position", "position", ""), func(r *Run) any { return int64(r.Position) }),
		table.On(table.Text("test", "test"), func(r *Run) any { return r.Test }),
		table.On(table.Text("config", "config"), func(r *Run) any { return r.Config }),
		table.On(table.Text("status", "status"), func(r *Run) any { return r.Status }),
		table.On(table.Num("time_ms", "time", "ms"), func(r *Run) any {
			if !r.HasTime {
				return nil
			}
			return r.TimeMs
		}),
		table.On(table.Text("time_from", "time from"), func(r *Run) any { return table.Maybe(r.TimeSource) }),
		table.On(table.Text("device", "device"), func(r *Run) any { return table.Maybe(r.Device) }),
		table.On(table.Bytes("read_bytes", "read", "MiB"), disk(func(r *Run) float64 { return r.Disk.ReadBytes })),
		table.On(table.Num("reads", "reads", ""), disk(func(r *Run) float64 { return r.Disk.Reads })),
		table.On(table.Bytes("rareq_sz_bytes", "rareq-sz", "KiB"), disk(func(r *Run) float64 { return r.Disk.RAreqSzKiB * 1024 })),
		table.On(table.Bytes("pg_read_bytes", "pg read", "MiB"), func(r *Run) any { return optBytes(r.PGReads) }),
		table.On(table.Bytes("written_bytes", "written", "MiB"), disk(func(r *Run) float64 { return r.Disk.WriteBytes })),
		table.On(table.Bytes("server_read_bytes", "server read", "MiB"), server(func(s *ServerIO) any { return s.ReadBytes })),
		table.On(table.Num("server_reads", "server reads", ""), server(func(s *ServerIO) any { return opt(s.Reads) })),
		table.On(table.Bytes("server_written_bytes", "server written", "MiB"), server(func(s *ServerIO) any { return s.WriteBytes })),
		table.On(table.Num("server_writes", "server writes", ""), server(func(s *ServerIO) any { return opt(s.Writes) })),
		table.On(table.Bytes("others_read_bytes", "others read", "MiB"), server(func(s *ServerIO) any { return s.OthersReadBytes })),
		table.On(table.Bytes("others_written_bytes", "others written", "MiB"), server(func(s *ServerIO) any { return s.OthersWriteBytes })),
		table.On(table.Bytes("wal_bytes", "wal", "MiB"), func(r *Run) any { return optBytes(r.WALBytes) }),
		table.On(table.Num("aio_in_flight", "aio in flight", ""), aio(func(r *Run) float64 { return r.AIO.Mean })),
		table.On(table.Num("aio_max", "aio max", ""), aio(func(r *Run) float64 { return r.AIO.Max })),
		table.On(table.Text("plan", "plan"), func(r *Run) any {
			if r.Plan == nil {
				return nil
			}
			return r.Plan.Shape
		}),
	}, tput...), a.Runs)
}

// interval is one interval of a run's disk series.
type interval struct {
	run *Run
	DiskInterval
}

// seriesTable is the device's throughput over time within each run that
// was sampled: one row per interval between snapshots.
func (a *Analysis) seriesTable() table.Table {
	t := table.Table{Name: "disk_series", Title: "Disk over time",
		Note: "The run's device between consecutive diskstats snapshots (before, samples, after); offset is the end of the interval from the start of the timed statement."}
	var rows []interval
	for _, r := range a.Runs {
		for _, iv := range r.Series {
			rows = append(rows, interval{r, iv})
		}
	}
	return build(a, t, func(iv interval) string { return iv.run.Host }, []table.Field[interval]{
		table.On(table.Int("run", "run", ""), func(iv interval) any { return iv.run.RunID }),
		table.On(table.Text("test", "test"), func(iv interval) any { return iv.run.Test }),
		table.On(table.Text("config", "config"), func(iv interval) any { return iv.run.Config }),
		table.On(table.Int("round", "round", ""), func(iv interval) any { return int64(iv.run.Round) }),
		table.On(table.Text("device", "device"), func(iv interval) any { return table.Maybe(iv.run.Device) }),
		table.On(table.Fixed("offset_s", "offset", "s", 3), func(iv interval) any { return iv.OffsetS }),
		table.On(table.Fixed("interval_s", "interval", "s", 3), func(iv interval) any { return iv.Stats.Seconds }),
		table.On(table.Num("r_per_s", "r/s", ""), func(iv interval) any { return iv.Stats.RPerS }),
		table.On(table.Bytes("read_bytes_per_s", "read", "MiB/s"), func(iv interval) any { return iv.Stats.RKiBPerS * 1024 }),
		table.On(table.Bytes("rareq_sz_bytes", "rareq-sz", "KiB"), func(iv interval) any { return iv.Stats.RAreqSzKiB * 1024 }),
		table.On(table.Num("w_per_s", "w/s", ""), func(iv interval) any { return iv.Stats.WPerS }),
		table.On(table.Bytes("write_bytes_per_s", "write", "MiB/s"), func(iv interval) any { return iv.Stats.WKiBPerS * 1024 }),
		table.On(table.Num("aqu_sz", "aqu-sz", ""), func(iv interval) any { return iv.Stats.AquSz }),
		table.On(table.Fixed("util_pct", "util", "%", 1), func(iv interval) any { return iv.Stats.UtilPct }),
	}, rows)
}
