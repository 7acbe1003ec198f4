package analyze

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/samples/study"
)

// Side is one side of `pgstudy compare`: an analysis of one capture and,
// when the two sides are two configurations, the configuration.
type Side struct {
	Name   string // what the reader calls it: old, new, or the configuration
	A      *Analysis
	Config string // "" compares every configuration both sides have
}

// CompareRow is one test and configuration on both sides: the summaries of
// its metric (times, or a throughput test's queries per second), and the
// new side against the old, as analyze compares a configuration with the
// baseline.
type CompareRow struct {
	Test                 string
	OldConfig, NewConfig string
	Throughput           bool
	Old, New             stats.Summary
	Compare              TimingCompare
}

// Comparison is two captures, or two configurations, side by side.
type Comparison struct {
	Old, New   Side
	Rows       []CompareRow
	Geomean    float64 // of the new/old ratios of the timed rows; 0 when none
	GeomeanQPS float64 // the same for throughput rows
	OnlyOld    []string
	OnlyNew    []string
	// NotCompared are the tests and configurations both sides have that
	// have no row, and why: a throughput test on one side and a timed one
	// on the other, or no run that went well on a side.
	NotCompared []string
	Findings    []SideFinding // both sides' guards, carried over
	Tolerance   float64
	Alpha       float64
	Confidence  float64
	Differences []string // what differs between the sides' setups, said before the numbers
}

// SideFinding is a guard's finding on one side.
type SideFinding struct {
	Side string
	Finding
}

// Compare sets the new side against the old, test by test: the ratio of
// medians with its interval, the Mann-Whitney p Holm-corrected over the
// rows, and a verdict, with the statistics analyze uses against a
// baseline (benchstat's: the same median, interval and test). Each side
// must hold one host.
func Compare(old, new Side, opt Options) (*Comparison, error) {
	opt.defaults()
	for _, s := range []Side{old, new} {
		if len(s.A.Hosts) != 1 {
			return nil, optionErrorf("the %s side holds %d hosts; compare takes one capture a side", s.Name, len(s.A.Hosts))
		}
		if s.Config != "" && !slices.Contains(s.A.Configs, s.Config) {
			return nil, optionErrorf("the %s side has no configuration %q; it has %v", s.Name, s.Config, s.A.Configs)
		}
	}
	c := &Comparison{Old: old, New: new, Tolerance: opt.Tolerance, Alpha: opt.Alpha, Confidence: opt.Confidence}
	oh, nh := old.A.Hosts[0], new.A.Hosts[0]
	var family []*TimingCompare
	for _, p := range pairs(old, new, &c.OnlyOld, &c.OnlyNew) {
		ox := old.A.metricValues(oh, p.test, p.oldConfig)
		nx := new.A.metricValues(nh, p.test, p.newConfig)
		om, nm := old.A.metricOf(oh, p.test), new.A.metricOf(nh, p.test)
		if why := notComparable(len(ox), len(nx), om, nm, old.Name, new.Name); why != "" {
			c.NotCompared = append(c.NotCompared, fmt.Sprintf("%s on %s: %s", p.test, pairLabel(p), why))
			continue
		}
		row := CompareRow{Test: p.test, OldConfig: p.oldConfig, NewConfig: p.newConfig, Throughput: om.higherBetter,
			Old: stats.Summarize(ox, opt.Confidence), New: stats.Summarize(nx, opt.Confidence)}
		row.Compare = *compare(ox, nx, opt)
		c.Rows = append(c.Rows, row)
	}
	for i := range c.Rows {
		if c.Rows[i].Compare.Testable {
			family = append(family, &c.Rows[i].Compare)
		}
	}
	holm(family, opt.Alpha)
	var times, qps []float64
	for i := range c.Rows {
		r := &c.Rows[i]
		ox, nx := old.A.metricValues(oh, r.Test, r.OldConfig), new.A.metricValues(nh, r.Test, r.NewConfig)
		r.Compare.Verdict = judge(ox, nx, &r.Compare, max(len(family), 1), r.Throughput, opt.Tolerance, opt.Alpha, nil)
		if x := r.Compare.Ratio; x > 0 && !math.IsInf(x, 0) {
			if r.Throughput {
				qps = append(qps, x)
			} else {
				times = append(times, x)
			}
		}
	}
	if len(times) > 0 {
		c.Geomean = stats.Geomean(times)
	}
	if len(qps) > 0 {
		c.GeomeanQPS = stats.Geomean(qps)
	}
	c.Findings = sideFindings(old, new)
	c.Differences = setupDifferences(old, new)
	return c, nil
}

// sideFindings are both sides' findings; a capture compared with itself
// (two of its configurations) has its findings listed once.
func sideFindings(old, new Side) []SideFinding {
	var out []SideFinding
	same := old.A.Captures[0].ID == new.A.Captures[0].ID && old.A.Captures[0].ID != ""
	for i, s := range []Side{old, new} {
		if same && i == 1 {
			break
		}
		name := s.Name
		if same {
			name = "both"
		}
		for _, f := range s.A.Findings {
			out = append(out, SideFinding{Side: name, Finding: f})
		}
	}
	return out
}

// notComparable says why a test and configuration both sides have gets
// no row, or "".
func notComparable(nOld, nNew int, om, nm metric, oldName, newName string) string {
	switch {
	case nOld == 0 && nNew == 0:
		return "no run that went well on either side"
	case nOld == 0:
		return "no run that went well on the " + oldName + " side"
	case nNew == 0:
		return "no run that went well on the " + newName + " side"
	case om.higherBetter != nm.higherBetter:
		return fmt.Sprintf("%s on the %s side, %s on the %s side", om.what, oldName, nm.what, newName)
	}
	return ""
}

// pairLabel names a pair's configurations.
func pairLabel(p pair) string {
	if p.oldConfig == p.newConfig {
		return p.oldConfig
	}
	return p.oldConfig + " and " + p.newConfig
}

// pair is a test's configuration on each side.
type pair struct{ test, oldConfig, newConfig string }

// pairs are the tests and configurations both sides have, in the old
// side's order; what one side has alone is listed in onlyOld or onlyNew.
func pairs(old, new Side, onlyOld, onlyNew *[]string) []pair {
	var out []pair
	configs := func(s Side) []string {
		if s.Config != "" {
			return []string{s.Config}
		}
		return s.A.Configs
	}
	for _, test := range old.A.Tests {
		if !slices.Contains(new.A.Tests, test) {
			*onlyOld = append(*onlyOld, "test "+test)
			continue
		}
		if old.Config != "" || new.Config != "" {
			oc, nc := configs(old)[0], configs(new)[0]
			out = append(out, pair{test, oc, nc})
			continue
		}
		for _, cf := range old.A.Configs {
			if slices.Contains(new.A.Configs, cf) {
				out = append(out, pair{test, cf, cf})
			}
		}
	}
	for _, test := range new.A.Tests {
		if !slices.Contains(old.A.Tests, test) {
			*onlyNew = append(*onlyNew, "test "+test)
		}
	}
	if old.Config == "" && new.Config == "" {
		for _, cf := range old.A.Configs {
			if !slices.Contains(new.A.Configs, cf) {
				*onlyOld = append(*onlyOld, "configuration "+cf)
			}
		}
		for _, cf := range new.A.Configs {
			if !slices.Contains(old.A.Configs, cf) {
				*onlyNew = append(*onlyNew, "configuration "+cf)
			}
		}
	}
	return out
}

// setupDifferences says what differs between the sides' machines and
// servers, so that a reader knows what else than the change changed.
func setupDifferences(old, new Side) []string {
	var out []string
	os, ns := old.A.Setups[0], new.A.Setups[0]
	diff := func(what, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: %s on the %s side, %s on the %s side", what, orUnknown(a), old.Name, orUnknown(b), new.Name))
		}
	}
	diff("host", os.Host, ns.Host)
	diff("kernel", os.Kernel, ns.Kernel)
	diff("CPU", os.CPU, ns.CPU)
	server := func(s Side, st Setup, config string) string {
		for _, sv := range st.Servers {
			if sv.Config == config {
				return sv.Version
			}
		}
		return ""
	}
	if old.Config != "" || new.Config != "" {
		diff("server", server(old, os, old.Config), server(new, ns, new.Config))
		diff("declared settings", declaredText(old, old.Config), declaredText(new, new.Config))
	} else {
		for _, cf := range old.A.Configs {
			if slices.Contains(new.A.Configs, cf) {
				diff("server of "+cf, server(old, os, cf), server(new, ns, cf))
				diff("declared settings of "+cf, declaredText(old, cf), declaredText(new, cf))
			}
		}
	}
	for _, test := range old.A.Tests {
		if slices.Contains(new.A.Tests, test) {
			diff("test "+test, testText(old, test), testText(new, test))
		}
	}
	return out
}

// studyOf is a side's study, or nil (an import's).
func studyOf(s Side) *study.Study { return s.A.study[s.A.Hosts[0]] }

// declaredText is a configuration's declared settings as one text.
func declaredText(s Side, config string) string {
	st := studyOf(s)
	if st == nil {
		return ""
	}
	for _, c := range st.Configs {
		if c.Name == config {
			var kv []string
			for _, k := range slices.Sorted(maps.Keys(c.Settings)) {
				kv = append(kv, k+"="+c.Settings[k])
			}
			return "{" + strings.Join(kv, ", ") + "}"
		}
	}
	return ""
}

// testText is what a test runs as one text: its statement or client and
// arguments, connections, duration, session settings and before steps,
// so that a changed test is said before its numbers are compared.
func testText(s Side, name string) string {
	st := studyOf(s)
	if st == nil {
		return ""
	}
	t := st.Test(name)
	if t == nil {
		return ""
	}
	var parts []string
	switch {
	case strings.TrimSpace(t.Pgbench) != "":
		parts = append(parts, "pgbench "+strings.TrimSpace(t.Pgbench))
	case strings.TrimSpace(t.Sysbench) != "":
		parts = append(parts, "sysbench "+strings.TrimSpace(t.Sysbench))
	default:
		parts = append(parts, strings.TrimSpace(t.SQL))
	}
	if t.Throughput() {
		parts = append(parts, fmt.Sprintf("clients %d, duration %s", t.Clients, t.Duration.Duration))
	}
	for _, k := range slices.Sorted(maps.Keys(t.Set)) {
		parts = append(parts, "SET "+k+"="+t.Set[k])
	}
	for _, b := range t.Before {
		parts = append(parts, "before: "+b.Value)
	}
	return strings.Join(parts, "; ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
