package analyze

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// readFacts gives each run the figures its facts hold (disk, statistics),
// part by part: a part whose facts are stored at the current version is
// read from them alone; one without (a capture made before facts, or by an
// older parser) has them computed from its raw text, and stored beside it
// when the capture can be written. With reparse every part is computed
// again.
func (c *capture) readFacts(r *samples.Reader, partRuns map[string][]*Run, reparse bool, note func(string)) error {
	parts := slices.Sorted(func(yield func(string) bool) {
		for p := range partRuns {
			if !yield(p) {
				return
			}
		}
	})
	var stale []string
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(max(2, runtime.GOMAXPROCS(0)))
	for _, p := range parts {
		g.Go(func() error {
			ok, err := !reparse, error(nil)
			if ok {
				ok, err = readStoredFacts(r, p, partRuns[p])
			}
			if err == nil && !ok {
				mu.Lock()
				stale = append(stale, p)
				mu.Unlock()
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if len(stale) == 0 {
		return nil
	}
	return c.computeFacts(r, stale, partRuns, note)
}

// readStoredFacts applies a part's stored facts to its runs; false when
// the part has none at the current version for every run (they are then
// computed), with nothing applied.
func readStoredFacts(r *samples.Reader, part string, runs []*Run) (bool, error) {
	rf, err := samples.ReadPart[samples.RunFact](r, part)
	if err != nil || len(rf) == 0 {
		return false, err
	}
	sig, err := r.RawParts(part)
	if err != nil {
		return false, err
	}
	byID := map[int64]*samples.RunFact{}
	for i := range rf {
		if rf[i].FactsVersion == facts.Version && rf[i].RawParts == sig {
			byID[rf[i].RunID] = &rf[i]
		}
	}
	for _, run := range runs {
		if byID[run.RunID] == nil {
			return false, nil
		}
	}
	var s facts.Set
	s.Runs = rf
	if s.Disks, err = samples.ReadPart[samples.DiskFact](r, part); err != nil {
		return false, err
	}
	if s.IO, err = samples.ReadPart[samples.IOFact](r, part); err != nil {
		return false, err
	}
	if s.Views, err = samples.ReadPart[samples.ViewFact](r, part); err != nil {
		return false, err
	}
	if s.Problems, err = samples.ReadPart[samples.FactProblem](r, part); err != nil {
		return false, err
	}
	applyFacts(s, runs)
	return true, nil
}

// computeFacts computes the facts of the stale parts from their raw text,
// applies them, and stores them beside the capture when it can be written.
// Storing is a saving, not a need: a capture that cannot be written (read
// only, in use, on a full disk) is analysed all the same, and note says
// the facts were not stored and why.
func (c *capture) computeFacts(r *samples.Reader, stale []string, partRuns map[string][]*Run, note func(string)) error {
	st := &factStore{}
	d, err := r.OpenDerived()
	switch {
	case errors.Is(err, samples.ErrNotOnDisk):
	case err != nil:
		st.fail(err)
	default:
		st.d = d
		defer d.Close()
	}
	var g errgroup.Group
	g.SetLimit(max(2, runtime.GOMAXPROCS(0)))
	for _, p := range stale {
		g.Go(func() error {
			s, err := rawFacts(r, p, partRuns[p])
			if err != nil {
				return err
			}
			applyFacts(s, partRuns[p])
			st.store(p, s)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	switch {
	case st.err != nil:
		note(fmt.Sprintf("%s: computed the facts of %d parts from the raw text but could not store them beside it (%v): "+
			"the next analysis computes them again", c.info.Name, len(stale), st.err))
	case st.d != nil:
		note(fmt.Sprintf("%s: computed the facts of %d parts from the raw text (facts version %d) and stored them beside it",
			c.info.Name, len(stale), facts.Version))
	}
	return nil
}

// factStore stores computed facts until the first failure.
type factStore struct {
	mu  sync.Mutex
	d   *samples.Derived
	err error
}

func (st *factStore) fail(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.err == nil {
		st.err = err
	}
}

func (st *factStore) store(part string, s facts.Set) {
	st.mu.Lock()
	ok := st.d != nil && st.err == nil
	st.mu.Unlock()
	if !ok {
		return
	}
	if err := storeFacts(st.d, part, s); err != nil {
		st.fail(err)
	}
}

// rawFacts computes the facts of one part's runs from their raw text.
func rawFacts(r *samples.Reader, part string, runs []*Run) (facts.Set, error) {
	sig, err := r.RawParts(part) // before reading: a part replaced meanwhile is read again next time
	if err != nil {
		return facts.Set{}, err
	}
	disk, err := samples.ReadPart[samples.Diskstats](r, part, "run_id", "seq", "phase", "taken_at", "offset_ns", "text")
	if err != nil {
		return facts.Set{}, err
	}
	stats, err := samples.ReadPart[samples.Stat](r, part, "run_id", "phase", "view", "row", "json")
	if err != nil {
		return facts.Set{}, err
	}
	diskOf, statsOf := map[int64][]samples.Diskstats{}, map[int64][]samples.Stat{}
	for _, d := range disk {
		diskOf[d.RunID] = append(diskOf[d.RunID], d)
	}
	for _, s := range stats {
		statsOf[s.RunID] = append(statsOf[s.RunID], s)
	}
	var out facts.Set
	for _, run := range runs {
		out.Append(facts.Of(samples.Run{RunID: run.RunID, Devices: run.devices}, diskOf[run.RunID], statsOf[run.RunID]))
	}
	for i := range out.Runs {
		out.Runs[i].RawParts = sig
	}
	return out, nil
}

// storeFacts writes a part's facts, run_facts last: a part's facts count
// once its run_facts rows are of the current version, so a write stopped
// part way leaves facts that are computed again.
func storeFacts(d *samples.Derived, part string, s facts.Set) error {
	if err := samples.WriteDerived(d, part, s.Disks); err != nil {
		return err
	}
	if err := samples.WriteDerived(d, part, s.IO); err != nil {
		return err
	}
	if err := samples.WriteDerived(d, part, s.Views); err != nil {
		return err
	}
	if err := samples.WriteDerived(d, part, s.Problems); err != nil {
		return err
	}
	return samples.WriteDerived(d, part, s.Runs)
}

// applyFacts gives a part's runs the figures of their facts.
func applyFacts(s facts.Set, runs []*Run) {
	byID := make(map[int64]*Run, len(runs))
	for _, run := range runs {
		byID[run.RunID] = run
	}
	for i := range s.Runs {
		if run := byID[s.Runs[i].RunID]; run != nil {
			run.statFacts(&s.Runs[i])
		}
	}
	eachRun(s.Disks, func(f samples.DiskFact) int64 { return f.RunID }, func(id int64, rows []samples.DiskFact) {
		if run := byID[id]; run != nil {
			run.diskFacts(rows)
		}
	})
	for _, f := range s.IO {
		if run := byID[f.RunID]; run != nil {
			run.IO = append(run.IO, IODelta{BackendType: f.BackendType, Object: f.Object, Context: f.Context, Reads: f.Reads,
				ReadBytes: f.ReadBytes, Writes: f.Writes, WriteBytes: f.WriteBytes, Extends: f.Extends, Hits: f.Hits, Evictions: f.Evictions})
		}
	}
	aios := aioRuns{}
	for i := range s.Views {
		if run := byID[s.Views[i].RunID]; run != nil {
			run.viewFact(&s.Views[i], aios)
		}
	}
	aios.finish(byID)
	for _, p := range s.Problems {
		if run := byID[p.RunID]; run != nil {
			run.Problems = append(run.Problems, p.Message)
		}
	}
}

// eachRun calls fn with each run's rows: rows of one run are together.
func eachRun[T any](rows []T, id func(T) int64, fn func(int64, []T)) {
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && id(rows[j]) == id(rows[i]) {
			j++
		}
		fn(id(rows[i]), rows[i:j])
		i = j
	}
}

// statFacts sets the run's figures from the statistics views.
func (run *Run) statFacts(f *samples.RunFact) {
	run.hasStats = f.HasStats
	run.PGReads, run.WALRecords, run.WALFPI, run.WALStatBytes = f.PGReadBytes, f.WALRecords, f.WALFPI, f.WALBytes
	if f.Autovacuums != nil {
		run.Autovacuums = *f.Autovacuums
	}
}

// viewFact reads one row of the views read row by row.
func (run *Run) viewFact(f *samples.ViewFact, aios aioRuns) {
	switch f.View {
	case "pg_stat_activity":
		a := facts.Activity(f)
		run.Others = append(run.Others, Activity{Phase: f.Phase, PID: a.PID, BackendType: a.BackendType, State: a.State, Query: a.Query})
	case "pg_settings":
		st := facts.Setting(f)
		if run.RanWith == nil {
			run.RanWith = map[string]RanSetting{}
		}
		run.RanWith[strings.ToLower(st.Name)] = RanSetting{Value: humanSetting(st.Setting, st.Unit), Source: st.Source}
	case "relation_sizes":
		run.sizes = append(run.sizes, facts.RelationSize(f))
	case "pg_aios":
		aios.add(run.RunID, facts.AIO(f))
	}
}

// diskFacts computes the run's disk figures from its snapshots' counters.
// A snapshot's devices are its rows' counters, in place.
func (run *Run) diskFacts(rows []samples.DiskFact) {
	counters := facts.Counters(rows)
	var snaps []diskSnap
	for i := 0; i < len(rows); {
		f := &rows[i]
		j := i + 1
		for j < len(rows) && rows[j].Seq == f.Seq && rows[j].Phase == f.Phase {
			j++
		}
		sn := diskSnap{seq: f.Seq, phase: f.Phase, offset: float64(f.OffsetNs) / 1e9, at: float64(f.TakenAt.UnixNano()) / 1e9}
		if f.Device != "" { // else the snapshot lacks the device: one row, no counters
			sn.snap.Devices = counters[i:j:j]
		}
		if snaps == nil {
			snaps = make([]diskSnap, 0, len(rows)/(j-i)+1)
		}
		snaps = append(snaps, sn)
		i = j
	}
	if len(snaps) >= 2 {
		run.diskFigures(snaps)
	}
}
