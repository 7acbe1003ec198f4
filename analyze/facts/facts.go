// Package facts computes a run's facts: the numbers the analysis reads of
// the run's raw text, as the typed rows of samples' fact tables. Collect
// and import compute them when they commit a run; the analysis computes
// them for a capture that lacks them, stores them beside it, and reads
// only them afterwards. One definition serves both, so facts stored and a
// fresh parse of the raw text agree.
//
// The steps, for one run:
//
//  1. disk: each /proc/diskstats snapshot (parse/diskstats) becomes the
//     counters of the run's device, one row per snapshot (disk.go), and
//     those become what the device did over the run and between
//     consecutive snapshots, which is what the analysis reads
//     (figures.go);
//  2. stats: the statistics views' rows (parse/pgstat) become the run's
//     deltas (pg_stat_io, pg_stat_wal, the vacuum counts) and the rows
//     read one by one (pg_stat_activity, pg_settings, relation_sizes,
//     pg_aios) typed (stats.go);
//  3. what a parser could not read becomes the run's problems, as the
//     analysis says them (warnings.go).
//
// Version names how the facts were computed: a change to a parser or to
// this package that changes any fact raises it, and analyses recompute
// the facts of captures stored at an older version.
package facts

import (
	"strings"

	"github.com/pgstudy/pgstudy/samples"
)

// Version is the version of the facts this package computes. Changelog:
//
//	1: disk_facts, io_facts, view_facts, fact_problems, run_facts.
//	2: run_facts counts each run's rows of the other tables (disk_rows,
//	   io_rows, view_rows, problem_rows), and raw_parts is a CRC-32C of
//	   the whole raw parts; problems name the run's id, not its rows'.
//	3: disk_figures and disk_intervals, iostat's figures of the run's
//	   device over the run and between its snapshots, counted by
//	   run_facts' figure_rows and interval_rows: the analysis reads them
//	   instead of disk_facts.
const Version = 3

// Set is the facts of one or more runs.
type Set struct {
	Runs  []samples.RunFact
	Disks []samples.DiskFact
	// Figures and Intervals are the disk figures computed from Disks.
	Figures   []samples.DiskFigure
	Intervals []samples.DiskInterval
	IO        []samples.IOFact
	Views     []samples.ViewFact
	Problems  []samples.FactProblem
}

// Of computes the facts of one run from its raw rows: its diskstats
// snapshots and its statistics rows, in the order the capture holds them.
func Of(run samples.Run, disk []samples.Diskstats, stats []samples.Stat) Set {
	b := NewBuilder(run)
	disks, views := b.Disk(disk), b.Stats(stats)
	s := b.Finish()
	s.Disks, s.Views = disks, views
	return s
}

func (s *Set) addProblems(id int64, source string, msgs []string) {
	for _, m := range msgs {
		s.Problems = append(s.Problems, samples.FactProblem{RunID: id, Source: source, Message: m})
	}
}

// stamp sets the version on every row.
func (s *Set) stamp() {
	for i := range s.Runs {
		s.Runs[i].FactsVersion = Version
	}
	for i := range s.Disks {
		s.Disks[i].FactsVersion = Version
	}
	for i := range s.Figures {
		s.Figures[i].FactsVersion = Version
	}
	for i := range s.Intervals {
		s.Intervals[i].FactsVersion = Version
	}
	for i := range s.IO {
		s.IO[i].FactsVersion = Version
	}
	for i := range s.Views {
		s.Views[i].FactsVersion = Version
	}
	for i := range s.Problems {
		s.Problems[i].FactsVersion = Version
	}
}

// Append adds o's rows to s.
func (s *Set) Append(o Set) {
	s.Runs = append(s.Runs, o.Runs...)
	s.Disks = append(s.Disks, o.Disks...)
	s.Figures = append(s.Figures, o.Figures...)
	s.Intervals = append(s.Intervals, o.Intervals...)
	s.IO = append(s.IO, o.IO...)
	s.Views = append(s.Views, o.Views...)
	s.Problems = append(s.Problems, o.Problems...)
}

// AddTo computes the facts of the run in b and puts them in b, to be
// committed with it.
func AddTo(b *samples.Batch) { NewBuilder(b.Run).AddTo(b) }

// Device is the device a run's disk figures are about: the first it
// names, "" for none (an import's: the busiest is found from the counters).
func Device(run samples.Run) string {
	d, _, _ := strings.Cut(run.Devices, ",")
	return strings.TrimSpace(d)
}
