package samples

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The journal of a capture is the capture itself: a session counts exactly
// when its capture/sNNN.parquet part exists, and a run exactly when its
// runs/rNNNNNN.parquet part does, because those parts are written last.
// Anything else found after an interruption is a leftover, safe to remove.

// State is what Resume found in a capture.
type State struct {
	CaptureID string
	Sessions  int32          // sessions so far; the resumed writer writes Sessions+1
	Done      map[int64]bool // run ids of the runs in the capture
	Last      Capture        // the capture row of the last session
}

// Resume opens the capture in dir for appending a new session. It removes
// the leftovers of an interrupted session or run: temp files, host parts of
// sessions without a capture part, and parts of runs without a runs part.
func Resume(dir string, opt Options) (*Writer, *State, error) {
	w, err := newWriter(dir, opt)
	if err != nil {
		return nil, nil, err
	}
	// Lock before reading anything, so that what is read stays true.
	if w.lock, err = lockDir(dir); err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*Writer, *State, error) {
		w.Close()
		return nil, nil, err
	}
	r, err := Open(dir)
	if err != nil {
		return fail(err)
	}
	last, sessions, err := lastSession(dir, r)
	if err != nil {
		return fail(err)
	}
	// Runs are in the capture when their runs part is.
	committed, err := committedRuns(dir)
	if err != nil {
		return fail(err)
	}
	leftovers, err := leftoverParts(dir, r, sessions, committed)
	if err != nil {
		return fail(err)
	}
	if err := removeAll(leftovers); err != nil {
		return fail(err)
	}
	done, err := doneRuns(dir, r, committed)
	if err != nil {
		return fail(err)
	}
	w.id = last.CaptureID
	w.session = last.Session + 1
	w.done = done
	for _, p := range committed {
		if p.compacted() {
			w.compacted = append(w.compacted, p)
		}
	}
	st := &State{CaptureID: last.CaptureID, Sessions: last.Session, Done: maps.Clone(done), Last: last}
	return w, st, nil
}

// lastSession is the capture row of the latest session and the set of
// sessions recorded; a capture of two ids or another format is refused.
func lastSession(dir string, r *Reader) (Capture, map[int64]bool, error) {
	caps := r.Captures()
	last := slices.MaxFunc(caps, func(a, b Capture) int { return int(a.Session) - int(b.Session) })
	sessions := map[int64]bool{}
	for _, c := range caps {
		if c.CaptureID != last.CaptureID {
			return last, nil, fmt.Errorf("samples: %s mixes captures %s and %s", dir, c.CaptureID, last.CaptureID)
		}
		sessions[int64(c.Session)] = true
	}
	if last.FormatVersion != FormatVersion {
		return last, nil, fmt.Errorf("samples: %s is of capture format %d; this pgstudy appends only to format %d",
			dir, last.FormatVersion, FormatVersion)
	}
	return last, sessions, nil
}

// committedRuns lists the runs parts that count (those no compacted part
// replaced), by name.
func committedRuns(dir string) (map[string]partRange, error) {
	names, err := listParts(filepath.Join(dir, "runs"))
	if err != nil {
		return nil, err
	}
	live, _, err := liveRunParts(names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "runs"), err)
	}
	committed := map[string]partRange{}
	for _, name := range live {
		p, ok := parseRunPart(name)
		if !ok {
			return nil, fmt.Errorf("samples: %s: not a run part name", filepath.Join(dir, "runs", name))
		}
		committed[name] = p
	}
	return committed, nil
}

// leftoverParts lists what an interrupted session, run or compaction
// left: temp files, session parts of sessions without a capture row,
// runs parts a compacted part replaced, and parts of runs without a runs
// part that counts where only an interruption can have left them (see
// strayParts). Other parts of runs that runs/ does not hold are refused,
// nothing removed: a copy in progress or cut short leaves those, and
// they are a user's data.
func leftoverParts(dir string, r *Reader, sessions map[int64]bool, committed map[string]partRange) ([]string, error) {
	runNames, err := listParts(filepath.Join(dir, "runs"))
	if err != nil {
		return nil, err
	}
	j := journalView{committed: committed, runsHas: map[string]bool{}, pendingNames: map[string]bool{}}
	for _, n := range runNames {
		j.runsHas[n] = true
	}
	last, err := lastCommitted(r, committed)
	if err != nil {
		return nil, err
	}
	j.last = last
	marks, err := compactMarks(dir)
	if err != nil {
		return nil, err
	}
	leftovers := slices.Collect(maps.Keys(marks))
	for _, p := range marks {
		j.compacting = append(j.compacting, p)
	}
	for _, t := range Tables {
		folder := filepath.Join(dir, t.Name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			return nil, fmt.Errorf("samples: %w", err)
		}
		entries, err := os.ReadDir(folder)
		if err != nil {
			return nil, fmt.Errorf("samples: %w", err)
		}
		for _, e := range entries {
			path := filepath.Join(folder, e.Name())
			switch j.classify(&t, e.Name(), sessions) {
			case partLeftover:
				leftovers = append(leftovers, path)
			case partPending:
				j.pending = append(j.pending, path)
				j.pendingNames[e.Name()] = true
			case partStray:
				j.strays = append(j.strays, path)
			case partDuplicate:
				j.duplicates = append(j.duplicates, path)
			case partOrphan:
				j.orphans = append(j.orphans, path)
			}
		}
	}
	if len(j.pendingNames) > 1 || len(j.strays)+len(j.duplicates)+len(j.orphans) > 0 {
		// An interrupted writer leaves the parts of one run (or of one
		// CommitMany) after the last committed: parts of several are not
		// its, and beside parts a copy left, that run is the copy's too.
		j.strays = append(j.strays, j.pending...)
	} else {
		leftovers = append(leftovers, j.pending...)
	}
	if len(j.strays)+len(j.duplicates)+len(j.orphans) > 0 {
		return nil, strayParts(dir, &j)
	}
	return leftovers, nil
}

// compactMarkPrefix starts the name of the file a compaction writes in
// the capture's folder, before it puts a group's parts in place, and
// removes once the parts the group replaced are: a replaced part is a
// leftover only where such a mark names its group, never a part a copy
// put back beside a runs part it also put back.
const compactMarkPrefix = ".compacting-"

// compactMarks are the marks in dir, by path, with their groups.
func compactMarks(dir string) (map[string]partRange, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	marks := map[string]partRange{}
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Name(), compactMarkPrefix); ok && !e.IsDir() {
			if p, ok := parseRunPart(name); ok && p.compacted() {
				marks[filepath.Join(dir, e.Name())] = p
			}
		}
	}
	return marks, nil
}

// journalView is what leftoverParts knows of the runs committed: their
// parts in runs/ that count, every name in runs/ (the parts a compaction
// replaced among them), the last run committed, and the parts found
// so far of the run after it. Collect and import commit runs in the
// order of their ids from 1, each attempted run whether it failed or
// not, so that the run in progress is the one after the last committed:
// parts of a run further on, with a whole run missing before it, are a
// copy's, not an interruption's.
type journalView struct {
	committed    map[string]partRange
	runsHas      map[string]bool
	last         int64
	pending      []string
	pendingNames map[string]bool
	strays       []string
	duplicates   []string
	orphans      []string
	compacting   []partRange // the groups a compaction marked (compactMark)
}

// The kinds of a capture's file for leftoverParts.
const (
	partKept      = iota
	partLeftover  // left by an interrupted session, run or compaction
	partPending   // a part of the run after the last committed: the run in progress, if it is the only one
	partStray     // a part of a run runs/ does not hold, amid runs it does
	partDuplicate // a part of runs a part of runs/ that counts holds, which no compaction left
	partOrphan    // a part of a session capture/ does not hold, written after its capture part
)

// classify says what a file of table t is.
func (j *journalView) classify(t *Table, name string, sessions map[int64]bool) int {
	switch {
	case isTemp(name):
		return partLeftover
	case t.ofSession() || t.Name == "raw_bytes" && strings.HasPrefix(name, "s"):
		if n, ok := parsePart(name, 's'); ok && !sessions[n] {
			// WriteSession writes a session's host and raw_bytes parts
			// before its capture part; calibrations come after it, so
			// that one without it is a copy's (calibrations/ sorts
			// before capture/).
			if t.Name == "host" || t.Name == "raw_bytes" {
				return partLeftover
			}
			return partOrphan
		}
		return partKept
	case !t.perRun():
		return partKept
	}
	p, ok := parseRunPart(name)
	if _, counts := j.committed[name]; !ok || counts {
		return partKept
	}
	switch {
	case j.inCompaction(p):
		// Of a group a compaction marked before it put its parts in
		// place: a compacted part it put in place before it was killed
		// (its runs part not yet there), or a part of one run it
		// replaced, whose runs part it removes last.
		if t.Name == "runs" || p.compacted() || j.runsHas[name] {
			return partLeftover
		}
	case t.Name != "runs" && !p.compacted() && p.first == j.last+1:
		// Writers name a part by its first run; only a compaction names
		// one by its range, and marks it.
		return partPending
	case j.covered(p):
		return partDuplicate
	}
	return partStray
}

// inCompaction reports whether a compaction's mark (compactMark) names a
// group holding p's runs.
func (j *journalView) inCompaction(p partRange) bool {
	for _, m := range j.compacting {
		if p.within(m) {
			return true
		}
	}
	return false
}

// covered reports whether a part of runs/ that counts holds p's runs.
func (j *journalView) covered(p partRange) bool {
	for _, c := range j.committed {
		if p.within(c) {
			return true
		}
	}
	return false
}

// strayParts is the refusal of a capture holding parts of runs that
// runs/ does not hold, parts of runs a compacted part holds, or parts of
// sessions capture/ does not hold, where no interruption of pgstudy's
// leaves them.
func strayParts(dir string, j *journalView) error {
	var held []string
	if len(j.strays) > 0 {
		held = append(held, fmt.Sprintf("%s of runs that its runs/ does not hold (%s), amid or past runs it does", someParts(j.strays), listPaths(j.strays)))
	}
	if len(j.duplicates) > 0 {
		held = append(held, fmt.Sprintf("%s of runs that a compacted part also holds (%s), which no compaction marked as its own", someParts(j.duplicates), listPaths(j.duplicates)))
	}
	if len(j.orphans) > 0 {
		held = append(held, fmt.Sprintf("%s of sessions that its capture/ does not hold (%s)", someParts(j.orphans), listPaths(j.orphans)))
	}
	return fmt.Errorf("samples: %s holds %s: not what an interrupted collect, import or compaction leaves "+
		"(a copy still in progress, or cut short? a part put back?); nothing was changed: finish the copy, or move those parts out of the capture",
		dir, strings.Join(held, ", and "))
}

// someParts is "a part" or "N parts".
func someParts(paths []string) string {
	if len(paths) == 1 {
		return "a part"
	}
	return fmt.Sprintf("%d parts", len(paths))
}

// listPaths names the first three of paths, sorted, and how many more.
func listPaths(paths []string) string {
	slices.Sort(paths)
	shown := paths[:min(3, len(paths))]
	if len(paths) > len(shown) {
		return fmt.Sprintf("%s and %d more", strings.Join(shown, ", "), len(paths)-len(shown))
	}
	return strings.Join(shown, ", ")
}

// lastCommitted is the last run committed: that of the compacted part
// that ends last, or the last run the part named by the last first run
// holds (a part of several runs committed together, CommitMany, is named
// by its first).
func lastCommitted(r *Reader, committed map[string]partRange) (int64, error) {
	var last int64
	var name string
	for n, p := range committed {
		if p.compacted() {
			last = max(last, p.last)
		} else if p.first > last {
			last, name = p.first, n
		}
	}
	if name == "" || committed[name].first < last {
		return last, nil
	}
	runs, err := ReadPart[Run](r, name, "run_id")
	if err != nil {
		return 0, err
	}
	for _, run := range runs {
		last = max(last, run.RunID)
	}
	return last, nil
}

// doneRuns are the runs the rows themselves hold, checked against the part
// names: a part holds one run, or several committed together (CommitMany)
// and named by the first; a run is in one part only.
func doneRuns(dir string, r *Reader, committed map[string]partRange) (map[int64]bool, error) {
	runs, err := Read[Run](r)
	if err != nil {
		return nil, err
	}
	done := make(map[int64]bool, len(runs))
	for _, run := range runs {
		if done[run.RunID] {
			return nil, fmt.Errorf("samples: %s: run %d is in two parts", filepath.Join(dir, "runs"), run.RunID)
		}
		done[run.RunID] = true
	}
	for name, p := range committed {
		switch {
		case !done[p.first]:
			return nil, fmt.Errorf("samples: %s: part %s does not hold run %d", filepath.Join(dir, "runs"), name, p.first)
		case p.compacted():
			for id := p.first; id <= p.last; id++ {
				if !done[id] {
					return nil, fmt.Errorf("samples: %s: part %s does not hold run %d", filepath.Join(dir, "runs"), name, id)
				}
			}
		}
	}
	return done, nil
}
