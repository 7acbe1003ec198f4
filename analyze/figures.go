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
// for the tests where one was computed.
type RatioSeries struct {
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
	Test    string
	Timings []Timing
}

// Ratios is the host's ratios to the baseline; false when none was
// computed.
func (a *Analysis) Ratios(host string) (RatioSeries, bool) {
	var s RatioSeries
	all := []float64{}
	ns := map[int]bool{}
	for _, test := range a.Tests {
		var cmpd []Timing
		for _, t := range a.HostTimings(host, test) {
			if t.Compare == nil || !(t.Compare.Ratio > 0) || math.IsInf(t.Compare.Ratio, 0) {
				continue
			}
			cmpd = append(cmpd, t)
			if !slices.Contains(s.Configs, t.Config) {
				s.Configs = append(s.Configs, t.Config)
			}
			all = append(all, t.Compare.Ratio)
			if t.Compare.CIValid {
				all = append(all, t.Compare.Lo, t.Compare.Hi)
			} else {
				s.NoInterval = true
			}
			ns[len(t.Rounds)] = true
		}
		if len(cmpd) > 0 {
			s.Rows = append(s.Rows, RatioRow{test, cmpd})
		}
	}
	if len(s.Rows) == 0 {
		return RatioSeries{}, false
	}
	for _, r := range s.Rows {
		for _, b := range a.HostTimings(host, r.Test) {
			if b.Config == a.Baseline {
				ns[len(b.Rounds)] = true
			}
		}
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
// figures or the runs read less than 1 MiB (median).
func (a *Analysis) Reads(host, test string) (ReadSeries, bool) {
	runs := a.HostRuns(host, test, func(r *Run) bool { return r.Disk != nil && !r.Disk.Reset })
	if len(runs) == 0 {
		return ReadSeries{}, false
	}
	var bytesRead []float64
	for _, r := range runs {
		bytesRead = append(bytesRead, r.Disk.ReadBytes)
	}
	med := stats.Median(bytesRead)
	if med < 1<<20 {
		return ReadSeries{}, false
	}
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
	Runs    []*Run // with a series, in the order of HostRuns
	Configs []string
	Device  string // the first run's
	Limit   Limit  // the study's for the device; zero when it gives none
	// Writes is set when a run wrote at least 1 MiB.
	Writes bool
}

// DiskThroughput is the host's disk throughput during the runs of test;
// false when fewer than half the runs have a series (runs shorter than
// the sampling interval have none).
func (a *Analysis) DiskThroughput(host, test string) (DiskSeries, bool) {
	runs := a.HostRuns(host, test, func(r *Run) bool { return len(r.Series) > 0 })
	if len(runs) == 0 || 2*len(runs) < len(a.HostRuns(host, test, func(*Run) bool { return true })) {
		return DiskSeries{}, false
	}
	s := DiskSeries{Runs: runs, Configs: runConfigs(runs), Device: runs[0].Device}
	for _, r := range runs {
		s.Writes = s.Writes || (r.Disk != nil && r.Disk.WriteBytes >= 1<<20)
	}
	s.Limit, _ = a.Limit(host, s.Device)
	return s, true
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
