package samples

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Part names. A part is named after what it belongs to, so the names in a
// folder are themselves the record of what has been written: s001.parquet
// for a session, r000001.parquet for a run. Zero padding keeps name order
// equal to numeric order.
func sessionPart(session int32) string { return fmt.Sprintf("s%03d.parquet", session) }

// canonicalPart is the name pgstudy gives the part numbered n.
func canonicalPart(prefix byte, n int64) string {
	if prefix == 's' {
		return sessionPart(int32(n))
	}
	return runPart(n)
}
func runPart(runID int64) string { return fmt.Sprintf("r%06d.parquet", runID) }

const (
	partSuffix = ".parquet"
	tempSuffix = ".tmp"
)

// tempPattern names a part being written. It starts with a dot and does not
// end in .parquet, so no reader, glob or query engine pointed at *.parquet
// can see a half-written file.
func tempPattern(part string) string {
	return "." + strings.TrimSuffix(part, partSuffix) + "-*" + tempSuffix
}

// isPart reports whether a file name is a finished part.
func isPart(name string) bool {
	return strings.HasSuffix(name, partSuffix) && !strings.HasPrefix(name, ".")
}

// isTemp reports whether a file name is a part being written, as
// tempPattern and createTemp name it: ".r000001-<base 36>.tmp". Nothing
// else is, so that a file of the user's (.notes.tmp) is never taken for
// one and removed.
func isTemp(name string) bool {
	return tempName.MatchString(name)
}

var tempName = regexp.MustCompile(`^\.[rs]\d+(-\d+)?-[0-9a-z]+\.tmp$`)

// parsePart returns the number in a part name made by sessionPart
// (prefix 's') or runPart (prefix 'r').
func parsePart(name string, prefix byte) (int64, bool) {
	if !isPart(name) || len(name) < 2 || name[0] != prefix {
		return 0, false
	}
	digits := strings.TrimSuffix(name[1:], partSuffix)
	var n int64
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, digits != ""
}

// Compression is the codec of the Parquet column chunks.
type Compression int

const (
	CompressionZstd Compression = iota // the default: small files, fast to read
	CompressionSnappy
	CompressionNone
)

func (c Compression) codec() (compress.Compression, error) {
	switch c {
	case CompressionZstd:
		return compress.Codecs.Zstd, nil
	case CompressionSnappy:
		return compress.Codecs.Snappy, nil
	case CompressionNone:
		return compress.Codecs.Uncompressed, nil
	}
	return 0, fmt.Errorf("samples: unknown compression %d", int(c))
}

// writePart encodes rows into folder/name. The bytes go to a temp file in
// the same folder, which is synced, closed and renamed into place, and then
// the folder is synced: once writePart returns the part is durable, and
// before that no reader can see it. With clobber false an existing part of
// that name is an error.
func writePart(mem memory.Allocator, codec compress.Compression, folder, name string,
	t *Table, rows reflect.Value, st stamp, redact func(string) string, clobber bool) (err error) {
	return writeGroups(mem, codec, folder, name, t, rows, st, redact, clobber, 0)
}

// writeGroups is writePart with row groups of at most groupRows rows (0:
// one row group for the part).
func writeGroups(mem memory.Allocator, codec compress.Compression, folder, name string,
	t *Table, rows reflect.Value, st stamp, redact func(string) string, clobber bool, groupRows int64) (err error) {
	final := filepath.Join(folder, name)
	if !clobber {
		if _, err := os.Lstat(final); err == nil {
			return fmt.Errorf("samples: %s already exists", final)
		} else if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("samples: %w", err)
		}
	}
	temp, err := stageGroups(mem, codec, folder, name, t, rows, st, redact, groupRows)
	if err != nil {
		return err
	}
	return placePart(temp, final)
}

// stageGroups writes rows as the part folder/name of t, as writeGroups
// does, but leaves it in its temp file (synced, closed: no reader sees
// it), whose path it returns, for placePart to put in place: compaction
// writes every table's part of a group before any is in place.
func stageGroups(mem memory.Allocator, codec compress.Compression, folder, name string,
	t *Table, rows reflect.Value, st stamp, redact func(string) string, groupRows int64) (string, error) {
	rec, err := t.record(mem, rows, st, redact)
	if err != nil {
		return "", err
	}
	defer rec.Release()
	p, err := createPart(mem, codec, folder, name, t, cmp.Or(groupRows, max(rec.NumRows(), 1))) // one row group per part unless told
	if err != nil {
		return "", err
	}
	if err := p.write(rec); err != nil {
		p.abort()
		return "", err
	}
	if err := p.seal(); err != nil {
		p.abort()
		return "", err
	}
	return p.f.Name(), nil
}

// placePart renames a staged part's temp file to final and syncs its
// folder: the part is in place, durably. After an error the temp file is
// removed.
func placePart(temp, final string) error {
	if err := os.Rename(temp, final); err != nil {
		os.Remove(temp)
		return fmt.Errorf("samples: %w", err)
	}
	return syncDir(filepath.Dir(final))
}

// partFile is a part being written: a temp file in its table's folder
// (tempPattern: no reader sees it) that takes one Parquet row group per
// write, and becomes the part, durably, at finish.
type partFile struct {
	f             *os.File
	bw            *bufio.Writer
	fw            *pqarrow.FileWriter
	folder, final string
}

// createPart starts the part folder/name of table t; a write of more
// than rowGroup rows is split into row groups of that many.
func createPart(mem memory.Allocator, codec compress.Compression, folder, name string, t *Table, rowGroup int64) (*partFile, error) {
	f, err := createTemp(folder, tempPattern(name))
	if err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	p := &partFile{f: f, folder: folder, final: filepath.Join(folder, name)}
	// The Parquet writer closes its sink when done, so hand it a buffer
	// rather than the file: the file must stay open to be synced.
	p.bw = bufio.NewWriterSize(f, 256<<10)
	if p.fw, err = newPartWriter(p.bw, mem, codec, t, rowGroup); err != nil {
		p.abort()
		return nil, fmt.Errorf("samples: %s: %w", p.final, err)
	}
	return p, nil
}

// newPartWriter is the Parquet writer of a part of t, into w.
func newPartWriter(w io.Writer, mem memory.Allocator, codec compress.Compression, t *Table, rowGroup int64) (*pqarrow.FileWriter, error) {
	props := parquet.NewWriterProperties(append(append(noStats(t), plainNumbers(t)...),
		parquet.WithAllocator(mem),
		parquet.WithCompression(codec),
		parquet.WithDictionaryDefault(true),
		parquet.WithMaxRowGroupLength(rowGroup),
	)...)
	arrowProps := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem), pqarrow.WithStoreSchema())
	return pqarrow.NewFileWriter(t.Schema, w, props, arrowProps)
}

// encodePart writes rows as a whole part of t (one row group) into w.
func encodePart(w io.Writer, mem memory.Allocator, codec compress.Compression, t *Table, rows reflect.Value, st stamp) error {
	rec, err := t.record(mem, rows, st, func(s string) string { return s })
	if err != nil {
		return err
	}
	defer rec.Release()
	fw, err := newPartWriter(w, mem, codec, t, max(rec.NumRows(), 1))
	if err != nil {
		return err
	}
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

// writeBytes makes data the part folder/name, durably: written to a temp
// file in the folder, synced, renamed into place, the folder synced. After
// an error no temp file is left.
func writeBytes(folder, name string, data []byte) error {
	f, err := createTemp(folder, tempPattern(name))
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	final := filepath.Join(folder, name)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("samples: %s: %w", final, err)
	}
	return syncDir(folder)
}

// noStats turns Parquet's min and max statistics off for the columns of
// raw text (those of the tables of text, a snapshot's, a statistics
// row's): the writer copies each value it compares, four times over, to
// drop them from the footer past 4 KiB in the end. An import's capture
// row, which holds its manifest (46 MB for a million rows), took 575 MB
// to write with them, 215 MB without.
func noStats(t *Table) []parquet.WriterProperty {
	var props []parquet.WriterProperty
	for i, c := range t.cols {
		if c.kind == kindString && i != t.captureID && (slices.Contains(textTables, t.Name) || c.name == "text" || c.name == "json") {
			props = append(props, parquet.WithStatsFor(c.name, false))
		}
	}
	return props
}

// plainNumbers writes the 64-bit numbers and times without a dictionary:
// a counter, a time, a run's id or a measured figure rarely repeats, so a
// dictionary holds every value and adds an index per row to it. Plain
// pages (which every Parquet reader reads) are smaller once compressed and
// faster to decode: disk_facts of 100,000 runs went from 46 to 25 MB, and
// its decoding from 0.64 to 0.53 s (docs/PERFORMANCE.md). Text, flags and
// 32-bit columns (a snapshot's seq, a version) repeat and keep theirs.
func plainNumbers(t *Table) []parquet.WriterProperty {
	var props []parquet.WriterProperty
	for _, c := range t.cols {
		if c.kind == kindInt64 || c.kind == kindFloat64 || c.kind == kindTime {
			props = append(props, parquet.WithDictionaryFor(c.name, false))
		}
	}
	return props
}

// write adds rec to the part as a row group, its bytes handed to the file
// (not yet synced).
func (p *partFile) write(rec arrow.Record) error {
	err := p.guard(func() error {
		if err := p.fw.Write(rec); err != nil {
			return err
		}
		return p.bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("samples: %s: %w", p.final, fileError(err))
	}
	return nil
}

// fileError is the file system's error inside err, when there is one:
// the Parquet writer wraps a failed write it recovers from as "unknown
// error type: write ...: no space left on device", which says less than
// the file system's own error, and says it as if it were strange.
func fileError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe
	}
	return err
}

// finish writes the part's footer, syncs and closes its file and renames
// it into place, then syncs the folder: the part is durable. After an
// error, abort removes the temp file.
func (p *partFile) finish() error {
	if err := p.seal(); err != nil {
		return err
	}
	if err := os.Rename(p.f.Name(), p.final); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	return syncDir(p.folder)
}

// seal writes the part's footer and syncs and closes its temp file.
func (p *partFile) seal() error {
	if err := p.guard(p.fw.Close); err != nil {
		return fmt.Errorf("samples: %s: %w", p.final, fileError(err))
	}
	if err := p.bw.Flush(); err != nil {
		return fmt.Errorf("samples: %s: %w", p.final, err)
	}
	if err := p.f.Sync(); err != nil {
		return fmt.Errorf("samples: %s: %w", p.final, err)
	}
	if err := p.f.Close(); err != nil {
		return fmt.Errorf("samples: %s: %w", p.final, err)
	}
	return nil
}

// abort closes the part's temp file and removes it.
func (p *partFile) abort() {
	p.f.Close()
	os.Remove(p.f.Name())
}

// createTemp is os.CreateTemp with the mode of a file others may read, as
// the umask allows (0644 under 022), rather than 0600: a capture is made
// to be copied and read by others. The pattern's last * is replaced.
func createTemp(dir, pattern string) (*os.File, error) {
	i := strings.LastIndex(pattern, "*")
	for range 1000 {
		name := pattern[:i] + strconv.FormatUint(rand.Uint64(), 36) + pattern[i+1:]
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file in %s: too many names taken", dir)
}

// syncDir makes the entries of a folder (a rename, a removal) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		// EINVAL: the file system cannot sync a folder; nothing more can
		// be done there.
		return fmt.Errorf("samples: sync %s: %w", dir, err)
	}
	return nil
}

// guard runs fn, a call of the Parquet writer. The Parquet writer loses
// an error of its sink (a full disk) and panics in Close on the page it
// could not write: the sink's error, which bufio keeps, is returned
// instead.
func (p *partFile) guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if ferr := p.bw.Flush(); ferr != nil {
				err = ferr
				return
			}
			panic(r)
		}
	}()
	return fn()
}
