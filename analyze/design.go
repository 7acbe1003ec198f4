package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/samples/study"
)

// The order a study ran its runs in decides what its numbers can say,
// before any statistic: when each configuration always holds the same
// position in the round, a slow position is a slow configuration; when
// one configuration's runs all came before another's, whatever changed in
// between is the difference; when a test always runs after a writing test,
// it reads what the write left. Seed 000 spends a paragraph on the first.
const (
	// confoundedV is the Cramér's V between configuration and position
	// from which the two are one thing: a fixed order gives 1.
	confoundedV = 0.8
	// mostlyV is where the association is worth a warning: one swapped
	// round in five gives 0.6, a rotation 0 to 0.25.
	mostlyV = 0.6
	// mostlyBefore is the share of pairs of runs in which one
	// configuration's run came first from which the order is worth a
	// warning (1 is every run before every run of the other).
	mostlyBefore = 0.9
	// walWrites is the median WAL a test's runs must generate to count as
	// writing when the study file does not say so (a function that
	// writes, a custom pgbench script, an import).
	walWrites = 1 << 20
)

// guardDesign checks, test by test, that the order of the runs lets the
// configurations' differences be told apart from the position in the
// round, from time, and from what a writing test left. Each is an error
// when the configurations' results differ (Kruskal-Wallis at the study's
// level), as the study then cannot say which cause made the difference;
// a warning otherwise, as a confound can hide a difference as well.
func (a *Analysis) guardDesign(opt Options) {
	for _, h := range a.Hosts {
		writers := a.writingTests(h)
		var rounds map[configRound][]*Run // read by afterWrite, made once a host
		if len(writers) > 0 {
			rounds = a.runsByRound(h)
		}
		for _, test := range a.Tests {
			runs := a.testRuns(h, test)
			configs := a.configsOf(runs)
			if len(configs) < 2 {
				continue
			}
			d := designCheck{a: a, host: h, test: test, runs: runs, configs: configs, metric: a.metricOf(h, test)}
			d.differ = d.configsDiffer(opt.Alpha)
			d.position()
			d.time()
			d.afterWrite(writers, rounds)
		}
	}
}

// designCheck is one test's runs on one host, as the design checks read
// them.
type designCheck struct {
	a          *Analysis
	host, test string
	runs       []*Run // in the order they ran
	configs    []string
	metric     metric
	differ     string // the configurations' medians and p, when they differ; "" otherwise
}

func (a *Analysis) configsOf(runs []*Run) []string {
	var out []string
	for _, c := range a.Configs {
		if slices.ContainsFunc(runs, func(r *Run) bool { return r.Config == c }) {
			out = append(out, c)
		}
	}
	return out
}

// configsDiffer says, in words, how the configurations' results differ
// when Kruskal-Wallis finds they do at level alpha.
func (d *designCheck) configsDiffer(alpha float64) string {
	var groups [][]float64
	var meds []string
	for _, c := range d.configs {
		xs := d.a.metricValues(d.host, d.test, c)
		groups = append(groups, xs)
		meds = append(meds, fmt.Sprintf("%s %.4g %s", c, stats.Median(xs), d.metric.unit))
	}
	kw := stats.KruskalWallis(groups)
	if !kw.Valid || kw.P >= alpha {
		return ""
	}
	return fmt.Sprintf("medians %s, Kruskal-Wallis p=%.3g", strings.Join(meds, ", "), kw.P)
}

// severity is an error when the configurations differ, as the cause of
// their difference is then unknown, and a warning otherwise.
func (d *designCheck) severity() (Severity, string) {
	if d.differ != "" {
		return Error, fmt.Sprintf("the configurations' %s differ (%s), and the study cannot say whether they or the order made the difference", d.metric.what, d.differ)
	}
	return Warning, fmt.Sprintf("the configurations' %s do not differ significantly, but the order could hide a difference as well as make one", d.metric.what)
}

// position: is each configuration always, or mostly, in the same
// position of the round?
func (d *designCheck) position() {
	var positions []int
	for _, r := range d.runs {
		if !slices.Contains(positions, r.Position) {
			positions = append(positions, r.Position)
		}
	}
	slices.Sort(positions)
	counts := make([][]float64, len(d.configs))
	for i, c := range d.configs {
		counts[i] = make([]float64, len(positions))
		for _, r := range d.runs {
			if r.Config == c {
				counts[i][slices.Index(positions, r.Position)]++
			}
		}
	}
	v := stats.CramersV(counts)
	if v < mostlyV {
		return
	}
	var where []string
	for i, c := range d.configs {
		j := 0
		var n float64
		for k, x := range counts[i] {
			n += x
			if x > counts[i][j] {
				j = k
			}
		}
		where = append(where, fmt.Sprintf("%s at position %d in %.0f of %.0f", c, positions[j], counts[i][j], n))
	}
	sev, why := d.severity()
	how := "always"
	if v < confoundedV {
		how, sev = "mostly", Warning
	}
	d.a.add(Finding{Guard: "order", Severity: sev, Host: d.host, Test: d.test, Runs: runIDs(d.runs),
		Message: fmt.Sprintf("each configuration of %s %s ran in the same position of the round (%s; Cramér's V %.2f between configuration and position), "+
			"so a position effect (the first run after a restart, a disk slower at some point of the round) reads as a difference between configurations: %s; "+
			"collect again with order: rotate (the default) or random, for a number of rounds that is a multiple of %d",
			d.test, how, strings.Join(where, ", "), v, why, len(d.configs))})
}

// time: did all of one configuration's runs come before another's?
func (d *designCheck) time() {
	seqs := map[string][]float64{}
	for _, r := range d.runs {
		seqs[r.Config] = append(seqs[r.Config], float64(r.Seq))
	}
	var pairs []string
	all := true
	for i, x := range d.configs {
		for _, y := range d.configs[i+1:] {
			if len(seqs[x]) < 2 || len(seqs[y]) < 2 {
				continue
			}
			p := stats.Precedes(seqs[x], seqs[y])
			first, then := x, y
			if p < 0.5 {
				first, then, p = y, x, 1-p
			}
			if p >= mostlyBefore {
				all = all && p == 1
				pairs = append(pairs, fmt.Sprintf("%s before %s in %.0f%% of pairs of runs", first, then, 100*p))
			}
		}
	}
	if len(pairs) == 0 {
		return
	}
	sev, why := d.severity()
	how := "all"
	if !all {
		how, sev = "most", Warning
	}
	d.a.add(Finding{Guard: "order", Severity: sev, Host: d.host, Test: d.test, Runs: runIDs(d.runs),
		Message: fmt.Sprintf("%s of one configuration's runs of %s came before another's (%s), so whatever changed in between (a cache, a burst allowance, the machine's load) "+
			"reads as a difference between configurations: %s; interleave the configurations within each round (collect runs them so; captures collected or imported apart cannot be)",
			how, d.test, strings.Join(pairs, "; "), why)})
}

// afterWrite: does the test always run after a writing test, in the same
// round, on the same configuration's data?
func (d *designCheck) afterWrite(writers map[string]*study.Write, byRound map[configRound][]*Run) {
	if len(writers) == 0 {
		return
	}
	after := 0
	var writer string
	for _, r := range d.runs {
		for _, o := range byRound[configRound{r.Config, r.Round}] {
			if w := writers[o.Test]; o.Seq < r.Seq && o.Test != d.test && w != nil && d.a.reaches(d.host, w, d.test) {
				after++
				writer = o.Test
				break
			}
		}
	}
	if len(d.runs) < 2 || after < len(d.runs) {
		return
	}
	sev, why := d.severity()
	d.a.add(Finding{Guard: "order", Severity: sev, Host: d.host, Test: d.test, Runs: runIDs(d.runs),
		Message: fmt.Sprintf("every run of %s came after a run of %s on the same configuration in the same round, and %s writes (%s): "+
			"%s reads what that write left (dirty pages to flush, a checkpoint, hint bits and the visibility map to set), which can differ between configurations: %s; "+
			"put reading tests before writing ones in the study, or give the writing test a study of its own",
			d.test, writer, writer, writers[writer].Why, d.test, why)})
}

// configRound is a configuration's round on a host.
type configRound struct {
	config string
	round  int
}

// runsByRound are every measured and failed run of a host, by
// configuration and round: only a run of the same round can come before
// another on the same configuration's data.
func (a *Analysis) runsByRound(host string) map[configRound][]*Run {
	byRound := map[configRound][]*Run{}
	for _, r := range a.Runs {
		if r.Host == host {
			k := configRound{r.Config, r.Round}
			byRound[k] = append(byRound[k], r)
		}
	}
	return byRound
}

// writingTests are the tests of a host that change the data later runs
// read, with what they write: what the study file says, or a median of
// at least 1 MiB of WAL generated by the runs (which may be any relation).
func (a *Analysis) writingTests(h string) map[string]*study.Write {
	out := map[string]*study.Write{}
	if st := a.study[h]; st != nil {
		for i := range st.Tests {
			if w := st.Tests[i].Writes(); w != nil {
				out[st.Tests[i].Name] = w
			}
		}
	}
	wal := map[string][]float64{}
	for _, r := range a.Runs {
		if r.Host == h && okRun(r) && r.WALBytes != nil {
			wal[r.Test] = append(wal[r.Test], float64(*r.WALBytes))
		}
	}
	for test, xs := range wal {
		if m := stats.Median(xs); out[test] == nil && m >= walWrites {
			out[test] = &study.Write{Why: fmt.Sprintf("its runs generated a median of %.1f MiB of WAL", m/mib), All: true}
		}
	}
	return out
}

// reaches says whether a write can change what a test of a host reads
// (study.Write.Reaches; any write can where the study is unknown).
func (a *Analysis) reaches(h string, w *study.Write, test string) bool {
	if st := a.study[h]; st != nil {
		for i := range st.Tests {
			if st.Tests[i].Name == test {
				return w.Reaches(&st.Tests[i])
			}
		}
	}
	return true
}
