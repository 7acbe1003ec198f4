package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/pgstudy/pgstudy/samples"
)

// window is a run's measurement window: every per-statement snapshot is
// taken at its two edges, openWindow just before the statement is sent
// and close just after its end is seen, whatever the client (pgx, psql,
// a throughput client). So a number over "the timed statement" is over
// the statement, not over the start of a client process or its
// connection. A new kind of counter is read here, once, for every client.
type window struct {
	c        *collector
	rec      *recorder
	meta     *session
	version  int32
	pid      int32 // the timed session's backend, 0 when there is none
	procStat bool
	before   snapshot
	samp     *ticking[snapshot]
	aios     *ticking[samples.Stat]
	spills   spilling
	// Start is when the before snapshots were all taken: the statement
	// is sent now. The diskstats offsets count from it.
	Start time.Time
}

// openWindow takes the before snapshots, the slow ones first, so that the
// diskstats snapshot is the last thing before the statement: the probes,
// the WAL positions and statistics views on the bookkeeping session,
// /proc/stat when procStat is set, the server's cgroup counters
// (cgroup.go), diskstats; then the diskstats and
// pg_aios samplers start, and what they keep is written out as it
// grows (spill.go). pid is the timed session's backend, whose own
// activity the statistics read apart.
func (c *collector) openWindow(ctx context.Context, rec *recorder, meta *session, pid int32, procStat bool) (*window, error) {
	w := &window{c: c, rec: rec, meta: meta, version: c.version[rec.b.Run.Config], pid: pid, procStat: procStat}
	run := &rec.b.Run
	c.probes(ctx, rec, "before")
	wal, rows, err := meta.stats(ctx, w.version, "before", pid)
	run.WALLSNBefore, run.WALPosBefore, run.WALInsertLSNBefore, run.WALInsertPosBefore = wal.lsn, wal.pos, wal.insertLSN, wal.insertPos
	rec.mu.Lock()
	rec.b.Stats = append(rec.b.Stats, rows...)
	rec.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("read statistics before the run: %w", err)
	}
	w.aios = c.startAIOSampler(ctx, meta, w.version)
	if procStat {
		c.procStat(rec, "before")
	}
	c.cgroupIO(rec, c.study.Config(run.Config), "before")
	w.before = readDiskstats()
	if w.before.Err != nil {
		w.aios.Stop()
		return nil, fmt.Errorf("read %s: %w", diskstatsPath, w.before.Err)
	}
	w.samp = startSampler(c.study.Disk.Sample.Duration)
	w.Start = time.Now()
	rec.diskstats("before", []snapshot{w.before}, w.Start)
	w.startSpilling()
	return w, nil
}

// close takes the after snapshots in the reverse order: diskstats first,
// the moment the statement's end is seen, then the server's cgroup
// counters, /proc/stat, then flush
// (when set: it ends the timed session's work, and on 15+ makes its
// statistics visible to the next read), the statistics and the probes. It records every snapshot of the
// window not written out yet and returns the error of the statistics read.
func (w *window) close(ctx context.Context, flush func()) error {
	during := w.samp.Stop()
	after := readDiskstats()
	w.c.cgroupIO(w.rec, w.c.study.Config(w.rec.b.Run.Config), "after")
	if w.procStat {
		w.c.procStat(w.rec, "after")
	}
	aios := w.aios.Stop()
	w.stopSpilling() // its rows go before those left
	rec, run := w.rec, &w.rec.b.Run
	rec.diskstats("sample", during, w.Start)
	rec.diskstats("after", []snapshot{after}, w.Start)
	rec.mu.Lock()
	rec.b.Stats = append(rec.b.Stats, aios...)
	rec.mu.Unlock()
	if flush != nil {
		flush()
	}
	wal, rows, err := w.meta.stats(ctx, w.version, "after", w.pid)
	run.WALLSNAfter, run.WALPosAfter, run.WALInsertLSNAfter, run.WALInsertPosAfter = wal.lsn, wal.pos, wal.insertLSN, wal.insertPos
	rec.mu.Lock()
	rec.b.Stats = append(rec.b.Stats, rows...)
	rec.mu.Unlock()
	w.c.probes(ctx, rec, "after")
	if err != nil {
		return fmt.Errorf("read statistics after the run: %w", err)
	}
	return nil
}
