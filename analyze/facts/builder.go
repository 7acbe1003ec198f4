package facts

import "github.com/pgstudy/pgstudy/samples"

// Builder computes one run's facts a chunk of its raw rows at a time, for
// a run too long to hold whole: collect writes a long statement's
// snapshots out as they come, with their facts. The facts of each
// snapshot and of each row read one by one are returned as they are
// computed; the run's own (its deltas, the pg_stat_io rows that moved, its
// problems) come from Finish, once every row was given. Given every row at
// once it is Of, so that chunks give the facts one pass gives.
type Builder struct {
	run   samples.Run
	warns Warnings // of the diskstats parser, counted over the whole run
	disk  []string // diskstats problems, in the order of their snapshots
	stats *statRows
	// series computes the disk figures from the disk facts as they come.
	series series
	// disks and views count the rows returned, for the run's row
	// (RunFact.DiskRows, ViewRows).
	disks, views int64
}

// NewBuilder starts the facts of run (its id, and its devices, which say
// whose counters are kept).
func NewBuilder(run samples.Run) *Builder {
	return &Builder{run: run, stats: newStatRows(run.RunID), series: series{run: run, dev: Device(run)}}
}

// Disk returns the facts of the run's next diskstats snapshots.
func (b *Builder) Disk(rows []samples.Diskstats) []samples.DiskFact {
	s := Set{Disks: diskFacts(b.run, rows, &b.warns, &b.disk)}
	b.series.add(s.Disks)
	s.stamp()
	b.disks += int64(len(s.Disks))
	return s.Disks
}

// Stats reads the run's next statistics rows and returns the facts of
// those read one by one; the deltas wait for Finish.
func (b *Builder) Stats(rows []samples.Stat) []samples.ViewFact {
	b.stats.add(rows)
	s := Set{Views: b.stats.views}
	b.stats.views = nil
	s.stamp()
	b.views += int64(len(s.Views))
	return s.Views
}

// Finish returns the run's own facts from every row given: its figures,
// its disk figures over the run and between snapshots, the pg_stat_io rows
// that moved, and its problems (the diskstats', then the statistics').
// The disk and view facts were returned as computed.
func (b *Builder) Finish() Set {
	var s Set
	fig, intervals, computed := b.series.finish()
	if fig != nil {
		s.Figures = []samples.DiskFigure{*fig}
	}
	s.Intervals = intervals
	s.addProblems(b.run.RunID, "diskstats", append(b.disk, b.warns.Messages()...))
	s.Runs = []samples.RunFact{b.stats.finish()}
	s.IO = ioDeltas(b.run.RunID, b.stats.ioBefore, b.stats.ioAfter)
	s.addProblems(b.run.RunID, "stats", b.stats.warns.Messages())
	rf := &s.Runs[0]
	n := func(v int64) *int64 { return &v }
	rf.DiskRows, rf.IORows, rf.ViewRows, rf.ProblemRows = n(b.disks), n(int64(len(s.IO))), n(b.views), n(int64(len(s.Problems)))
	if computed { // else null: the analysis computes the figures from the raw text
		rf.FigureRows, rf.IntervalRows = n(int64(len(s.Figures))), n(int64(len(s.Intervals)))
	}
	s.stamp()
	return s
}

// AddTo computes the facts of the rows b holds, after those the builder
// was given already, and puts them and the run's own facts in b, to be
// committed with it.
func (b *Builder) AddTo(batch *samples.Batch) {
	disks, views := b.Disk(batch.Diskstats), b.Stats(batch.Stats)
	s := b.Finish()
	batch.RunFacts, batch.DiskFacts, batch.IOFacts, batch.ViewFacts, batch.FactProblems = s.Runs, disks, s.IO, views, s.Problems
	batch.DiskFigures, batch.Intervals = s.Figures, s.Intervals
}
