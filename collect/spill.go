package collect

import (
	"runtime/debug"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// A long statement's window would hold every snapshot its samplers take
// until the run is committed: 18,000 diskstats snapshots in 30 minutes at
// 10 Hz, and pg_aios at 20 Hz on 18, with their facts computed at the
// commit on top. So, while the statement runs, what the samplers keep is
// written into the run's parts (samples.Spill) each time it reaches
// spillBytes, with the run's diskstats and statistics rows recorded so
// far and their facts (facts.Builder): the rows go in the order they
// were recorded, and the facts are those of one pass. The run still
// counts only once it is committed; a run that is not (a hard stop, a
// kill) leaves nothing that counts.

// spillBytes is how much raw text the samplers keep before it is written
// out: a diskstats snapshot's text is what one costs (about 600 bytes
// for a machine of ten block devices: 424 snapshots, 42 s at 10 Hz), a
// pg_aios sample's row about aiosRowBytes. Writing a spill allocates
// some twenty times what it writes (the facts' parse, the Arrow record,
// the Parquet and zstd encoders): 18,000 snapshots (180 s at 100 Hz,
// as many as 30 minutes at 10 Hz) peaked at 84 MiB with 1 MiB, at 56 MiB
// with 256 and 128 KiB (docs/PERFORMANCE.md section 1). A spill writes at least minSpillRows
// of a sampler's rows, so that a machine of a thousand devices does not
// write a row group every few snapshots.
var spillBytes = 256 << 10

const aiosRowBytes = 128

var minSpillRows = 64

// runSpill is a run's rows written out while it goes on.
type runSpill struct {
	sp    *samples.Spill
	facts *facts.Builder // the facts of the rows spilled, and then of the rest
}

// spilling is a window's writer of what its samplers keep: a goroutine
// that waits for either to be full.
type spilling struct {
	full chan struct{} // a sampler keeps spillBytes' worth
	quit chan struct{}
	done chan struct{}
}

// startSpilling has the samplers signal when they are full, and starts
// the goroutine that writes their rows out then. It must run after the
// window's before snapshots are recorded: they go first.
func (w *window) startSpilling() {
	w.spills = spilling{full: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	w.samp.signalAt(max(spillBytes/max(len(w.before.Text), 1), minSpillRows), w.spills.full)
	w.aios.signalAt(max(spillBytes/aiosRowBytes, minSpillRows), w.spills.full)
	go func() {
		defer close(w.spills.done)
		for {
			select {
			case <-w.spills.quit:
				return
			case <-w.spills.full:
				if !w.spill() {
					return // the rows stay in memory
				}
			}
		}
	}()
}

// stopSpilling waits for a spill in progress: after it, every row taken
// from the samplers is recorded or written out.
func (w *window) stopSpilling() {
	close(w.spills.quit)
	<-w.spills.done
}

// spill writes the rows the run has recorded so far and the samplers'
// out, with their facts. It returns false when spilling must stop: the
// spill could not start (nothing was taken: the rows stay in memory), or
// a write failed (the run cannot be committed whole, and its commit says
// why).
func (w *window) spill() bool {
	rec := w.rec
	if rec.spill == nil {
		rec.mu.Lock()
		run := rec.b.Run
		rec.mu.Unlock()
		sp, err := w.c.w.Spill(run.RunID)
		if err != nil {
			return false
		}
		rec.spill = &runSpill{sp: sp, facts: facts.NewBuilder(run)}
	}
	snaps, aios := w.samp.Take(), w.aios.Take()
	rec.mu.Lock()
	rec.diskstatsLocked("sample", snaps, w.Start)
	rec.b.Stats = append(rec.b.Stats, aios...)
	b := &samples.Batch{Diskstats: rec.b.Diskstats, Stats: rec.b.Stats}
	rec.b.Diskstats, rec.b.Stats = nil, nil
	rec.mu.Unlock()
	b.DiskFacts, b.ViewFacts = rec.spill.facts.Disk(b.Diskstats), rec.spill.facts.Stats(b.Stats)
	err := rec.spill.sp.Write(b)
	// What the spill allocated is garbage now, and the collector is idle
	// until the next: left to the garbage collector's pace and the
	// runtime's slow return of free pages, it stayed resident, and 18,000
	// snapshots peaked at 101 MiB instead of 56. A collection
	// of a heap of a few MiB, every 40 s at 10 Hz, costs nothing to see.
	debug.FreeOSMemory()
	return err == nil
}

// commit writes the run with its facts, through its spill when rows were
// written out while it went on.
func (r *recorder) commit(w *samples.Writer) error {
	if r.spill == nil {
		facts.AddTo(r.b) // what the analysis reads of the raw text, typed, committed with it
		return w.Commit(r.b)
	}
	r.spill.facts.AddTo(r.b)
	return r.spill.sp.Commit(r.b)
}

// discard gives up a run that is not committed: what it wrote out is
// removed.
func (r *recorder) discard() {
	if r.spill != nil {
		r.spill.sp.Discard()
	}
}
