package samples

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// Options tune a Writer.
type Options struct {
	// Redact, when set, is applied to every string value of every row
	// written (nil pointers stay nil), just before encoding. It is the one
	// place that guarantees a secret never reaches disk, whatever column
	// the secret ended up in.
	Redact func(string) string
	// Compression of the Parquet column chunks; the zero value is zstd.
	Compression Compression
	// Note, when set, is told once per table and column that a value was
	// not valid UTF-8 and was stored made valid, its bytes in raw_bytes.
	Note func(string)
}

// Writer appends sessions and runs to a capture folder. Every part it writes
// is durable when the call returns. It is safe for concurrent use, though
// the parts of one run are written one at a time.
type Writer struct {
	mu      sync.Mutex
	dir     string
	id      string
	session int32
	redact  func(string) string
	codec   compress.Compression
	mem     memory.Allocator
	lock    *os.File
	closed  bool

	wroteSession bool
	done         map[int64]bool
	compacted    []partRange // the compacted runs parts: no run may be committed in their range
	note         func(string)
	noted        map[string]bool // table.column already noted

	// What the session's parts of raw_bytes and calibrations hold, for
	// WriteCalibrations to write them again with more rows.
	sessionRaws  []RawBytes
	calibrations []Calibration
}

var errClosed = errors.New("samples: writer is closed")

// Batch is every row of one run. Commit writes it as one part per non-empty
// table, the runs part last.
type Batch struct {
	Run         Run
	Servers     []Server
	Settings    []Setting
	Steps       []Step
	Statements  []Statement
	Outputs     []Output
	Notices     []Notice
	Plans       []Plan
	Diskstats   []Diskstats
	Stats       []Stat
	Probes      []Probe
	Attachments []Attachment

	// The run's facts (analyze/facts fills them): the numbers its raw
	// text above gives, typed.
	RunFacts     []RunFact
	DiskFacts    []DiskFact
	DiskFigures  []DiskFigure
	Intervals    []DiskInterval
	IOFacts      []IOFact
	ViewFacts    []ViewFact
	FactProblems []FactProblem
}

// batchFields maps a table name to the index of its Batch field, found by
// the field's row type so that Batch and Tables cannot drift apart silently.
var batchFields = func() map[string]int {
	m := map[string]int{}
	bt := reflect.TypeFor[Batch]()
	for i := range bt.NumField() {
		ft := bt.Field(i).Type
		if ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		t, err := tableOf(ft)
		if err != nil {
			panic(fmt.Sprintf("samples: Batch.%s: %v", bt.Field(i).Name, err))
		}
		m[t.Name] = i
	}
	return m
}()

// rows returns b's rows of table t as a slice value.
func (b *Batch) rows(t *Table) (reflect.Value, bool) {
	i, ok := batchFields[t.Name]
	if !ok {
		return reflect.Value{}, false
	}
	v := reflect.ValueOf(b).Elem().Field(i)
	if v.Kind() != reflect.Slice {
		s := reflect.MakeSlice(reflect.SliceOf(v.Type()), 1, 1)
		s.Index(0).Set(v)
		v = s
	}
	return v, true
}

func newWriter(dir string, opt Options) (*Writer, error) {
	codec, err := opt.Compression.codec()
	if err != nil {
		return nil, err
	}
	return &Writer{
		dir:    dir,
		redact: opt.Redact,
		codec:  codec,
		mem:    memory.DefaultAllocator,
		done:   map[int64]bool{},
		note:   opt.Note,
		noted:  map[string]bool{},
	}, nil
}

// Create starts a new capture in dir, which may exist if it is empty. It
// makes one folder per table and a fresh capture id. The first session is
// numbered 1.
func Create(dir string, opt Options) (*Writer, error) {
	w, err := newWriter(dir, opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	if w.lock, err = lockDir(dir); err != nil {
		return nil, err
	}
	if err := checkEmpty(dir); err != nil {
		w.Close()
		return nil, err
	}
	for _, t := range Tables {
		if err := os.MkdirAll(filepath.Join(dir, t.Name), 0o755); err != nil {
			w.Close()
			return nil, fmt.Errorf("samples: %w", err)
		}
	}
	if err := syncDir(dir); err != nil {
		w.Close()
		return nil, err
	}
	var b [8]byte
	rand.Read(b[:])
	w.id = hex.EncodeToString(b[:])
	w.session = 1
	return w, nil
}

// checkEmpty refuses a folder that holds anything but what an interrupted
// Create may leave behind: empty table folders, temp files, and host parts
// written before the capture row of the first session (which is what makes
// a session count). It removes those leftovers.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	var leftovers []string
	for _, e := range entries {
		if e.Name() == "capture" && e.IsDir() {
			parts, err := listParts(filepath.Join(dir, "capture"))
			if err != nil {
				return err
			}
			if len(parts) > 0 {
				return fmt.Errorf("samples: %s already holds a capture; use --resume to continue it, or choose a new folder", dir)
			}
		}
	}
	for _, e := range entries {
		if !e.IsDir() || tableNamed(e.Name()) == nil {
			return fmt.Errorf("samples: %s is not empty (it holds %s); choose an empty or new folder", dir, e.Name())
		}
		sub := filepath.Join(dir, e.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		for _, f := range files {
			_, hostPart := parsePart(f.Name(), 's')
			if isTemp(f.Name()) || (tableNamed(e.Name()).ofSession() && hostPart) {
				leftovers = append(leftovers, filepath.Join(sub, f.Name()))
				continue
			}
			return fmt.Errorf("samples: %s is not empty (it holds %s); choose an empty or new folder",
				dir, filepath.Join(e.Name(), f.Name()))
		}
	}
	return removeAll(leftovers)
}

// removeAll removes files and syncs their folders.
func removeAll(paths []string) error {
	dirs := map[string]bool{}
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("samples: %w", err)
		}
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// CaptureID is the random id of the capture, stamped on every row.
func (w *Writer) CaptureID() string { return w.id }

// Session is the number of the session this writer writes.
func (w *Writer) Session() int32 { return w.session }

// Dir is the capture folder.
func (w *Writer) Dir() string { return w.dir }

// Close releases the capture folder for another collector; the writer
// cannot write after. Parts are durable as they are written, so Close has
// nothing to flush.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.lock == nil {
		return nil
	}
	return w.lock.Close()
}

// WriteSession records the start of this writer's session: the capture row
// and the host facts, as part sNNN.parquet of capture/ and host/. The capture
// row goes last, since it is what makes a session count. The writer sets
// CaptureID and Session on every row and FormatVersion on the capture row.
// It must be called once, before any Commit.
func (w *Writer) WriteSession(c Capture, hosts []Host) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	if w.wroteSession {
		return fmt.Errorf("samples: session %d is already written", w.session)
	}
	st := stamp{captureID: w.id, session: w.session}
	name := sessionPart(w.session)
	// The originals of a session's values that are not UTF-8 (a command
	// line's argument, a manifest's file name) go in raw_bytes' part of the
	// session's name, with run id 0.
	hv, hr := tableNamed("host").validText(reflect.ValueOf(hosts), w.redactOrKeep())
	cv, cr := tableNamed("capture").validText(reflect.ValueOf([]Capture{c}), w.redactOrKeep())
	raws := append(hr, cr...)
	w.sessionRaws = raws
	if len(raws) > 0 {
		t := tableNamed("raw_bytes")
		if err := writePart(w.mem, w.codec, filepath.Join(w.dir, t.Name), name, t,
			reflect.ValueOf(raws), st, w.redact, true); err != nil {
			return err
		}
		w.noteRaw(fmt.Sprintf("session %d", w.session), raws)
	}
	if len(hosts) > 0 {
		t := tableNamed("host")
		// A host part without its capture part is a leftover: replace it.
		if err := writePart(w.mem, w.codec, filepath.Join(w.dir, t.Name), name, t,
			hv, st, w.redact, true); err != nil {
			return err
		}
	}
	t := tableNamed("capture")
	if err := writePart(w.mem, w.codec, filepath.Join(w.dir, t.Name), name, t,
		cv, st, w.redact, false); err != nil {
		return err
	}
	w.wroteSession = true
	return nil
}

// Commit writes one run: a part rNNNNNN.parquet (the run id) in each table
// with rows, the runs part last. When Commit returns nil the run is durable;
// if it fails or the process dies first, the run is not in the capture and
// Resume removes what was written of it. The writer sets CaptureID on every
// row, RunID on every row to b.Run.RunID, and Session on the run row.
// Committing a run id that is already in the capture is an error.
func (w *Writer) Commit(b *Batch) error { return w.CommitMany([]*Batch{b}) }

// CommitMany writes several runs as one part per table, named by the first
// run's id: what an import or a generator of many runs does, since a part
// per run makes a capture of 100,000 runs a million small files. The runs
// are durable together or not at all.
func (w *Writer) CommitMany(bs []*Batch) error { return w.commit(bs, nil) }

// commit is CommitMany; with a spill (of bs's one run) each part in
// progress ends with the batch's rows of its table (spill.go).
func (w *Writer) commit(bs []*Batch, sp *Spill) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errClosed
	}
	if !w.wroteSession {
		return errors.New("samples: Commit before WriteSession")
	}
	if len(bs) == 0 {
		return nil
	}
	ids, err := w.newRuns(bs)
	if err != nil {
		return err
	}
	first := bs[0].Run.RunID
	what := fmt.Sprintf("run %d", first)
	if len(bs) > 1 {
		what = fmt.Sprintf("runs %d to %d", first, bs[len(bs)-1].Run.RunID)
	}
	st := stamp{captureID: w.id, session: w.session, runID: first, hasRunID: len(bs) == 1}
	name := runPart(first)
	runs, rawBytes := tableNamed("runs"), tableNamed("raw_bytes")
	var raws []RawBytes
	runRows, runRaws := runs.validText(batchRows(runs, bs), w.redactOrKeep())
	raws = append(raws, runRaws...)
	write := func(t *Table, rows reflect.Value, clobber bool) error {
		if rows.Len() == 0 && t != runs && sp.table(t) == nil {
			return nil
		}
		// The runs are not committed, so a part of that name is a leftover
		// of an earlier failed attempt: replace it.
		if err := sp.writePart(w, t, name, rows, st, clobber); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	for i := range Tables {
		if t := &Tables[i]; t != runs && t != rawBytes {
			rows := batchRows(t, bs)
			if t.Name == "run_facts" && rows.Len() > 0 {
				rows = reflect.AppendSlice(reflect.MakeSlice(rows.Type(), 0, rows.Len()), rows) // the caller's rows stay as they were
				if err := w.signFacts(name, rows); err != nil {
					return fmt.Errorf("%s: %w", what, err)
				}
			}
			rows, tr := t.validText(rows, w.redactOrKeep())
			raws = append(raws, sp.raws(t, tr)...)
			if err := write(t, rows, true); err != nil {
				return err
			}
		}
	}
	if err := write(rawBytes, reflect.ValueOf(raws), true); err != nil {
		return err
	}
	if err := write(runs, runRows, false); err != nil {
		return err
	}
	w.noteRaw(what, raws)
	for id := range ids {
		w.done[id] = true
	}
	return nil
}

// newRuns checks that the batches are of runs not in the capture, and
// returns their ids.
func (w *Writer) newRuns(bs []*Batch) (map[int64]bool, error) {
	ids := map[int64]bool{}
	for _, b := range bs {
		if b == nil {
			return nil, errors.New("samples: Commit of a nil batch")
		}
		id := b.Run.RunID
		if id <= 0 {
			return nil, fmt.Errorf("samples: run id %d: run ids start at 1", id)
		}
		if w.done[id] || ids[id] {
			return nil, fmt.Errorf("samples: run %d is already in the capture", id)
		}
		for _, p := range w.compacted {
			if id >= p.first && id <= p.last {
				// Its part would count for nothing: the compacted one
				// replaces every part in its range.
				return nil, fmt.Errorf("samples: run %d lies within the compacted part %s, which holds runs %d to %d", id, p.name(), p.first, p.last)
			}
		}
		ids[id] = true
	}
	return ids, nil
}

// signFacts sets the raw_parts of a part's run_facts rows to the
// signature of the raw parts just written before them (Tables lists the
// raw tables first).
func (w *Writer) signFacts(part string, rows reflect.Value) error {
	sig, err := rawParts(os.DirFS(w.dir), ".", part, func(table string) string { return filepath.Join(w.dir, table, part) })
	if err != nil {
		return err
	}
	for i := range rows.Len() {
		rows.Index(i).FieldByName("RawParts").SetString(sig)
	}
	return nil
}

// redactOrKeep is the writer's redaction, or the identity.
func (w *Writer) redactOrKeep() func(string) string {
	if w.redact == nil {
		return func(s string) string { return s }
	}
	return w.redact
}

// noteRaw tells the writer's Note of the first value of each table and
// column made valid.
func (w *Writer) noteRaw(what string, raws []RawBytes) {
	for _, r := range raws {
		if key := r.Table + "." + r.Column; !w.noted[key] && w.note != nil {
			w.noted[key] = true
			if r.RunID > 0 {
				what = fmt.Sprintf("run %d", r.RunID) // the run, not the runs of its part
			}
			w.note(notReplaced(what, r))
		}
	}
}

// batchRows gathers the rows of table t of every batch, each row's run id
// set to its batch's when there are several.
func batchRows(t *Table, bs []*Batch) reflect.Value {
	if _, ok := batchFields[t.Name]; !ok {
		return reflect.MakeSlice(reflect.SliceOf(t.Type), 0, 0) // a table of sessions, not runs
	}
	if len(bs) == 1 {
		rows, _ := bs[0].rows(t)
		return rows
	}
	// Made at its size: grown by appending, a chunk's rows were copied
	// as the slice doubled (a quarter of an import's time).
	n := 0
	for _, b := range bs {
		rows, _ := b.rows(t)
		n += rows.Len()
	}
	all := reflect.MakeSlice(reflect.SliceOf(t.Type), 0, n)
	for _, b := range bs {
		rows, _ := b.rows(t)
		start := all.Len()
		all = reflect.AppendSlice(all, rows)
		if t.runID >= 0 {
			for i := start; i < all.Len(); i++ {
				all.Index(i).Field(t.cols[t.runID].field).SetInt(b.Run.RunID)
			}
		}
	}
	return all
}
