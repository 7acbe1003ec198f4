package samples

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/pgstudy/pgstudy/samples/infile"
)

// Reader reads a capture folder, on disk or in an fs.FS (an embedded
// sample capture, say).
type Reader struct {
	fsys     fs.FS
	root     string // slash path of the capture inside fsys
	dir      string // the capture as the caller named it, for Dir and messages
	join     func(elem ...string) string
	mem      memory.Allocator
	captures []Capture
	onDisk   bool // opened by Open: dir is a folder of this machine
}

// Open opens the capture in dir. It checks that dir is a capture (a capture/
// folder with at least one part), that no part of it is of a newer format
// than this program reads, and reads the capture rows.
func Open(dir string) (*Reader, error) {
	if dir == "" {
		dir = "."
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("capture %s: no such folder (expected the folder pgstudy collect or import wrote)", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("samples: open capture: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("samples: %s is not a pgstudy capture: not a folder", dir)
	}
	// A table folder is a folder of the capture: a symbolic link could
	// lead outside it.
	for _, t := range Tables {
		if st, err := os.Lstat(filepath.Join(dir, t.Name)); err == nil && !st.IsDir() {
			return nil, fmt.Errorf("samples: %s is %s, not a folder of the capture (copy the capture again, following no links)",
				filepath.Join(dir, t.Name), infile.Kind(st.Mode()))
		}
	}
	r, err := open(os.DirFS(dir), ".", dir, filepath.Join)
	if err != nil {
		return nil, err
	}
	r.onDisk = true
	// A collected capture has a part in each of these tables for every
	// run: one of them missing is a copy that stopped part way (or one
	// that left out folders), which would read as runs whose disk figures,
	// settings or statements are unknown. (Empty folders do not survive
	// every copy, git's among them, so tables that may be empty are not
	// asked for.)
	if hosts, _ := r.parts("host"); len(hosts) > 0 {
		if runs, _ := r.parts("runs"); len(runs) > 0 {
			for _, name := range collectedTables {
				if st, err := os.Stat(filepath.Join(dir, name)); err != nil || !st.IsDir() {
					return nil, fmt.Errorf("samples: %s is not a whole capture: it has no %s folder, which every collected run writes to; "+
						"was it copied only in part? copy it again", dir, name)
				}
			}
		}
	}
	return r, nil
}

// collectedTables are the tables every run of pgstudy collect writes to.
var collectedTables = []string{"runs", "steps", "statements", "diskstats", "stats", "settings", "servers"}

// openFS is Open for a capture at dir (a slash path, "." for the root)
// inside fsys.
func openFS(fsys fs.FS, dir string) (*Reader, error) {
	if dir == "" {
		dir = "."
	}
	if !fs.ValidPath(dir) {
		return nil, fmt.Errorf("samples: open capture: invalid path %q", dir)
	}
	return open(fsys, dir, dir, path.Join)
}

func open(fsys fs.FS, root, dir string, join func(...string) string) (*Reader, error) {
	r := &Reader{fsys: fsys, root: root, dir: dir, join: join, mem: pagePool{}}
	parts, err := r.parts("capture")
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("samples: %s is not a pgstudy capture: it has no %s",
			dir, join("capture", "*"+partSuffix))
	}
	if r.captures, err = Read[Capture](r); err != nil {
		return nil, err
	}
	// One capture per folder: two copied into one would read as one.
	ids := map[string]bool{}
	for _, c := range r.captures {
		ids[c.CaptureID] = true
	}
	if len(ids) > 1 {
		return nil, fmt.Errorf("samples: %s holds %d captures (ids %s), not one: were two captures copied into one folder? keep each in its own",
			dir, len(ids), strings.Join(slices.Sorted(maps.Keys(ids)), ", "))
	}
	return r, nil
}

// Dir is the capture folder as given to Open.
func (r *Reader) Dir() string { return r.dir }

// Captures returns the capture rows, one per session, in session order.
func (r *Reader) Captures() []Capture { return slices.Clone(r.captures) }

// parts lists the finished parts of a table, in order. A missing folder has
// no parts: an embedded capture cannot hold empty folders.
func (r *Reader) parts(table string) ([]string, error) {
	entries, err := fs.ReadDir(r.fsys, path.Join(r.root, table))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("samples: %s: %w", r.join(r.dir, table), err)
	}
	// A part is a regular file: a symbolic link could lead outside the
	// capture, and a FIFO would block its reader. Its name is one pgstudy
	// gives (a copy named "r000005 (1).parquet" would count a run twice).
	prefix := byte('r')
	if t := tableNamed(table); t != nil && !t.perRun() {
		prefix = 's'
	}
	for _, e := range entries {
		if !isPart(e.Name()) || e.IsDir() {
			continue
		}
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("samples: %s is %s; a capture's parts are regular files (copy the capture again, following no links)",
				r.join(r.dir, table, e.Name()), infile.Kind(e.Type()))
		}
		p := prefix
		if table == "raw_bytes" && strings.HasPrefix(e.Name(), "s") {
			p = 's' // the originals of a session's tables
		}
		if !canonicalName(e.Name(), p) {
			return nil, fmt.Errorf("samples: %s is not a part pgstudy writes (they are named %s): a copy made by hand or by a file manager? "+
				"move it out of the capture", r.join(r.dir, table, e.Name()), canonicalPart(prefix, 1))
		}
	}
	return partNames(entries), nil
}

// committedParts lists the parts of t that belong to a finished run or
// session. A collector killed while it commits a run leaves whole parts of
// that run in some tables and none in runs/, and a compaction killed part
// way leaves parts it wrote or replaced (runparts.go); a reader counts
// none of them.
func (r *Reader) committedParts(t *Table) ([]string, error) {
	// A part counts when the part of its name in the table that commits it
	// does: capture/ for a session's, runs/ for a run's (raw_bytes has
	// both), and that runs part was not replaced by a compacted one.
	switch {
	case t.ofSession():
		return r.partsCommittedBy(t, func() ([]string, error) { return r.parts("capture") })
	case t.perRun() || t.Name == "raw_bytes":
		// runs/ is listed before and after the table: a compaction that
		// committed in between (and may have removed parts the first
		// listing counted) is seen, and the listing made again.
		for range 3 {
			live, err := r.liveRuns()
			if err != nil {
				return nil, err
			}
			if t.Name == "runs" {
				return live, nil
			}
			parts, err := r.partsCommittedBy(t, func() ([]string, error) {
				if t.Name != "raw_bytes" {
					return live, nil
				}
				sessions, err := r.parts("capture")
				return append(sessions, live...), err
			})
			if err != nil {
				return nil, err
			}
			again, err := r.liveRuns()
			if err != nil {
				return nil, err
			}
			if slices.Equal(live, again) {
				return parts, nil
			}
		}
		return nil, fmt.Errorf("samples: %s changed while it was read, three times (is it being compacted?); run the command again",
			r.dir)
	}
	return r.parts(t.Name)
}

// partsCommittedBy lists the parts of t whose name commits lists.
func (r *Reader) partsCommittedBy(t *Table, commits func() ([]string, error)) ([]string, error) {
	parts, err := r.parts(t.Name)
	if err != nil {
		return nil, err
	}
	done, err := commits()
	if err != nil {
		return nil, err
	}
	committed := make(map[string]bool, len(done))
	for _, p := range done {
		committed[p] = true
	}
	return slices.DeleteFunc(parts, func(p string) bool { return !committed[p] }), nil
}

// liveRuns lists the runs parts that count: those no compacted part
// replaced.
func (r *Reader) liveRuns() ([]string, error) {
	names, err := r.parts("runs")
	if err != nil {
		return nil, err
	}
	live, _, err := liveRunParts(names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.join(r.dir, "runs"), err)
	}
	return live, nil
}

// listParts lists the finished parts in a folder on disk, in order.
func listParts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	return partNames(entries), nil
}

// partNames keeps the names of finished parts (never temp files) and sorts
// them by the runs or sessions they are named after, so that run 1000000
// still comes after run 999999.
func partNames(entries []fs.DirEntry) []string {
	var names []string
	for _, e := range entries {
		if !e.IsDir() && isPart(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.SortFunc(names, comparePartNames)
	return names
}

// Read reads every row of T's table: each part in order, columns matched by
// name. A column the part lacks reads as nil if its field is a pointer and
// is an error otherwise; columns the part has and T does not are skipped, so
// parts of a later format that only adds columns still read.
func Read[T any](r *Reader) ([]T, error) {
	var all []T
	err := ReadParts(r, func(rows []T) error {
		all = append(all, rows...)
		return nil
	})
	return all, err
}

// ReadParts is Read one part at a time: fn gets the rows of each part in
// turn, so that a large table (every diskstats snapshot of a long study)
// need not be held whole. fn may keep the slice.
//
// With columns named, only those are decoded and the other fields are left
// zero: a table's long text columns cost most of its reading.
func ReadParts[T any](r *Reader, fn func(rows []T) error, columns ...string) error {
	t, err := tableOf(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	columns = checkedColumns(t, columns)
	parts, err := r.committedParts(t)
	if err != nil {
		return err
	}
	for _, name := range parts {
		var rows []T
		if err := r.readPart(t, name, reflect.ValueOf(&rows).Elem(), columns, nil); err != nil {
			return err
		}
		if err := r.checkRows(t, name, reflect.ValueOf(rows), columns); err != nil {
			return err
		}
		if err := fn(rows); err != nil {
			return err
		}
	}
	return nil
}

// readDeadline is how much processor time reading a part of size bytes
// may take before it is called damaged: the Parquet reader can loop
// without end on some damaged page headers (found by fuzzing), and a
// damaged capture must give an error, not a pgstudy that never returns.
// The bound is far above what a sound part needs (about 0.3 s per MiB
// here). It is processor time, not time on the clock: a pgstudy stopped
// (Ctrl-Z) or starved by a busy machine has not read a damaged part.
var readDeadline = func(size int64) time.Duration {
	return 30*time.Second + time.Duration(size>>20)*2*time.Second
}

// readPart appends the rows of one part to out, a settable []t.Type.
// The rows are decoded on a goroutine of their own, given up on once the
// process has used readDeadline of processor time meanwhile (it is left
// to spin; the error ends the command). Anything but a regular file is
// refused before it is opened: opening a FIFO would wait for a writer.
func (r *Reader) readPart(t *Table, name string, out reflect.Value, only []string, where *textFilter) error {
	var size int64
	st, err := fs.Stat(r.fsys, path.Join(r.root, t.Name, name))
	if err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("samples: %s: not a regular file (%s); expected a Parquet part as pgstudy writes it",
			r.join(r.dir, t.Name, name), infile.Kind(st.Mode()))
	}
	if err == nil {
		size = st.Size()
	}
	rows := reflect.New(out.Type()).Elem()
	if out.Len() == 0 && out.Cap() > 0 { // the caller's room (ReadPartInto), zeroed
		rows.Set(out.Slice(0, out.Cap()))
		rows.Clear()
		rows.SetLen(0)
	}
	done := make(chan error, 1)
	go func() { done <- r.decodePart(t, name, rows, only, where) }()
	limit := readDeadline(size)
	begin := cpuTime()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			if out.Len() == 0 {
				out.Set(rows)
			} else {
				out.Set(reflect.AppendSlice(out, rows))
			}
			return nil
		case <-timer.C:
			used := cpuTime() - begin
			if used < limit {
				timer.Reset(max(limit-used, time.Second))
				continue
			}
			return fmt.Errorf("samples: %s: damaged part: the Parquet reader did not finish it in %s of processor time (a part of %d bytes); "+
				"expected a Parquet part as pgstudy writes it (copy the capture again from where it was made)",
				r.join(r.dir, t.Name, name), limit, size)
		}
	}
}

// openPart opens a part for the Parquet reader, which needs random
// access: a file system that cannot seek has the part read whole.
func (r *Reader) openPart(t *Table, name string) (fs.File, parquet.ReaderAtSeeker, error) {
	f, err := r.fsys.Open(path.Join(r.root, t.Name, name))
	if err != nil {
		return nil, nil, err
	}
	if src, ok := f.(parquet.ReaderAtSeeker); ok {
		return f, src, nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, bytes.NewReader(data), nil
}

// decodePart appends the rows of one part to out, a settable []t.Type.
func (r *Reader) decodePart(t *Table, name string, out reflect.Value, only []string, where *textFilter) (err error) {
	display := r.join(r.dir, t.Name, name)
	fail := func(format string, args ...any) error {
		return fmt.Errorf("samples: %s: %s", display, fmt.Sprintf(format, args...))
	}
	// damaged is the error of a part the Parquet reader cannot read as
	// written: what it saw, and what was expected.
	damaged := func(format string, args ...any) error {
		return fail("damaged part: %s; expected a Parquet part as pgstudy writes it (copy the capture again from where it was made)",
			fmt.Sprintf(format, args...))
	}
	// The Parquet reader panics on some corrupt input (a bad zstd frame);
	// a damaged part must be an error that names it, not a crash.
	defer func() {
		if p := recover(); p != nil {
			err = damaged("%v", p)
		}
	}()
	f, src, err := r.openPart(t, name)
	if errors.Is(err, fs.ErrNotExist) {
		return errChanged(r.join(r.dir, t.Name, name))
	}
	if err != nil {
		return fail("%v", err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(src, file.WithReadProps(readProps(r.mem)))
	if err != nil {
		return damaged("%v", err)
	}
	md := pf.MetaData()
	if err := checkPartMeta(md.KeyValueMetadata().FindValue, t.Name); err != nil {
		return fail("%v", err)
	}

	if c, unknown := renamedColumn(md, t); unknown != "" {
		return damaged("column %s is missing and column %q unknown: a damaged column name", c, unknown)
	}
	leaves, wanted, err := pickColumns(md, t, only)
	if err != nil {
		return fail("%v", err)
	}
	if len(leaves) == 0 {
		out.Set(reflect.AppendSlice(out, reflect.MakeSlice(out.Type(), int(md.NumRows), int(md.NumRows))))
		return nil
	}

	ignoreArrowSchema(md)
	// The Parquet reader reads columns on goroutines of its own, where a
	// panic on a damaged footer cannot be recovered here: check first that
	// every column chunk read lies within the file.
	if err := checkChunks(md, leaves, size(src)); err != nil {
		return damaged("%v", err)
	}
	if err := checkDecodedSize(md, leaves, t); err != nil {
		return fail("%v", err)
	}
	first := out.Len()
	if plans, ok := columnPlans(md, leaves, wanted); ok {
		err = decodeColumns(pf, where.last(plans), out)
	} else if err = decodeArrow(pf, leaves, wanted, out, r.mem); err == nil {
		where.clear(out, first)
	}
	if err, ok := isDamaged(err); ok {
		return damaged("%v", err)
	} else if err != nil {
		return fail("%v", err)
	}
	// The record reader takes a column that yields nothing for the end of
	// the data, so a damaged page can look like a short part: count.
	if got := int64(out.Len() - first); got != md.NumRows {
		return damaged("read %d of %d rows", got, md.NumRows)
	}
	return nil
}

// footerRows is the rows a part's footer counts, once the footer is
// read and checked as decodePart checks it.
func (r *Reader) footerRows(t *Table, name string) (n int64, err error) {
	f, err := r.footer(t, name)
	return f.Rows, err
}

// PartFooter is what a part's footer says without a row decoded: its
// rows, and the least and greatest run ids of its rows where its
// statistics hold them (RunRange).
type PartFooter struct {
	Rows           int64
	MinRun, MaxRun int64
	RunRange       bool
}

// footer reads a part's footer: its rows, and its run ids' range from
// the statistics of its row groups.
func (r *Reader) footer(t *Table, name string) (out PartFooter, err error) {
	display := r.join(r.dir, t.Name, name)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("samples: %s: damaged part: %v; expected a Parquet part as pgstudy writes it", display, p)
		}
	}()
	f, src, err := r.openPart(t, name)
	if err != nil {
		return out, fmt.Errorf("samples: %s: %w", display, err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(src, file.WithReadProps(readProps(r.mem)))
	if err != nil {
		return out, fmt.Errorf("samples: %s: damaged part: %v; expected a Parquet part as pgstudy writes it", display, err)
	}
	md := pf.MetaData()
	if err := checkPartMeta(md.KeyValueMetadata().FindValue, t.Name); err != nil {
		return out, fmt.Errorf("samples: %s: %w", display, err)
	}
	out.Rows = md.NumRows
	if t.runID >= 0 && md.NumRows > 0 {
		out.MinRun, out.MaxRun, out.RunRange = runRange(md, t.cols[t.runID].name)
	}
	return out, nil
}

// runRange is the least and greatest value of the int64 column col over
// the row groups of md, from their statistics; ok is false where one
// lacks them.
func runRange(md *metadata.FileMetaData, col string) (lo, hi int64, ok bool) {
	idx := md.Schema.ColumnIndexByName(col)
	if idx < 0 {
		return 0, 0, false
	}
	for i := range md.NumRowGroups() {
		cc, err := md.RowGroup(i).ColumnChunk(idx)
		if err != nil {
			return 0, 0, false
		}
		st, err := cc.Statistics()
		s, isInt := st.(*metadata.Int64Statistics)
		if err != nil || !isInt || !s.HasMinMax() {
			return 0, 0, false
		}
		if i == 0 || s.Min() < lo {
			lo = s.Min()
		}
		if i == 0 || s.Max() > hi {
			hi = s.Max()
		}
	}
	return lo, hi, true
}

// readProps are the Parquet reader's properties. Its default limits on a
// page (64 MiB compressed, 256 MiB decompressed) are below what a part may
// hold: one value as large as a client's output, stored uncompressed when
// the writer was asked for no compression. They are raised to
// maxDecodedPage, the bound the zstd codec keeps.
func readProps(mem memory.Allocator) *parquet.ReaderProperties {
	props := parquet.NewReaderProperties(mem)
	props.MaxCompressedPageSize = maxDecodedPage
	props.MaxUncompressedPageSize = maxDecodedPage
	return props
}
