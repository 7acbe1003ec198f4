package samples

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
)

// Spill writes the rows of a run that is still going on into the run's
// parts, so that a long run is not held in memory whole: a statement of
// half an hour sampled ten times a second gives 18,000 diskstats
// snapshots. Each table written to has its part of the run in progress,
// a temp file named as writePart names its own (hidden, not *.parquet),
// which takes one Parquet row group per Write. Commit adds the run's last
// rows to each, writes its footer and renames it into place, then writes
// the rest of the run as Writer.Commit does, the runs part last.
//
// So the capture's contract is the one Commit keeps: one part per table
// and run, and a run counts once its runs part is written. Until then a
// reader sees nothing of it, and a collector killed meanwhile leaves
// temp files only, which Create and Resume remove like any other.
type Spill struct {
	w     *Writer
	runID int64
	mu    sync.Mutex
	parts map[string]*spillPart // by table
	err   error                 // the first failure: the run cannot be committed whole
	ended bool
}

// spillPart is a table's part of the run in progress.
type spillPart struct {
	*partFile
	rows int64      // rows written so far: the row numbers of raws
	raws []RawBytes // the originals of values that were not UTF-8, as Commit records them
}

// unspilled are the tables a Spill does not take: the runs row, which
// commits the run, the run's facts, which sign the raw parts as written,
// and the raw_bytes the writer makes itself.
var unspilled = []string{"runs", "run_facts", "raw_bytes"}

// Spill starts writing the rows of run runID before it is committed. The
// run is committed with Spill.Commit, or given up with Discard.
func (w *Writer) Spill(runID int64) (*Spill, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.closed:
		return nil, errClosed
	case !w.wroteSession:
		return nil, errors.New("samples: Spill before WriteSession")
	case runID <= 0:
		return nil, fmt.Errorf("samples: run id %d: run ids start at 1", runID)
	case w.done[runID]:
		return nil, fmt.Errorf("samples: run %d is already in the capture", runID)
	}
	return &Spill{w: w, runID: runID, parts: map[string]*spillPart{}}, nil
}

// Write adds b's rows to the run's parts in progress, a row group per
// table with rows; b's run row is not read. Its rows are redacted and
// stamped as Commit does. After a failure the run cannot be committed:
// every later call returns the error, Commit included.
func (s *Spill) Write(b *Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.ended {
		return fmt.Errorf("samples: run %d: spill after its commit or discard", s.runID)
	}
	for i := range Tables {
		t := &Tables[i]
		rows, ok := b.rows(t)
		if !ok || t.Name == "runs" || rows.Len() == 0 {
			continue
		}
		if err := s.write(t, rows); err != nil {
			s.err = fmt.Errorf("run %d: spill %s: %w", s.runID, t.Name, err)
			return s.err
		}
	}
	return nil
}

func (s *Spill) write(t *Table, rows reflect.Value) error {
	for _, name := range unspilled {
		if t.Name == name {
			return fmt.Errorf("samples: the rows of %s are written at the run's commit only", name)
		}
	}
	w := s.w
	p := s.parts[t.Name]
	if p == nil {
		f, err := createPart(w.mem, w.codec, filepath.Join(w.dir, t.Name), runPart(s.runID), t, 64<<20)
		if err != nil {
			return err
		}
		p = &spillPart{partFile: f}
		s.parts[t.Name] = p
	}
	return p.add(w, t, rows, s.stamp())
}

// add writes rows as a row group, their text made valid UTF-8 and the
// originals kept for raw_bytes, numbered within the whole part.
func (p *spillPart) add(w *Writer, t *Table, rows reflect.Value, st stamp) error {
	rows, raws := t.validText(rows, w.redactOrKeep())
	for i := range raws {
		raws[i].Row += p.rows
	}
	rec, err := t.record(w.mem, rows, st, w.redact)
	if err != nil {
		return err
	}
	defer rec.Release()
	if err := p.write(rec); err != nil {
		return err
	}
	p.raws = append(p.raws, raws...)
	p.rows += int64(rows.Len())
	return nil
}

// rawsWith puts the raws of the part's last rows after those of the rows
// spilled, numbered within the whole part, in the order validText gives
// for the whole part: by column, then row.
func (p *spillPart) rawsWith(t *Table, last []RawBytes) []RawBytes {
	for i := range last {
		last[i].Row += p.rows
	}
	all := append(slices.Clip(p.raws), last...)
	col := func(r RawBytes) int {
		return slices.IndexFunc(t.cols, func(c column) bool { return c.name == r.Column })
	}
	slices.SortStableFunc(all, func(a, b RawBytes) int { return cmp.Compare(col(a), col(b)) })
	return all
}

func (s *Spill) stamp() stamp {
	return stamp{captureID: s.w.id, session: s.w.session, runID: s.runID, hasRunID: true}
}

// Commit commits the run, b holding its rows not spilled (and its run
// row), as Writer.Commit does: the parts in progress end with b's rows of
// their tables. When it fails, nothing of the run is in the capture.
func (s *Spill) Commit(b *Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return fmt.Errorf("samples: run %d: commit after its commit or discard", s.runID)
	}
	err := s.err
	if err == nil && b.Run.RunID != s.runID {
		err = fmt.Errorf("samples: commit of run %d with the spill of run %d", b.Run.RunID, s.runID)
	}
	if err == nil {
		err = s.w.commit([]*Batch{b}, s)
	}
	s.discard()
	return err
}

// Discard gives the run up: its parts in progress are removed.
func (s *Spill) Discard() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.discard()
}

// discard removes what is still in progress; a part finished by Commit
// is in place already.
func (s *Spill) discard() {
	for _, p := range s.parts {
		if p.partFile != nil {
			p.abort()
		}
	}
	s.parts, s.ended = nil, true
}

// table is the part in progress of t, nil when none (and for a nil s).
func (s *Spill) table(t *Table) *spillPart {
	if s == nil {
		return nil
	}
	return s.parts[t.Name]
}

// writePart writes the part name of t at the run's commit: the part in
// progress ended with rows, or (for a table not spilled, and for a nil s)
// rows written as writePart writes them.
func (s *Spill) writePart(w *Writer, t *Table, name string, rows reflect.Value, st stamp, clobber bool) error {
	p := s.table(t)
	if p == nil {
		return writePart(w.mem, w.codec, filepath.Join(w.dir, t.Name), name, t, rows, st, w.redact, clobber)
	}
	if rows.Len() > 0 {
		rec, err := t.record(w.mem, rows, st, w.redact)
		if err != nil {
			return err
		}
		defer rec.Release()
		if err := p.write(rec); err != nil {
			return err
		}
	}
	if err := p.finish(); err != nil {
		return err
	}
	p.partFile = nil // in place: not to be removed
	return nil
}

// raws are the raw_bytes rows of t's part, given those of the rows of the
// commit (nil s: those rows').
func (s *Spill) raws(t *Table, last []RawBytes) []RawBytes {
	if p := s.table(t); p != nil {
		return p.rawsWith(t, last)
	}
	return last
}
