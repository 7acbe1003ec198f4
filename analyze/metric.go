package analyze

import (
	"cmp"
	"slices"
	"sync"
)

// metric is what the runs of a test are compared on: a timed test's
// time (lower is faster), a throughput test's queries per second (higher
// is faster). The guards that look at every run of a test (position,
// order, drift, change points) and the comparisons read runs through it,
// so that throughput tests get every one of them.
type metric struct {
	name         string // "time" or "qps"
	what         string // "times" or "queries per second", for messages
	unit         string
	higherBetter bool
}

var (
	timeMetric = metric{name: "time", what: "times", unit: "ms"}
	qpsMetric  = metric{name: "qps", what: "queries per second", unit: "q/s", higherBetter: true}
)

func (m metric) value(r *Run) float64 {
	if m.higherBetter {
		return r.Throughput.QPS
	}
	return r.TimeMs
}

// measured says whether a run has a value of its test's metric.
func measured(r *Run) bool {
	return okRun(r) && (r.Throughput != nil || r.HasTime)
}

// metricIndex groups the measured runs by host, test and configuration,
// once: the guards ask for them test by test.
func (a *Analysis) metricIndex() map[key][]*Run {
	if a.byMetric == nil {
		a.byMetric, _ = a.groupRuns(measured)
	}
	return a.byMetric
}

// isThroughput says whether a test is a throughput test on a host.
func (a *Analysis) isThroughput(h, test string) bool {
	for _, c := range a.Configs {
		if runs := a.metricIndex()[key{h, test, c}]; len(runs) > 0 {
			return runs[0].Throughput != nil
		}
	}
	return false
}

func (a *Analysis) metricOf(h, test string) metric {
	if a.isThroughput(h, test) {
		return qpsMetric
	}
	return timeMetric
}

// metricValues are a configuration's values of its test's metric, in
// round order.
func (a *Analysis) metricValues(h, test, config string) []float64 {
	m := a.metricOf(h, test)
	runs := a.metricIndex()[key{h, test, config}]
	xs := make([]float64, len(runs))
	for i, r := range runs {
		xs[i] = m.value(r)
	}
	return xs
}

// testRuns are every measured run of a test on a host, in the order they
// ran; the caller must not change them. Four guards read them, each test
// of each host: they are sorted once (indexTests), not at each call.
func (a *Analysis) testRuns(h, test string) []*Run {
	if a.byTest != nil {
		return a.byTest[[2]string{h, test}]
	}
	return a.sortedTestRuns(h, test)
}

// indexTests makes testRuns's index, of every test of every host, and
// deviceThroughput's (computed at its first call: the drift and
// change-point guards both read it). It is made before the guards, which
// run side by side on copies of the analysis.
func (a *Analysis) indexTests() {
	byTest := map[[2]string][]*Run{}
	devTput := map[string]func() ([]*Run, []float64){}
	for _, h := range a.Hosts {
		for _, test := range a.Tests {
			byTest[[2]string{h, test}] = slices.Clip(a.sortedTestRuns(h, test))
		}
		devTput[h] = sync.OnceValues(func() ([]*Run, []float64) { return a.hostThroughput(h) })
	}
	a.byTest, a.devTput = byTest, devTput
}

func (a *Analysis) sortedTestRuns(h, test string) []*Run {
	var runs []*Run
	for _, c := range a.Configs {
		runs = append(runs, a.metricIndex()[key{h, test, c}]...)
	}
	slices.SortFunc(runs, func(x, y *Run) int { return cmp.Compare(x.Seq, y.Seq) })
	return runs
}
