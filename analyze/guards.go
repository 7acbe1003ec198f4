package analyze

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
)

// Severity of a finding: an error means the capture cannot support the
// comparison it was made for; a warning that a reader should know before
// trusting it; info is context.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Finding is what a guard found.
type Finding struct {
	Guard    string
	Severity Severity
	Host     string
	Test     string
	Config   string
	Runs     []int64
	Message  string
}

// Guards name what each guard looks for, for --help and the report.
var Guards = []struct{ Name, What string }{
	{"failed", "runs that failed or timed out (an error when every run of a configuration in a test did)"},
	{"unreadable", "outputs of a run, or host facts of a capture, that could not be read"},
	{"plan-differs", "configurations that ran different plans for a test, or one configuration's plan changing between rounds"},
	{"plan-expected", "a plan without the node the study expects (expect_plan)"},
	{"not-cold", "a run meant to be cold whose reads came from the page cache"},
	{"order", "an order of runs that confounds the configurations with their position in the round, with time, or with a writing test run before"},
	{"control", "two copies of one setup (same_as, or identical server, settings and plan) whose results differ significantly"},
	{"position", "the position in the round explaining times better than the configuration"},
	{"drift", "times or the device's throughput trending across the capture"},
	{"change-point", "a step in a test's results or the device's throughput partway through the capture (a burst allowance used up), with the runs to exclude"},
	{"activity", "autovacuum or another session at work during a timed run"},
	{"rounds", "too few rounds for an interval or a test"},
	{"spread", "a difference smaller than the spread within rounds"},
	{"settings", "settings that differ between configurations but that the study does not declare"},
	{"settings-ran", "runs whose settings were not their configuration's declaration (another configuration's value left in force on a shared server)"},
	{"disk-bound", "runs whose throughput reached the device's limit"},
	{"ceiling", "a device's measured read ceiling that fell between its first and last calibration, or that differs from the declared limit"},
	{"others-io", "runs in which processes other than the server's cgroup did more than the study's share of the device's I/O"},
	{"study-keys", "keys of a capture's study this version of pgstudy does not know, ignored"},
}

func (a *Analysis) add(f Finding) { a.Findings = append(a.Findings, f) }

// Errors counts the error-level findings.
func (a *Analysis) Errors() int {
	n := 0
	for _, f := range a.Findings {
		if f.Severity == Error {
			n++
		}
	}
	return n
}

// guards runs every guard and orders their findings by severity. The
// guards only read the analysis (metricIndex is made before they start),
// so they run on two cores, each on a shallow copy of the analysis that
// collects its own findings; the findings are put together in the order
// of the guards, so the result is the same as one after the other.
func (a *Analysis) guards(opt Options) { a.runGuards(opt, guardLanes) }

// runGuards runs the guards, lanes of them at once.
func (a *Analysis) runGuards(opt Options, lanes int) {
	a.metricIndex()
	guards := []func(*Analysis){
		(*Analysis).guardStudyKeys, (*Analysis).guardIncomplete, (*Analysis).guardHostFacts, (*Analysis).guardFailed,
		(*Analysis).guardPlans, func(a *Analysis) { a.guardDesign(opt) }, (*Analysis).guardControls, (*Analysis).guardCold,
		func(a *Analysis) { a.guardPosition(opt) }, func(a *Analysis) { a.guardDrift(opt) },
		func(a *Analysis) { a.guardChangePoints(opt) }, (*Analysis).guardActivity, (*Analysis).guardRounds,
		(*Analysis).guardSettings, (*Analysis).guardRanWith, (*Analysis).guardBounded, (*Analysis).guardWholeProcess,
		(*Analysis).guardCeilings, (*Analysis).guardOthers,
	}
	found := make([][]Finding, len(guards))
	inLanes(lanes, len(guards), func(i int) {
		b := *a
		b.Findings = nil
		guards[i](&b)
		found[i] = b.Findings
	})
	for _, fs := range found {
		a.Findings = append(a.Findings, fs...)
	}
	slices.SortStableFunc(a.Findings, func(x, y Finding) int {
		rank := map[Severity]int{Error: 0, Warning: 1, Info: 2}
		return cmp.Compare(rank[x.Severity], rank[y.Severity])
	})
}

// guardLanes is how many guards (or verdicts) run at once: the analysis
// is meant for a laptop or a small VM, of two cores or more.
const guardLanes = 2

// inLanes calls job(0) to job(n-1), lanes of them at once, and returns
// when all are done.
func inLanes(lanes, n int, job func(i int)) {
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range lanes {
		wg.Go(func() {
			for i := range next {
				job(i)
			}
		})
	}
	wg.Wait()
}

func runIDs(runs []*Run) []int64 {
	ids := make([]int64, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	return ids
}

// listRuns names runs, consecutive ids as ranges: "runs 1-24, 30".
func listRuns(ids []int64) string {
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) == 1 {
		return "run " + table.RangeText(ids)
	}
	return "runs " + table.RangeText(ids)
}

// guardPlans: the configurations of a test must run one plan, the one the
// study expects; a plan that changes between rounds is worth knowing.
func (a *Analysis) guardPlans() {
	type th struct{ host, test string }
	main := map[th]map[string]PlanRow{} // the most frequent plan of each configuration
	for _, p := range a.Plans {
		k := th{p.Host, p.Test}
		if main[k] == nil {
			main[k] = map[string]PlanRow{}
		}
		if prev, ok := main[k][p.Config]; !ok {
			main[k][p.Config] = p
		} else {
			a.add(Finding{Guard: "plan-differs", Severity: Warning, Host: p.Host, Test: p.Test, Config: p.Config, Runs: p.Runs,
				Message: fmt.Sprintf("%s on %s changed plans between rounds: %s in %s, but %s in %s",
					p.Test, p.Config, prev.Shape, roundsText(prev.Rounds), p.Shape, roundsText(p.Rounds))})
		}
	}
	for _, h := range a.Hosts {
		for _, test := range a.Tests {
			byConfig := main[th{h, test}]
			if len(byConfig) == 0 {
				continue
			}
			var fps []string
			for _, c := range a.Configs {
				if p, ok := byConfig[c]; ok && !slices.Contains(fps, p.Fingerprint) {
					fps = append(fps, p.Fingerprint)
				}
			}
			if len(fps) > 1 {
				var parts []string
				var ids []int64
				for _, c := range a.Configs {
					if p, ok := byConfig[c]; ok {
						parts = append(parts, fmt.Sprintf("%s ran %s", c, p.Shape))
						ids = append(ids, p.Runs...)
					}
				}
				a.add(Finding{Guard: "plan-differs", Severity: Error, Host: h, Test: test, Runs: ids,
					Message: fmt.Sprintf("the configurations ran different plans for %s, so its times compare plans, not configurations: %s",
						test, strings.Join(parts, "; "))})
			}
			want := expectPlan(a.study[h], test)
			if want == "" {
				continue
			}
			groups, keys := a.groupRuns(func(r *Run) bool { return r.Host == h && r.Test == test && r.Plan != nil && r.Plan.plan != nil })
			for _, k := range keys {
				var bad []*Run
				for _, r := range groups[k] {
					if !hasNode(r.Plan.plan, want) {
						bad = append(bad, r)
					}
				}
				if len(bad) > 0 {
					a.add(Finding{Guard: "plan-expected", Severity: Error, Host: h, Test: test, Config: k.Config, Runs: runIDs(bad),
						Message: fmt.Sprintf("%s on %s was expected to use a %s but its plan is %s (%s)", test, k.Config, want, bad[0].Plan.Shape, listRuns(runIDs(bad)))})
				}
			}
		}
	}
}

func roundsText(rs []int) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmt.Sprint(r)
	}
	if len(s) == 1 {
		return "round " + s[0]
	}
	return "rounds " + strings.Join(s, ", ")
}

// meantCold says whether a run's cold steps emptied the page cache.
func meantCold(r *Run) bool {
	return strings.Contains(r.Cold, "drop-caches") || strings.Contains(r.Cold, "evict")
}

const (
	coldMinRead   = 8 << 20 // bytes PostgreSQL must read for the check to mean something
	coldDiskShare = 0.25    // of what PostgreSQL read, the least the device must have read
	coldPeerShare = 0.10    // of the test's median device reads, the least a cold run must read
)

// guardCold: a run meant to be cold must have read from the device what
// PostgreSQL read from the kernel; where pg_stat_io is not recorded (before
// 16), it must have read about what the other cold runs of its test read.
func (a *Analysis) guardCold() {
	type th struct{ host, test string }
	peers := map[th][]float64{}
	for _, r := range a.Runs {
		if okRun(r) && r.Disk != nil && (meantCold(r) || r.Cold == importedCold) {
			peers[th{r.Host, r.Test}] = append(peers[th{r.Host, r.Test}], r.Disk.ReadBytes)
		}
	}
	medians := map[th]float64{}
	for k, xs := range peers {
		medians[k] = stats.Median(xs)
	}
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && r.Disk != nil && (meantCold(r) || r.Cold == importedCold) })
	for _, k := range keys {
		var warm []*Run
		var why []string
		for _, r := range groups[k] {
			dev := r.Disk.ReadBytes
			switch {
			case r.PGReads != nil && *r.PGReads >= coldMinRead:
				if dev < coldDiskShare**r.PGReads {
					warm = append(warm, r)
					why = append(why, fmt.Sprintf("run %d: PostgreSQL read %.0f MiB, the device %.1f MiB", r.RunID, *r.PGReads/mib, dev/mib))
				}
			case r.PGReads == nil:
				if m := medians[th{r.Host, r.Test}]; m >= coldMinRead && dev < coldPeerShare*m {
					warm = append(warm, r)
					why = append(why, fmt.Sprintf("run %d: the device read %.1f MiB, the test's cold runs a median of %.0f MiB", r.RunID, dev/mib, m/mib))
				}
			}
		}
		if len(warm) == 0 {
			continue
		}
		sev := Error
		if warm[0].Cold == importedCold {
			sev = Warning
		}
		a.add(Finding{Guard: "not-cold", Severity: sev, Host: k.Host, Test: k.Test, Config: k.Config, Runs: runIDs(warm),
			Message: fmt.Sprintf("%d run(s) of %s on %s meant to be cold read from the page cache, not the disk (%s); their times are warm times",
				len(warm), k.Test, k.Config, strings.Join(why, "; "))})
	}
}

// importedCold is what an import records for cold steps it cannot know.
const importedCold = "unknown (imported)"

// guardActivity: nothing else should have worked on the server while a
// run was timed.
func (a *Analysis) guardActivity() {
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && (len(r.Others) > 0 || r.Autovacuums > 0) })
	for _, k := range keys {
		var what []string
		for _, r := range groups[k] {
			var seen []string
			for _, o := range r.Others {
				s := fmt.Sprintf("%s (pid %d) %s", o.BackendType, o.PID, o.Phase)
				if o.Query != "" {
					s += ": " + firstLineOf(o.Query)
				}
				seen = append(seen, s)
			}
			if r.Autovacuums > 0 {
				seen = append(seen, fmt.Sprintf("%d autovacuum(s) or autoanalyze(s) ended during it", r.Autovacuums))
			}
			what = append(what, fmt.Sprintf("run %d: %s", r.RunID, strings.Join(seen, "; ")))
		}
		a.add(Finding{Guard: "activity", Severity: Warning, Host: k.Host, Test: k.Test, Config: k.Config, Runs: runIDs(groups[k]),
			Message: fmt.Sprintf("another session was at work on the server around %d run(s) of %s on %s: %s",
				len(groups[k]), k.Test, k.Config, strings.Join(what, "; "))})
	}
}

// guardRounds: a claim needs enough rounds, and a difference larger than
// the noise. A comparison that no test could decide says how many rounds
// would, from its own spread. Each host's findings are its own: with
// several captures, a reader must know which one lacks rounds.
func (a *Analysis) guardRounds() {
	comparisons := a.comparisons()
	for _, h := range a.Hosts {
		a.guardRoundsOn(h, comparisons)
	}
	for _, c := range comparisons {
		diff := math.Abs(c.cmp.Ratio - 1)
		spread := max(relIQR(c.summary), relIQR(c.base))
		switch {
		case c.cmp.Verdict.Word == "inconclusive" && diff >= spreadMin:
			a.add(Finding{Guard: "spread", Severity: Warning, Host: c.host, Test: c.test, Config: c.config,
				Message: fmt.Sprintf("%s on %s is %s against %s, but that is not significant (p=%.3f after Holm): the spread within rounds (IQR %.1f%% of the median) hides it; do not claim it",
					c.test, c.config, pct(c.cmp.Ratio-1), a.Baseline, c.cmp.PAdjusted, 100*spread)})
		case c.cmp.Significant && diff < spread:
			a.add(Finding{Guard: "spread", Severity: Info, Host: c.host, Test: c.test, Config: c.config,
				Message: fmt.Sprintf("%s on %s is %s against %s and significant, but smaller than the spread within rounds (IQR %.1f%% of the median): single runs will often disagree",
					c.test, c.config, pct(c.cmp.Ratio-1), a.Baseline, 100*spread)})
		}
	}
}

// guardRoundsOn is guardRounds' findings of one host: too few rounds for
// an interval or a test, the rounds each undecided comparison needs, and
// copies too few to test.
func (a *Analysis) guardRoundsOn(h string, comparisons []comparison) {
	var few []string
	for _, t := range a.Timings {
		if t.Host == h && t.Summary.N < minCI {
			few = append(few, fmt.Sprintf("%s on %s (n=%d)", t.Test, t.Config, t.Summary.N))
		}
	}
	for _, g := range a.Throughputs {
		if g.Host == h && g.N < minCI {
			few = append(few, fmt.Sprintf("%s on %s (n=%d)", g.Test, g.Config, g.N))
		}
	}
	// Untested comparisons could not have found anything: a warning.
	// Inconclusive ones were tested, and their spread hid a difference of
	// the tolerance: the number of rounds that would find one is context.
	for _, level := range []struct {
		word     string
		severity Severity
		what     string
	}{
		{"untested", Warning, "too few rounds for any test of these comparisons to reach p < %.2f"},
		{"inconclusive", Info, "these comparisons were tested at %.2f and could not decide"},
	} {
		var need []string
		for _, c := range comparisons {
			if v := c.cmp.Verdict; c.host == h && v.Word == level.word && v.RoundsNeeded > c.n {
				need = append(need, fmt.Sprintf("%s on %s has %d, needs %s", c.test, c.config, c.n, strings.TrimSuffix(runsCount(v.RoundsNeeded), " runs")))
			}
		}
		if len(need) > 0 {
			a.add(Finding{Guard: "rounds", Severity: level.severity, Host: h,
				Message: fmt.Sprintf(level.what+"; the rounds a side that would find a %s difference with %.0f%% power (from each comparison's spread, Holm over its tests): %s",
					a.Alpha, pctAbs(a.Tolerance), 100*targetPower, strings.Join(need, "; "))})
		}
	}
	var blind []string
	for _, n := range a.Noise {
		if n.Host == h && !n.Compare.Testable {
			blind = append(blind, fmt.Sprintf("%s on %s against %s (%s, n=%d and %d)", n.Test, n.Config, n.SameAs, pct(n.Ratio()-1),
				len(a.metricValues(n.Host, n.Test, n.Config)), len(a.metricValues(n.Host, n.Test, n.SameAs))))
		}
	}
	if len(blind) > 0 {
		a.add(Finding{Guard: "rounds", Severity: Warning, Host: h,
			Message: fmt.Sprintf("too few rounds to test the copies of one setup against each other, so the study's noise floor is unknown and a setup that moves the results would pass: %s",
				strings.Join(blind, "; "))})
	}
	if len(few) > 0 {
		a.add(Finding{Guard: "rounds", Severity: Warning, Host: h,
			Message: fmt.Sprintf("too few rounds for a %.0f%% interval of the median (%d needed): %s", 100*a.Confidence, minCI, strings.Join(few, ", "))})
	}
}

// comparison is one configuration against the baseline in a test, timed
// or throughput, as the guards read it.
type comparison struct {
	host, test, config string
	n                  int
	summary, base      stats.Summary
	cmp                *TimingCompare
}

func (a *Analysis) comparisons() []comparison {
	var out []comparison
	for _, t := range a.Timings {
		if b := a.timing(t.Host, t.Test, a.Baseline); t.Compare != nil && b != nil {
			out = append(out, comparison{t.Host, t.Test, t.Config, t.Summary.N, t.Summary, b.Summary, t.Compare})
		}
	}
	for _, g := range a.Throughputs {
		if b := a.throughput(g.Host, g.Test, a.Baseline); g.Compare != nil && b != nil {
			out = append(out, comparison{g.Host, g.Test, g.Config, g.N, g.QPS, b.QPS, g.Compare})
		}
	}
	return out
}

// spreadMin is the smallest difference a reader may be tempted to claim:
// below it a "~" in the tables says enough.
const spreadMin = 0.05

func relIQR(s stats.Summary) float64 {
	if s.Median == 0 {
		return 0
	}
	return s.IQR / s.Median
}

// guardSettings: a setting that differs between configurations is a
// variable of the study whether it meant it or not. Each host's settings
// are judged within it, so in a fleet the minor ones are listed per host.
func (a *Analysis) guardSettings() {
	minor := map[string][]string{} // by host
	for _, s := range a.Settings {
		if s.Declared {
			continue
		}
		var vals []string
		for _, c := range a.Configs {
			if v, ok := s.Values[c]; ok {
				vals = append(vals, fmt.Sprintf("%s %s", c, v))
			}
		}
		switch {
		case s.Relevant && !s.OnlySome:
			a.add(Finding{Guard: "settings", Severity: Warning, Host: s.Host,
				Message: fmt.Sprintf("%s differs between configurations but the study does not declare it: %s; it may explain part of any difference",
					s.Name, strings.Join(vals, ", "))})
		default:
			minor[s.Host] = append(minor[s.Host], s.Name)
		}
	}
	for _, h := range a.Hosts {
		if names := minor[h]; len(names) > 0 {
			a.add(Finding{Guard: "settings", Severity: Info, Host: h,
				Message: fmt.Sprintf("%d other setting(s) differ without being declared (new in a version, or of little weight): %s", len(names), strings.Join(names, ", "))})
		}
	}
}

func (a *Analysis) guardBounded() {
	for _, above := range []bool{false, true} {
		pick := func(r *Run) []string {
			b, ab := a.boundedBy(r)
			if above {
				return ab
			}
			return b
		}
		groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && len(pick(r)) > 0 })
		for _, k := range keys {
			runs := groups[k]
			var what []string
			for _, r := range runs {
				what = append(what, fmt.Sprintf("run %d: %s", r.RunID, strings.Join(pick(r), ", ")))
			}
			f := Finding{Guard: "disk-bound", Severity: Info, Host: k.Host, Test: k.Test, Config: k.Config, Runs: runIDs(runs),
				Message: fmt.Sprintf("%d run(s) of %s on %s were bounded by the disk %s (%s): their times measure the device's limit, not PostgreSQL",
					len(runs), k.Test, k.Config, runs[0].Device, strings.Join(what, "; "))}
			if above {
				f.Severity = Warning
				f.Message = fmt.Sprintf("%d run(s) of %s on %s went more than 10%% above the limit held against them for %s (%s): the limit is not the device's, or something else used it",
					len(runs), k.Test, k.Config, runs[0].Device, strings.Join(what, "; "))
			}
			a.add(f)
		}
	}
}
