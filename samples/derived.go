package samples

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pgstudy/pgstudy/samples/infile"
)

// Parts lists the committed parts of a table, in order: for a table of
// runs, the parts whose runs are in the capture.
func (r *Reader) Parts(table string) ([]string, error) {
	t := tableNamed(table)
	if t == nil {
		return nil, fmt.Errorf("samples: no table %s", table)
	}
	return r.committedParts(t)
}

// ReadPart reads the rows of one part of T's table, checked as ReadParts
// checks them; a part the table lacks has no rows. With columns named,
// only those are decoded.
func ReadPart[T any](r *Reader, part string, columns ...string) ([]T, error) {
	return ReadPartInto[T](r, part, nil, columns...)
}

// ReadPartWhere is ReadPartInto with the text column text decoded only for the
// rows keep accepts; the other rows hold "" in it. keep is given each row
// with its other columns read (those named, or all), the text column not
// yet: a table's long text that a reader needs of only some rows (the SQL
// of a few statements among the statistics queries) is neither copied
// nor kept for the others. The column must be of text that is never null.
func ReadPartWhere[T any](r *Reader, part string, rows []T, text string, keep func(*T) bool, columns ...string) ([]T, error) {
	t, err := tableOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(t.cols, func(c column) bool { return c.name == text })
	if i < 0 || t.cols[i].kind != kindString || t.cols[i].nullable {
		return nil, fmt.Errorf("samples: table %s has no text column %s that is never null", t.Name, text)
	}
	off := t.Type.Field(t.cols[i].field).Offset
	return readPartInto(r, t, part, rows, columns, &textFilter{column: text,
		keep: func(field unsafe.Pointer) bool { return keep((*T)(unsafe.Add(field, -off))) }})
}

// ReadPartInto is ReadPart into rows[:0]: it reuses the room of rows, and
// returns the rows read (in a new slice when they do not fit). A caller
// that reads many parts of a large table one after the other (the disk
// facts of a long study) keeps one slice instead of allocating a new one
// a part, and the garbage collector has that much less to do. A field the
// part does not fill is zero, whatever rows held. After an error rows
// must not be used again: a read given up on may still write into them.
func ReadPartInto[T any](r *Reader, part string, rows []T, columns ...string) ([]T, error) {
	t, err := tableOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	return readPartInto(r, t, part, rows, columns, nil)
}

// readPartInto is ReadPartInto of table t, whose rows are T, with an
// optional filter of a text column.
func readPartInto[T any](r *Reader, t *Table, part string, rows []T, columns []string, where *textFilter) ([]T, error) {
	rows = rows[:0]
	columns = checkedColumns(t, columns)
	if where != nil && len(columns) > 0 && !slices.Contains(columns, where.column) {
		columns = append(slices.Clip(columns), where.column)
	}
	if _, err := fs.Stat(r.fsys, path.Join(r.root, t.Name, part)); errors.Is(err, fs.ErrNotExist) {
		// A table may have no part for some runs; but a part whose runs
		// part is gone too was removed by a compaction since the caller
		// listed it, and reading it as empty would lose its rows.
		if _, err := fs.Stat(r.fsys, path.Join(r.root, "runs", part)); t.perRun() && errors.Is(err, fs.ErrNotExist) {
			return nil, errChanged(r.join(r.dir, t.Name, part))
		}
		return rows, nil
	}
	if err := r.readPart(t, part, reflect.ValueOf(&rows).Elem(), columns, where); err != nil {
		return nil, err
	}
	if err := r.checkRows(t, part, reflect.ValueOf(rows), columns); err != nil {
		return nil, err
	}
	return rows, nil
}

// PartRows is how many rows a part of T's table holds, as its footer
// says, without decoding them; a part the table lacks holds none. It is
// for a table the caller does not read, but whose parts must be there
// (the disk facts beside the disk figures an analysis reads instead).
func PartRows[T any](r *Reader, part string) (int64, error) {
	f, err := ReadPartFooter[T](r, part)
	return f.Rows, err
}

// ReadPartFooter is PartRows with the range of the part's run ids, from
// its footer's statistics: a table the analysis only counts (disk_facts)
// is checked to hold its runs, not another part's renamed.
func ReadPartFooter[T any](r *Reader, part string) (PartFooter, error) {
	t, err := tableOf(reflect.TypeFor[T]())
	if err != nil {
		return PartFooter{}, err
	}
	st, err := fs.Stat(r.fsys, path.Join(r.root, t.Name, part))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return PartFooter{}, nil
	case err != nil:
		return PartFooter{}, fmt.Errorf("samples: %w", err)
	case !st.Mode().IsRegular():
		return PartFooter{}, fmt.Errorf("samples: %s: not a regular file (%s); expected a Parquet part as pgstudy writes it",
			r.join(r.dir, t.Name, part), infile.Kind(st.Mode()))
	}
	return r.footer(t, part)
}

// Derived writes tables derived from a capture's raw text (its facts)
// beside it, part by part, under the names of the runs parts they are of.
// It holds the capture's lock: a collector cannot resume it meanwhile.
type Derived struct {
	dir  string
	lock *os.File
}

// ErrNotOnDisk is OpenDerived's error for a capture that is not a folder
// of this machine's file system (the embedded sample).
var ErrNotOnDisk = errors.New("the capture is not a folder on disk")

// ErrNotRegular is Derived.Write's error for a part's name taken by
// something else than a regular file (a folder, a FIFO, a link): it is
// left as it is, and the other parts can still be stored.
var ErrNotRegular = errors.New("pgstudy replaces only regular files")

// ErrFleet is OpenDerived's error for a partition of a fleet: a fleet is
// published whole by compact, never written by an analysis.
var ErrFleet = errors.New("a fleet's partition is not written by an analysis")

// OpenDerived opens the capture r reads for writing derived tables. It
// fails when the capture is not on disk, cannot be written, or is in use
// by a collector. Holding the lock, it removes what a writer of derived
// tables killed part way left: temp files in their folders.
func (r *Reader) OpenDerived() (*Derived, error) {
	if _, ok := r.fsys.(partitionFS); ok {
		return nil, ErrFleet
	}
	if !r.onDisk || len(r.captures) == 0 {
		return nil, ErrNotOnDisk
	}
	lock, err := lockDir(r.dir)
	if err != nil {
		return nil, err
	}
	d := &Derived{dir: r.dir, lock: lock}
	if err := d.removeTemps(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Headroom is the free space storing derived tables leaves on the
// capture's file system: they are a saving, and a disk they filled would
// fail what the user does next.
const Headroom = 64 << 20

// Room fails when storing size bytes would leave less than Headroom free
// on the capture's file system (where its free space is known).
func (d *Derived) Room(size int64) error {
	free, ok := freeBytes(d.dir)
	if ok && free-size < Headroom {
		return fmt.Errorf("they need %d KiB and the capture's file system has %d KiB free; pgstudy leaves %d MiB free", (size+1023)>>10, free>>10, Headroom>>20)
	}
	return nil
}

// HasRunsPart is whether the capture holds the runs part named part: a
// capture compacted since it was read no longer does, and facts stored
// under that name would never count.
func (d *Derived) HasRunsPart(part string) bool {
	fi, err := os.Lstat(filepath.Join(d.dir, "runs", part))
	return err == nil && fi.Mode().IsRegular()
}

// Close releases the capture's lock.
func (d *Derived) Close() error { return d.lock.Close() }

// removeTemps removes the temp files of the derived tables' folders: with
// the capture's lock held, none is being written.
func (d *Derived) removeTemps() error {
	for _, name := range derivedTables {
		folder := filepath.Join(d.dir, name)
		entries, err := os.ReadDir(folder)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		for _, e := range entries {
			if isTemp(e.Name()) && e.Type().IsRegular() {
				if err := os.Remove(filepath.Join(folder, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("samples: %w", err)
				}
			}
		}
	}
	return nil
}

// derivedTables are the tables an analysis may write beside a capture:
// its facts, computed from the raw text.
var derivedTables = []string{"disk_facts", "disk_figures", "disk_intervals", "io_facts", "view_facts", "fact_problems", "run_facts"}

// IsDerived tells a derived table (facts an analysis stored beside the
// capture) from a raw one, by its name.
func IsDerived(table string) bool { return slices.Contains(derivedTables, table) }

// DerivedPart is one part of a derived table, encoded in memory, to be
// stored by Derived.Write: an analysis encodes its facts as it computes
// them and stores them once the output its user asked for is written, so
// that they never take the space that output needs.
type DerivedPart struct {
	Table, Part string
	data        []byte // nil: the part has no rows; an old one is removed
}

// Size is the bytes the part takes once stored.
func (p DerivedPart) Size() int { return len(p.data) }

// EncodeDerived encodes rows as the part named part (a runs part of the
// capture r reads) of T's table.
func EncodeDerived[T any](r *Reader, part string, rows []T) (DerivedPart, error) {
	t, err := tableOf(reflect.TypeFor[T]())
	if err != nil {
		return DerivedPart{}, err
	}
	if _, ok := parseRunPart(part); !ok || !slices.Contains(derivedTables, t.Name) {
		return DerivedPart{}, fmt.Errorf("samples: %s is not a part of runs of a derived table (%s)", part, t.Name)
	}
	p := DerivedPart{Table: t.Name, Part: part}
	if len(rows) == 0 {
		return p, nil
	}
	var id string
	if len(r.captures) > 0 {
		id = r.captures[0].CaptureID
	}
	codec, _ := CompressionZstd.codec()
	var buf bytes.Buffer
	if err := encodePart(&buf, memory.DefaultAllocator, codec, t, reflect.ValueOf(rows), stamp{captureID: id}); err != nil {
		return DerivedPart{}, fmt.Errorf("samples: %s/%s: %w", t.Name, part, err)
	}
	p.data = buf.Bytes()
	return p, nil
}

// WriteDerived encodes rows as the part named part of T's table and
// stores it (EncodeDerived, then Write).
func WriteDerived[T any](d *Derived, r *Reader, part string, rows []T) error {
	p, err := EncodeDerived(r, part, rows)
	if err != nil {
		return err
	}
	return d.Write(p)
}

// Write stores p in place of the part of its name, durably: written to a
// temp file, synced and renamed over the old part. A part with no rows
// removes the old one. Only a regular file is ever replaced or removed:
// anything else of that name (a folder, a FIFO, a link) is left as it is,
// and is an error.
func (d *Derived) Write(p DerivedPart) error {
	folder := filepath.Join(d.dir, p.Table)
	final := filepath.Join(folder, p.Part)
	if fi, err := os.Lstat(final); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("samples: %s is %s, not a regular file: left as it is: %w", final, infile.Kind(fi.Mode()), ErrNotRegular)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("samples: %w", err)
	}
	if p.data == nil {
		err := os.Remove(final)
		if err == nil {
			return syncDir(folder)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("samples: %w", err)
	}
	if _, err := os.Stat(folder); errors.Is(err, fs.ErrNotExist) {
		// A capture made before this table existed: the folder is new,
		// and durable once the capture's folder is synced.
		if err := os.Mkdir(folder, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("samples: %w", err)
		}
		if err := syncDir(d.dir); err != nil {
			return err
		}
	}
	return writeBytes(folder, p.Part, p.data)
}

// factSources are the raw tables the fact tables are computed from.
var factSources = []string{"diskstats", "stats"}

// RawParts is the signature of the raw parts a part's facts are computed
// from (RunFact.RawParts): for each of diskstats and stats, the part's size
// and the CRC-32C of all its bytes, or "none". Facts whose signature is not
// the capture's were computed from other bytes (a part replaced, damaged
// or lost since), and are computed again.
func (r *Reader) RawParts(part string) (string, error) {
	return rawParts(r.fsys, r.root, part, func(table string) string { return r.join(r.dir, table, part) })
}

// rawParts is RawParts over the capture at root in fsys; shown names a
// table's part in an error.
func rawParts(fsys fs.FS, root, part string, shown func(table string) string) (string, error) {
	var b strings.Builder
	for i, table := range factSources {
		if i > 0 {
			b.WriteString("; ")
		}
		sig, err := partSignature(fsys, path.Join(root, table, part))
		if err != nil {
			return "", fmt.Errorf("samples: %s: %w", shown(table), err)
		}
		b.WriteString(table + " " + sig)
	}
	return b.String(), nil
}

// partSignature is "none", or a part's size and the CRC-32C of its bytes.
func partSignature(fsys fs.FS, name string) (string, error) {
	// Stat before Open: opening a FIFO would wait for a writer.
	info, err := fs.Stat(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "none", nil
	}
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s, not a regular file", infile.Kind(info.Mode()))
	}
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.Copy(h, f)
	if err != nil {
		return "", err
	}
	if n != info.Size() {
		return "", fmt.Errorf("%s changed while it was read", name)
	}
	return fmt.Sprintf("%d crc32c %08x", n, h.Sum32()), nil
}

// castagnoli is the CRC-32C table: computed by the processor's own
// instruction where it has one.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)
