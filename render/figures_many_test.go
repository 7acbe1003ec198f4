package render

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/analyze/stats"
)

// manyAnalysis is shaped like seed 003's study, built by hand: a baseline
// and five matrix configurations with long names, throughput tests of
// cached data (QPS within a few percent; the device read 5 MiB during
// each run, PostgreSQL nothing) and one cold
// timed scan, six rounds in rotating order, the disk sampled every 250ms.
// Runs of the scan in round 1 are shorter than one interval; the scan's
// device also saw other processes write, though the scan wrote nothing.
func manyAnalysis() *analyze.Analysis {
	a := &analyze.Analysis{Hosts: []string{"ser7"}, Baseline: "pg17", Confidence: 0.95, Alpha: 0.05,
		Tests: []string{"seqscan", "point-query_range=100", "range-covered-pk_range=100", "scan", "read-only_range=10", "update-index_range=100"}}
	a.Configs = []string{"pg17"}
	eic := map[string]string{"pg17": "1"}
	method := map[string]string{"pg17": ""}
	for _, m := range []string{"sync", "worker", "io_uring"} {
		for _, e := range []string{"1", "16"} {
			if m == "sync" && e == "16" {
				continue
			}
			c := "pg18.io_method-" + m + ".effective_io_concurrency-" + e
			a.Configs = append(a.Configs, c)
			eic[c], method[c] = e, m
		}
	}
	a.Settings = []analyze.SettingRow{
		{Host: "ser7", Name: "effective_io_concurrency", Values: eic, Declared: true, Relevant: true},
		{Host: "ser7", Name: "io_method", Values: method, Declared: true, Relevant: true},
	}
	a.Setups = []analyze.Setup{{Host: "ser7", Sample: 250 * time.Millisecond}}
	id := int64(0)
	for ti, test := range a.Tests {
		base := []float64{}
		for ci, c := range a.Configs {
			var xs []float64
			var rounds []analyze.RoundValue
			for r := 1; r <= 6; r++ {
				id++
				jitter := 1 + 0.01*float64((int(id)*7)%5)
				run := &analyze.Run{Host: "ser7", RunID: id, Round: r, Position: (ci+r)%len(a.Configs) + 1, Config: c, Test: test, Status: "ok", Device: "nvme0n1"}
				if ti == 0 {
					ms := (2000 - 150*float64(ci)) * jitter
					if r == 1 && ci < 2 {
						ms = 200 // a scan shorter than the sampling interval: no series
					}
					run.Kind, run.TimeMs, run.HasTime = "timed", ms, true
					run.Disk = &iostat.Stats{ReadBytes: 2 << 30, Reads: 20000 - 2000*float64(ci), RAreqSzKiB: 100 + 25*float64(ci), WriteBytes: 8 << 20}
					run.Series = diskSeries(ms/1000, 0.25, 900+40*float64(ci)+float64(r), 6)
					xs = append(xs, ms)
					rounds = append(rounds, analyze.RoundValue{Round: r, Position: run.Position, RunID: id, TimeMs: ms})
				} else {
					qps := 12000 / float64(ti) * (1 - 0.01*float64(ci%4)) * jitter
					run.Kind = "throughput"
					run.Throughput = &analyze.ThroughputRun{Client: "sysbench", QPS: qps, DurationS: 600, QueriesKnown: true}
					// Other processes read 5 MiB; PostgreSQL read nothing.
					none := 0.0
					run.Disk, run.PGReads = &iostat.Stats{ReadBytes: 5 << 20, Reads: 160, RAreqSzKiB: 32}, &none
					run.Series = diskSeries(600, 60, 0.01, 0)
					xs = append(xs, qps)
				}
				a.Runs = append(a.Runs, run)
			}
			if ti == 0 {
				tm := analyze.Timing{Host: "ser7", Test: test, Config: c, Rounds: rounds, Summary: stats.Summarize(xs, 0.95)}
				if ci == 0 {
					base = xs
				} else {
					cmp := stats.Compare(base, xs, 0.95, 0.05)
					tm.Compare = &analyze.TimingCompare{Comparison: cmp, PAdjusted: cmp.P, Significant: cmp.Significant}
				}
				a.Timings = append(a.Timings, tm)
				continue
			}
			g := analyze.ThroughputGroup{Host: "ser7", Test: test, Config: c, N: len(xs), QPS: stats.Summarize(xs, 0.95)}
			if ci == 0 {
				base = xs
			} else {
				cmp := stats.Compare(base, xs, 0.95, 0.05)
				g.Compare = &analyze.TimingCompare{Comparison: cmp, PAdjusted: cmp.P, Significant: cmp.Significant}
			}
			a.Throughputs = append(a.Throughputs, g)
		}
	}
	return a
}

// diskSeries is a run of secs seconds sampled every step: reads at about
// mibs MiB/s, other processes' writes at otherMiBs, and a last partial
// interval a tenth of a step long whose rate is four times the others'.
func diskSeries(secs, step, mibs, otherMiBs float64) []analyze.DiskInterval {
	var out []analyze.DiskInterval
	for k := 1; float64(k)*step <= secs; k++ {
		t := float64(k) * step
		out = append(out, analyze.DiskInterval{OffsetS: t, Stats: analyze.IntervalStats{Seconds: step,
			RKiBPerS: 1024 * mibs * (1 + 0.05*math.Sin(t*3)), WKiBPerS: 1024 * otherMiBs}})
	}
	if n := len(out); n > 0 {
		end := out[n-1].OffsetS + step/10
		out = append(out, analyze.DiskInterval{OffsetS: end, Stats: analyze.IntervalStats{Seconds: step / 10, RKiBPerS: 4096 * mibs}})
	}
	return out
}

// TestFiguresMany draws the figures of a study shaped like seed 003.
func TestFiguresMany(t *testing.T) {
	figs := Figures(manyAnalysis())
	got := names(figs)
	for _, want := range []string{"ratios", "qps-ratios", "times-seqscan", "disk-seqscan", "qps-scan", "qps-point-query_range-100"} {
		if !slices.Contains(got, want) {
			t.Errorf("no figure %s; got %s", want, strings.Join(got, " "))
		}
	}
	renderFigures(t, figs, "many")
	for _, f := range figs {
		if !strings.Contains(f.Caption, "eic is effective_io_concurrency") {
			t.Errorf("%s: the caption does not say what eic stands for: %q", f.Name, f.Caption)
		}
		for _, s := range f.texts() {
			if strings.Contains(s, "effective_io_concurrency") {
				t.Errorf("%s draws the long name %q", f.Name, s)
			}
		}
	}
	// Every run of a configuration read the same: a clump of six dots.
	r := figureNamed(t, figs, "reads-seqscan")
	if !strings.Contains(r.Caption, "drawn as a clump of dots around it, one dot per run") {
		t.Errorf("reads-seqscan does not say how it draws stacked runs: %q", r.Caption)
	}
	// A dot is a fill at opacity 0.8: 36 runs and 6 in the legend.
	svg := string(renderFigures(t, []Figure{r}, "")["reads-seqscan.svg"])
	if n := strings.Count(svg, "fill-opacity:0.8"); n != 36+6 {
		t.Errorf("reads-seqscan draws %d dots, want one per run and per legend entry, 42", n)
	}
	if cl := newClumps(plotter.XYs{{X: 1, Y: 2}, {X: 1, Y: 2}, {X: 5, Y: 2}, {X: 1.001, Y: 2}}, 0.01, 0.01, neutral); !slices.Equal(cl.counts, []int{3, 1}) {
		t.Errorf("clumps of 3 coinciding points and one apart: %v", cl.counts)
	}
	// The scan's round-1 runs of two configurations were shorter than the
	// sampling interval; the others' writes during it are not the scan's.
	d := figureNamed(t, figs, "disk-seqscan")
	for _, want := range []string{"Left out: 2 runs with no measured interval, shorter than one sampling interval (1 of pg17, 1 of pg18.io_method-sync.effective_io_concurrency-1)",
		"Writes are not drawn", "up to 8.00 MiB", "one panel per configuration"} {
		if !strings.Contains(d.Caption, want) {
			t.Errorf("disk-seqscan caption lacks %q: %q", want, d.Caption)
		}
	}
	if slices.Contains(d.texts(), "written") {
		t.Error("disk-seqscan draws writes the scan did not make")
	}
	// Cached throughput tests read nothing: no disk figure, a QPS one.
	for _, name := range []string{"disk-scan", "reads-scan"} {
		if slices.Contains(names(figs), name) {
			t.Errorf("figure %s of a cached throughput test (other processes' reads)", name)
		}
	}
	qr := figureNamed(t, figs, "qps-ratios")
	if qr.Title != "QPS relative to pg17, with 95% intervals" || !strings.Contains(qr.Caption, "queries per second of each throughput test") {
		t.Errorf("qps-ratios: %q, %q", qr.Title, qr.Caption)
	}
	if rt := figureNamed(t, figs, "ratios"); strings.Contains(rt.Caption, "throughput") {
		t.Errorf("the ratios of times speak of throughput: %q", rt.Caption)
	}
	q := figureNamed(t, figs, "qps-scan")
	if !strings.Contains(q.Caption, "dots are rounds") || !strings.Contains(q.Caption, "pg17's median") {
		t.Errorf("qps caption: %q", q.Caption)
	}
}

// TestFigureLongNames: names no shortening applies to are cut in their
// middle to fit: no text of a figure runs past its edge, and a name down
// the y axis takes at most 40% of the width.
func TestFigureLongNames(t *testing.T) {
	long := []string{"x.pg176_o2nofp.x10a_c8r32.pk1.with-a-suffix-long-enough-to-run-past-any-blog-column-a",
		"x.pg18beta3_o2nofp.x10b2_c8r32.pk1.with-a-suffix-long-enough-to-run-past-any-blog-column-b"}
	a := &analyze.Analysis{Hosts: []string{"h"}, Configs: long, Baseline: long[0], Tests: []string{"scan"}, Confidence: 0.95, Alpha: 0.05}
	for i, c := range long {
		xs := []float64{100, 101, 102, 103, 104, 105}
		tm := analyze.Timing{Host: "h", Test: "scan", Config: c, Summary: stats.Summarize(xs, 0.95)}
		for r, ms := range xs {
			tm.Rounds = append(tm.Rounds, analyze.RoundValue{Round: r + 1, Position: i + 1, TimeMs: ms})
		}
		a.Timings = append(a.Timings, tm)
	}
	figs := Figures(a)
	renderFigures(t, figs, "long")
	f := figureNamed(t, figs, "times-scan")
	ts := textStyle(titleSize, true) // the widest style: a bound for every text
	var cut []string
	for _, s := range f.texts() {
		if w := ts.Width(s); w > figureWidth {
			t.Errorf("%q is %.0f pt wide, past the figure's %.0f", s, w.Points(), figureWidth.Points())
		}
		if strings.Contains(s, "…") {
			cut = append(cut, s)
			if w := textStyle(tickSize, false).Width(s); w > 0.4*figureWidth {
				t.Errorf("%q is %.0f pt wide, more than 40%% of the figure", s, w.Points())
			}
		}
	}
	// Both names cut, in the axis: their ends still tell them apart.
	slices.Sort(cut)
	if len(cut) != 2 || cut[0] == cut[1] || !strings.HasSuffix(cut[0], "-a") || !strings.HasSuffix(cut[1], "-b") {
		t.Errorf("names cut: %q", cut)
	}
}
