package analyze

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// readFacts gives each run the figures its facts hold (disk, statistics),
// part by part: a part whose facts are stored at the current version, over
// the raw parts in the capture, whole, is read from them alone; any other
// has them computed from its raw text (a capture made before facts, by an
// older parser, or whose raw or fact parts changed since), and the
// computed facts wait in c.pending to be stored (Analysis.StoreFacts).
// With reparse every part is computed again.
func (c *capture) readFacts(r *samples.Reader, partRuns map[string][]*Run, reparse bool, note func(string)) error {
	parts := slices.Sorted(maps.Keys(partRuns))
	states := make([]factState, len(parts))
	var g errgroup.Group
	g.SetLimit(readers)
	for i, p := range parts {
		g.Go(func() (err error) {
			if reparse {
				states[i] = reparseState(r, p)
				return nil
			}
			states[i], err = readStoredFacts(r, p, partRuns[p], c.series)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var stale []string
	keep := map[string]bool{}
	whys := map[string]int{}
	runs := 0
	for i, st := range states {
		if !st.read {
			stale = append(stale, parts[i])
			keep[parts[i]] = st.keep
			whys[st.why]++
			runs += len(partRuns[parts[i]])
		}
	}
	if len(stale) == 0 {
		return nil
	}
	note(fmt.Sprintf("%s: computing the facts of %s (%d of its %s) from the raw text: %s",
		c.info.Name, plural(runs, "run"), len(stale), plural(len(parts), "part"), reasons(whys)))
	return c.computeFacts(r, stale, keep, partRuns)
}

// factState is what a part's stored facts are worth.
type factState struct {
	read bool   // applied to the part's runs
	why  string // why not: what is wrong with them
	keep bool   // they are of a newer pgstudy's: computed, but left as they are
}

// reparseState is a part's state under --reparse: computed again, and
// stored unless any of its stored facts is a newer pgstudy's (they are
// kept as they are: a compacted part holds many runs' facts).
func reparseState(r *samples.Reader, part string) factState {
	rf, err := samples.ReadPart[samples.RunFact](r, part, "run_id", "facts_version")
	newest := int32(0)
	for _, f := range rf {
		newest = max(newest, f.FactsVersion)
	}
	if err == nil && newest > facts.Version {
		return factState{why: fmt.Sprintf("--reparse, but those stored are a newer pgstudy's (facts version %d): kept as they are", newest), keep: true}
	}
	return factState{why: "--reparse"}
}

// unreadable is why stored facts that cannot be read are computed again.
func unreadable(what string) factState {
	return factState{why: "their stored facts are unreadable: " + strings.TrimPrefix(what, "samples: ")}
}

// readStoredFacts applies a part's stored facts to its runs when they are
// of the current version, over the raw parts in the capture, and hold the
// rows their run_facts count; otherwise it says why not, with nothing
// applied. An error is the raw text's: unreadable facts are computed again.
// Without series, the disk intervals are not read (their part is counted).
func readStoredFacts(r *samples.Reader, part string, runs []*Run, series bool) (factState, error) {
	rf, err := samples.ReadPartInto(r, part, runFactRows.get())
	if err != nil {
		return unreadable(err.Error()), nil
	}
	defer runFactRows.put(rf) // the runs keep figures, not rows
	if len(rf) == 0 {
		return factState{why: "no facts stored beside them yet"}, nil
	}
	sig, err := r.RawParts(part)
	if err != nil {
		return factState{}, err
	}
	byID := make(map[int64]*samples.RunFact, len(rf))
	for i := range rf {
		f := &rf[i]
		switch {
		case f.FactsVersion > facts.Version:
			return factState{why: fmt.Sprintf("stored by a newer pgstudy at facts version %d, kept as they are", f.FactsVersion), keep: true}, nil
		case f.FactsVersion < facts.Version:
			return factState{why: fmt.Sprintf("stored at facts version %d, older than %d", f.FactsVersion, facts.Version)}, nil
		case f.RawParts != sig:
			return factState{why: "their raw diskstats or stats part changed since"}, nil
		case f.FigureRows == nil || f.IntervalRows == nil:
			return factState{why: "the disk figures of some of their runs were not computed when collected"}, nil
		}
		byID[f.RunID] = f
	}
	for _, run := range runs {
		if byID[run.RunID] == nil {
			return factState{why: "no facts stored for some of their runs"}, nil
		}
	}
	s := facts.Set{Runs: rf}
	if why := readFactTables(r, part, &s, byID, series); why != "" {
		return unreadable(why), nil
	}
	applyFacts(s, runs, series)
	figureRows.put(s.Figures)
	intervalRows.put(s.Intervals)
	ioRows.put(s.IO)
	return factState{read: true}, nil
}

// intervalRows are disk_intervals rows to read parts into: a study of
// 100,000 runs has a million of them, read a part at a time, and each part
// read into new rows was that much more for the garbage collector. Each
// part being read takes a slice, and gives it back once its runs have
// their figures.
var intervalRows = rowPool[samples.DiskInterval]{}

// runFactRows, figureRows and ioRows are the same for the run facts, the
// disk figures over each run and pg_stat_io's.
var (
	runFactRows = rowPool[samples.RunFact]{}
	figureRows  = rowPool[samples.DiskFigure]{}
	ioRows      = rowPool[samples.IOFact]{}
)

// readFactTables reads a part's fact tables into s, and checks that they
// hold the rows run_facts counts (byID), of the current version: a fact
// part lost, damaged or copied from elsewhere does not. The disk facts are
// not read (the disk figures are made of them): their part is only
// checked to hold as many rows as run_facts counts. It returns what is
// wrong, "" for nothing.
func readFactTables(r *samples.Reader, part string, s *facts.Set, byID map[int64]*samples.RunFact, series bool) string {
	var err error
	// After an error the rows are not given back: a read given up on may
	// still write into them.
	if s.Figures, err = samples.ReadPartInto(r, part, figureRows.get()); err != nil {
		return err.Error()
	}
	intervalCount := func(f *samples.RunFact) *int64 { return f.IntervalRows }
	var intervals string
	if series {
		if s.Intervals, err = samples.ReadPartInto(r, part, intervalRows.get()); err != nil {
			return err.Error()
		}
		intervals = countRows(r, "disk_intervals", part, s.Intervals, byID, func(f *samples.DiskInterval) (int64, int32) { return f.RunID, f.FactsVersion },
			intervalCount)
	} else {
		intervals = countFooter[samples.DiskInterval](r, "disk_intervals", part, byID, intervalCount)
	}
	if s.IO, err = samples.ReadPartInto(r, part, ioRows.get()); err != nil {
		return err.Error()
	}
	if s.Views, err = samples.ReadPart[samples.ViewFact](r, part); err != nil {
		return err.Error()
	}
	if s.Problems, err = samples.ReadPart[samples.FactProblem](r, part); err != nil {
		return err.Error()
	}
	return cmp.Or(
		countFooter[samples.DiskFact](r, "disk_facts", part, byID, func(f *samples.RunFact) *int64 { return f.DiskRows }),
		countRows(r, "disk_figures", part, s.Figures, byID, func(f *samples.DiskFigure) (int64, int32) { return f.RunID, f.FactsVersion },
			func(f *samples.RunFact) *int64 { return f.FigureRows }),
		intervals,
		countRows(r, "io_facts", part, s.IO, byID, func(f *samples.IOFact) (int64, int32) { return f.RunID, f.FactsVersion },
			func(f *samples.RunFact) *int64 { return f.IORows }),
		countRows(r, "view_facts", part, s.Views, byID, func(f *samples.ViewFact) (int64, int32) { return f.RunID, f.FactsVersion },
			func(f *samples.RunFact) *int64 { return f.ViewRows }),
		countRows(r, "fact_problems", part, s.Problems, byID, func(f *samples.FactProblem) (int64, int32) { return f.RunID, f.FactsVersion },
			func(f *samples.RunFact) *int64 { return f.ProblemRows }))
}

// countRows checks that a fact table's rows of a part are those run_facts
// counts, run by run, and of the current version; it says what differs.
func countRows[T any](r *samples.Reader, table, part string, rows []T, byID map[int64]*samples.RunFact,
	key func(*T) (int64, int32), want func(*samples.RunFact) *int64) string {
	got := make(map[int64]int64, len(byID))
	// A run's rows come together: counted a stretch at a time, not a map
	// update a row (a part of disk facts has 12,000 rows).
	for i := 0; i < len(rows); {
		id, v := key(&rows[i])
		if byID[id] == nil || v != facts.Version {
			return fmt.Sprintf("%s/%s holds a row of run %d at facts version %d, which run_facts does not count", table, part, id, v)
		}
		j := i + 1
		for ; j < len(rows); j++ {
			if id2, v2 := key(&rows[j]); id2 != id || v2 != v {
				break
			}
		}
		got[id] += int64(j - i)
		i = j
	}
	for id, f := range byID {
		if n := want(f); n == nil || got[id] != *n {
			if len(rows) == 0 {
				return fmt.Sprintf("%s/%s is missing or empty, where run_facts counts %s rows of run %d", table, part, countText(n), id)
			}
			return fmt.Sprintf("%s/%s holds %d rows of run %d where run_facts counts %s", table, part, got[id], id, countText(n))
		}
	}
	return ""
}

// countFooter checks that a fact table's part that is not read holds the
// rows run_facts counts (want), by its footer.
func countFooter[T any](r *samples.Reader, table, part string, byID map[int64]*samples.RunFact, want func(*samples.RunFact) *int64) string {
	foot, err := samples.ReadPartFooter[T](r, part)
	if err != nil {
		return err.Error()
	}
	n := foot.Rows
	if foot.RunRange && (byID[foot.MinRun] == nil || byID[foot.MaxRun] == nil) {
		// Its rows are not all of this part's runs: another part's,
		// renamed or copied over it (a SQL engine would count them twice).
		return fmt.Sprintf("%s/%s holds rows of runs %d to %d, which run_facts/%s does not count: a part of other runs, renamed? move it out of the capture",
			table, part, foot.MinRun, foot.MaxRun, part)
	}
	var total int64
	for _, f := range byID {
		w := want(f)
		if w == nil {
			return fmt.Sprintf("run_facts/%s does not count the %s rows of run %d", part, table, f.RunID)
		}
		total += *w
	}
	if n != total {
		if n == 0 {
			return fmt.Sprintf("%s/%s is missing or empty, where run_facts counts %d rows", table, part, total)
		}
		return fmt.Sprintf("%s/%s holds %d rows where run_facts counts %d", table, part, n, total)
	}
	return ""
}

func countText(n *int64) string {
	if n == nil {
		return "none"
	}
	return fmt.Sprint(*n)
}

// computeFacts computes the facts of the stale parts from their raw text
// and applies them; those of the parts not kept are encoded, to be stored
// once the analysis's output is written.
func (c *capture) computeFacts(r *samples.Reader, stale []string, keep map[string]bool, partRuns map[string][]*Run) error {
	encoded := make([]pendingPart, len(stale))
	var g errgroup.Group
	g.SetLimit(readers)
	for i, p := range stale {
		g.Go(func() error {
			s, err := rawFacts(r, p, partRuns[p])
			if err != nil {
				return err
			}
			applyFacts(s, partRuns[p], c.series)
			if !keep[p] {
				encoded[i].runs = len(partRuns[p])
				encoded[i].tables, err = encodeFacts(r, p, s)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.pending = &pendingFacts{name: c.info.Name, reader: r}
	for i, part := range encoded {
		c.pending.runs += len(partRuns[stale[i]])
		if part.tables != nil {
			c.pending.parts = append(c.pending.parts, part)
		} else {
			c.pending.kept++
		}
	}
	return nil
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

// applyFacts gives a part's runs the figures of their facts; their disk
// intervals only with series.
func applyFacts(s facts.Set, runs []*Run, series bool) {
	byID := make(map[int64]*Run, len(runs))
	for _, run := range runs {
		byID[run.RunID] = run
	}
	for i := range s.Runs {
		if run := byID[s.Runs[i].RunID]; run != nil {
			run.statFacts(&s.Runs[i])
		}
	}
	intervals := s.Intervals
	if !series {
		intervals = nil
	}
	applyDiskFigures(s.Figures, intervals, byID)
	// A run's rows come together: each stretch goes into room made once.
	for i := 0; i < len(s.IO); {
		j := i + 1
		for j < len(s.IO) && s.IO[j].RunID == s.IO[i].RunID {
			j++
		}
		if run := byID[s.IO[i].RunID]; run != nil {
			run.IO = slices.Grow(run.IO, j-i)
			for k := i; k < j; k++ {
				f := &s.IO[k]
				run.IO = append(run.IO, IODelta{BackendType: f.BackendType, Object: f.Object, Context: f.Context, Reads: f.Reads,
					ReadBytes: f.ReadBytes, Writes: f.Writes, WriteBytes: f.WriteBytes, Extends: f.Extends, Hits: f.Hits, Evictions: f.Evictions})
			}
		}
		i = j
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
			run.warnf("%s", p.Message) // the tables are read meanwhile
		}
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
