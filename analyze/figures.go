package analyze

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/pgstudy/pgstudy/analyze/stats"
)

// The series the report's figures draw, for one host: chosen, ordered and
// summarised here, so that render only lays them out. Each is computed
// from the Analysis when asked for, so an Analysis built or changed by
// hand draws as one from Analyze does.

// ConfigIndex is a configuration's place in a.Configs; one the analysis
// does not list comes after all.
func (a *Analysis) ConfigIndex(config string) int {
	if i := slices.Index(a.Configs, config); i >= 0 {
		return i
	}
	return len(a.Configs)
}

// HostTimings are host's timings of test with at least one round, in the
// order of the configurations.
func (a *Analysis) HostTimings(host, test string) []Timing {
	var out []Timing
	for _, t := range a.Timings {
		if t.Host == host && t.Test == test && len(t.Rounds) > 0 {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(x, y Timing) int { return cmp.Compare(a.ConfigIndex(x.Config), a.ConfigIndex(y.Config)) })
	return out
}

// HostRuns are host's runs of test that succeeded and pass keep, in the
// order of the configurations, then of the rounds.
func (a *Analysis) HostRuns(host, test string, keep func(*Run) bool) []*Run {
	var out []*Run
	for _, r := range a.Runs {
		if r.Host == host && r.Test == test && r.Status == "ok" && keep(r) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(x, y *Run) int {
		return cmp.Or(cmp.Compare(a.ConfigIndex(x.Config), a.ConfigIndex(y.Config)), cmp.Compare(x.Round, y.Round), cmp.Compare(x.RunID, y.RunID))
	})
	return out
}

// runConfigs lists the configurations of runs, in the order they come.
func runConfigs(runs []*Run) []string {
	var out []string
	for _, r := range runs {
		if !slices.Contains(out, r.Config) {
			out = append(out, r.Config)
		}
	}
	return out
}

// InRoundOrder is the timing's rounds in the order of the rounds.
func (t Timing) InRoundOrder() []RoundValue {
	rs := slices.Clone(t.Rounds)
	slices.SortStableFunc(rs, func(x, y RoundValue) int {
		return cmp.Or(cmp.Compare(x.Round, y.Round), cmp.Compare(x.RunID, y.RunID))
	})
	return rs
}

// RatioSeries is each configuration's median relative to the baseline's,
// for the tests where one was computed: of times, or of a throughput
// test's queries per second (QPS).
type RatioSeries struct {
	QPS     bool // ratios of queries per second (above 1 is faster), not of times
	Rows    []RatioRow
	Configs []string // the configurations compared, in order
	Rounds  []int    // the distinct numbers of rounds of the medians (the baseline's too), ascending
	// NoInterval is set when a ratio has too few rounds for an interval.
	NoInterval bool
	// Lo and Hi bound the ratios, their intervals and 1.
	Lo, Hi float64
}

// RatioRow is one test's comparisons, in the order of the configurations.
type RatioRow struct {
	Test  string
	Cells []RatioCell
}

// RatioCell is one configuration against the baseline in a test.
type RatioCell struct {
	Config  string
	Compare *TimingCompare
}

// ratioSide is a configuration's comparison in a test and its rounds.
type ratioSide struct {
	config  string
	compare *TimingCompare // nil for the baseline
	rounds  int
}

// Ratios is the host's ratios of times to the baseline; false when none
// was computed.
func (a *Analysis) Ratios(host string) (RatioSeries, bool) {
	return a.ratios(false, func(test string) []ratioSide {
		var out []ratioSide
		for _, t := range a.HostTimings(host, test) {
			out = append(out, ratioSide{t.Config, t.Compare, len(t.Rounds)})
		}
		return out
	})
}

// QPSRatios is the host's ratios of throughput tests' QPS to the
// baseline's (seed 003's relative QPS); false when none was computed.
func (a *Analysis) QPSRatios(host string) (RatioSeries, bool) {
	return a.ratios(true, func(test string) []ratioSide {
		var out []ratioSide
		for _, c := range a.Configs {
			if g := a.throughput(host, test, c); g != nil {
				out = append(out, ratioSide{c, g.Compare, g.N})
			}
		}
		return out
	})
}

func (a *Analysis) ratios(qps bool, sides func(test string) []ratioSide) (RatioSeries, bool) {
	s := RatioSeries{QPS: qps}
	all := []float64{}
	ns := map[int]bool{}
	for _, test := range a.Tests {
		var cells []RatioCell
		var base []int
		for _, sd := range sides(test) {
			if sd.config == a.Baseline {
				base = append(base, sd.rounds)
			}
			c := sd.compare
			if c == nil || !(c.Ratio > 0) || math.IsInf(c.Ratio, 0) {
				continue
			}
			cells = append(cells, RatioCell{sd.config, c})
			if !slices.Contains(s.Configs, sd.config) {
				s.Configs = append(s.Configs, sd.config)
			}
			all = append(all, c.Ratio)
			if c.CIValid {
				all = append(all, c.Lo, c.Hi)
			} else {
				s.NoInterval = true
			}
			ns[sd.rounds] = true
		}
		if len(cells) > 0 {
			s.Rows = append(s.Rows, RatioRow{test, cells})
			for _, n := range base {
				ns[n] = true
			}
		}
	}
	if len(s.Rows) == 0 {
		return RatioSeries{}, false
	}
	slices.SortStableFunc(s.Configs, func(x, y string) int { return cmp.Compare(a.ConfigIndex(x), a.ConfigIndex(y)) })
	all = append(all, 1)
	s.Lo, s.Hi = slices.Min(all), slices.Max(all)
	s.Rounds = slices.Sorted(maps.Keys(ns))
	return s, true
}

// ReadSeries is the read requests of each run of a test and their size.
type ReadSeries struct {
	Runs    []*Run // with disk figures, in the order of HostRuns
	Configs []string
	// MedianBytes is the median of the bytes the runs read; SameBytes is
	// set when three runs in four read within 15% of it, so that a curve
	// of equal volume through it describes them.
	MedianBytes float64
	SameBytes   bool
	// PGBytes is the median of the bytes PostgreSQL read (pg_stat_io) in
	// the same runs, nil unless every run has it and the configurations'
	// own medians are within 15% of each other (one curve would otherwise
	// stand for a byte count none of them read); PGByConfig holds those
	// medians, by configuration, whenever every run has the figure.
	PGBytes    *float64
	PGByConfig map[string]float64
}

// Reads is the host's read requests of test; false when no run has disk
// figures or the runs did not read the disk (readsDisk).
func (a *Analysis) Reads(host, test string) (ReadSeries, bool) {
	runs := a.HostRuns(host, test, func(r *Run) bool { return r.Disk != nil && !r.Disk.Reset })
	if len(runs) == 0 {
		return ReadSeries{}, false
	}
	var bytesRead []float64
	for _, r := range runs {
		bytesRead = append(bytesRead, r.Disk.ReadBytes)
	}
	if !readsDisk(runs) {
		return ReadSeries{}, false
	}
	med := stats.Median(bytesRead)
	vol := med / 1024 // KiB
	near := 0
	for _, b := range bytesRead {
		if math.Abs(b/1024-vol) <= 0.15*vol {
			near++
		}
	}
	s := ReadSeries{Runs: runs, Configs: runConfigs(runs), MedianBytes: med, SameBytes: 4*near >= 3*len(bytesRead)}
	var pg []float64
	for _, r := range runs {
		if r.PGReads != nil {
			pg = append(pg, *r.PGReads)
		}
	}
	if len(pg) == len(runs) {
		s.PGByConfig = map[string]float64{}
		lo, hi := math.Inf(1), 0.0
		for _, c := range s.Configs {
			var xs []float64
			for _, r := range runs {
				if r.Config == c {
					xs = append(xs, *r.PGReads)
				}
			}
			m := stats.Median(xs)
			s.PGByConfig[c] = m
			lo, hi = min(lo, m), max(hi, m)
		}
		if hi <= lo*1.15 {
			s.PGBytes = median(pg)
		}
	}
	return s, true
}

// VacuumSeries is what VACUUM VERBOSE reported in each round of a test.
type VacuumSeries struct {
	Rows    []VacuumRow // by round, then configuration
	Rounds  []int       // ascending
	Configs []string    // in the order of the configurations
}

// VacuumRounds is the host's vacuum figures of test; false when there is
// none.
func (a *Analysis) VacuumRounds(host, test string) (VacuumSeries, bool) {
	var s VacuumSeries
	for _, r := range a.Vacuums {
		if r.Host == host && r.Test == test {
			s.Rows = append(s.Rows, r)
		}
	}
	if len(s.Rows) == 0 {
		return VacuumSeries{}, false
	}
	slices.SortStableFunc(s.Rows, func(x, y VacuumRow) int {
		return cmp.Or(cmp.Compare(x.Round, y.Round), cmp.Compare(a.ConfigIndex(x.Config), a.ConfigIndex(y.Config)), cmp.Compare(x.RunID, y.RunID))
	})
	for _, r := range s.Rows {
		if !slices.Contains(s.Rounds, r.Round) {
			s.Rounds = append(s.Rounds, r.Round)
		}
		if !slices.Contains(s.Configs, r.Config) {
			s.Configs = append(s.Configs, r.Config)
		}
	}
	slices.Sort(s.Rounds)
	slices.SortStableFunc(s.Configs, func(x, y string) int { return cmp.Compare(a.ConfigIndex(x), a.ConfigIndex(y)) })
	return s, true
}

// DiskSeries is the device's throughput over each run of a test.
type DiskSeries struct {
	Runs    []DiskRun // runs with a series, in the order of HostRuns
	Configs []string
	Device  string // the first run's
	Limit   Limit  // the study's for the device; zero when it gives none
	// Short counts, by configuration, the runs left out because they
	// ended before the first sample: shorter than the sampling interval.
	Short map[string]int
	// Writes is set when the statements wrote (a run generated 1 MiB of
	// WAL, or its server's cgroup wrote 1 MiB): only then are the device's
	// writes the test's. OthersWrote is otherwise the most the device
	// wrote during a run (bytes), other processes' or the kernel's.
	Writes      bool
	OthersWrote float64
}

// DiskRun is one run's throughput, step by step.
type DiskRun struct {
	Run   *Run
	Steps []DiskStep
}

// DiskStep is the device's rates over an interval between snapshots.
// Break is set on the first step after an interval that could not be
// measured. A last interval shorter than half the one before it (the
// statement ended soon after a sample) is merged into it, its bytes and
// seconds added, so that a rate over a few milliseconds shows as no
// spike.
type DiskStep struct {
	StartS, EndS        float64 // from the start of the statement
	ReadMiBs, WriteMiBs float64
	Break               bool
}

// DiskThroughput is the host's disk throughput during the runs of test;
// false when fewer than half the runs have a series, or when the
// statements wrote nothing and did not read the disk (readsDisk: a
// throughput test on cached data, whose figure would be other processes'
// I/O).
func (a *Analysis) DiskThroughput(host, test string) (DiskSeries, bool) {
	all := a.HostRuns(host, test, func(*Run) bool { return true })
	s := DiskSeries{Short: map[string]int{}}
	for _, r := range all {
		if steps := diskSteps(r.Series); len(steps) > 0 {
			s.Runs = append(s.Runs, DiskRun{Run: r, Steps: steps})
		} else {
			s.Short[r.Config]++
		}
	}
	if len(s.Runs) == 0 || 2*len(s.Runs) < len(all) {
		return DiskSeries{}, false
	}
	var runs []*Run
	for _, r := range s.Runs {
		runs = append(runs, r.Run)
		wrote := r.Run.WALBytes != nil && *r.Run.WALBytes >= 1<<20
		if r.Run.Server != nil {
			wrote = wrote || r.Run.Server.WriteBytes >= 1<<20
		}
		s.Writes = s.Writes || wrote
		if r.Run.Disk != nil {
			s.OthersWrote = max(s.OthersWrote, r.Run.Disk.WriteBytes)
		}
	}
	if s.Writes || s.OthersWrote < 1<<20 {
		s.OthersWrote = 0
	}
	if !s.Writes && !readsDisk(runs) {
		return DiskSeries{}, false // nothing of the test's on the disk: cached work
	}
	s.Configs, s.Device = runConfigs(runs), runs[0].Device
	s.Limit, _ = a.Limit(host, s.Device)
	return s, true
}

// readsDisk reports whether the runs read from the disk: the device's
// median run read 1 MiB, and so did PostgreSQL's (pg_stat_io) where every
// run has the figure; what the device read for a test whose server read
// nothing from the kernel is other processes'.
func readsDisk(runs []*Run) bool {
	var dev, pg []float64
	for _, r := range runs {
		if r.Disk != nil {
			dev = append(dev, r.Disk.ReadBytes)
		}
		if r.PGReads != nil {
			pg = append(pg, *r.PGReads)
		}
	}
	if len(dev) == 0 || stats.Median(dev) < 1<<20 {
		return false
	}
	return len(pg) < len(runs) || stats.Median(pg) >= 1<<20
}

// diskSteps are a run's measured intervals as steps (DiskStep).
func diskSteps(series []DiskInterval) []DiskStep {
	var out []DiskStep
	brk := false
	for _, iv := range series {
		st := iv.Stats
		if st.Reset || !(st.Seconds > 0) {
			brk = len(out) > 0
			continue
		}
		out = append(out, DiskStep{StartS: iv.OffsetS - st.Seconds, EndS: iv.OffsetS, ReadMiBs: st.RKiBPerS / 1024, WriteMiBs: st.WKiBPerS / 1024, Break: brk})
		brk = false
	}
	if n := len(out); n >= 2 && !out[n-1].Break {
		last, prev := out[n-1], out[n-2]
		ls, ps := last.EndS-last.StartS, prev.EndS-prev.StartS
		if ls < ps/2 {
			mean := func(x, y float64) float64 { return (x*ps + y*ls) / (ps + ls) }
			out[n-2] = DiskStep{StartS: prev.StartS, EndS: last.EndS, ReadMiBs: mean(prev.ReadMiBs, last.ReadMiBs),
				WriteMiBs: mean(prev.WriteMiBs, last.WriteMiBs), Break: prev.Break}
			out = out[:n-1]
		}
	}
	return out
}

// PositionSeries is a test's times by position in the round.
type PositionSeries struct {
	Positions []int // ascending
	Lines     []PositionLine
}

// PositionLine is one configuration's times at each position.
type PositionLine struct {
	Config string
	Rounds int
	Median float64 // of all its rounds
	// At holds the times (ms) at each of Positions, in round order;
	// Medians their medians (0 where At is empty).
	At      [][]float64
	Medians []float64
}

// Positions is the host's times of test by position in the round; false
// when the runs took fewer than two positions.
func (a *Analysis) Positions(host, test string) (PositionSeries, bool) {
	tims := a.HostTimings(host, test)
	var s PositionSeries
	for _, t := range tims {
		for _, r := range t.Rounds {
			if !slices.Contains(s.Positions, r.Position) {
				s.Positions = append(s.Positions, r.Position)
			}
		}
	}
	if len(s.Positions) < 2 {
		return PositionSeries{}, false
	}
	slices.Sort(s.Positions)
	for _, t := range tims {
		l := PositionLine{Config: t.Config, Rounds: len(t.Rounds), Median: t.Summary.Median}
		for _, pos := range s.Positions {
			var at []float64
			for _, r := range t.InRoundOrder() {
				if r.Position == pos {
					at = append(at, r.TimeMs)
				}
			}
			l.At = append(l.At, at)
			l.Medians = append(l.Medians, stats.Median(at))
		}
		s.Lines = append(s.Lines, l)
	}
	return s, true
}

// QPSSeries is a throughput test's queries per second in each round, by
// configuration.
type QPSSeries struct {
	Lines []QPSLine // in the order of the configurations
	// Baseline is the baseline's median QPS, 0 when it did not run the test.
	Baseline float64
}

// QPSLine is one configuration's rounds of a throughput test.
type QPSLine struct {
	Config  string
	Summary stats.Summary // of the rounds' QPS, as the throughput table's
	Rounds  []int         // each run's round, in round order
	QPS     []float64     // each run's queries per second, parallel to Rounds
}

// QPSRounds is the host's QPS of throughput test; false when it has no
// throughput run.
func (a *Analysis) QPSRounds(host, test string) (QPSSeries, bool) {
	runs := a.HostRuns(host, test, func(r *Run) bool { return r.Throughput != nil })
	var s QPSSeries
	for _, c := range runConfigs(runs) {
		g := a.throughput(host, test, c)
		if g == nil {
			continue
		}
		l := QPSLine{Config: c, Summary: g.QPS}
		for _, r := range runs {
			if r.Config == c {
				l.Rounds = append(l.Rounds, r.Round)
				l.QPS = append(l.QPS, r.Throughput.QPS)
			}
		}
		if c == a.Baseline {
			s.Baseline = g.QPS.Median
		}
		s.Lines = append(s.Lines, l)
	}
	return s, len(s.Lines) > 0
}
