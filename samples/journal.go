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
	leftovers, err := leftoverParts(dir, sessions, committed)
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
// parts of runs without a runs part that counts, and runs parts a
// compacted part replaced.
func leftoverParts(dir string, sessions map[int64]bool, committed map[string]partRange) ([]string, error) {
	var leftovers []string
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
			if isLeftover(&t, e.Name(), sessions, committed) {
				leftovers = append(leftovers, filepath.Join(folder, e.Name()))
			}
		}
	}
	return leftovers, nil
}

// isLeftover reports whether a file of table t is a leftover.
func isLeftover(t *Table, name string, sessions map[int64]bool, committed map[string]partRange) bool {
	switch {
	case isTemp(name):
		return true
	case t.ofSession() || t.Name == "raw_bytes" && strings.HasPrefix(name, "s"):
		n, ok := parsePart(name, 's')
		return ok && !sessions[n]
	case t.perRun():
		_, ok := parseRunPart(name)
		_, counts := committed[name]
		return ok && !counts
	}
	return false
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
