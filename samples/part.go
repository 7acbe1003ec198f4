package samples

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
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

// isTemp reports whether a file name is a part being written.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix)
}

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
	rec, err := t.record(mem, rows, st, redact)
	if err != nil {
		return err
	}
	defer rec.Release()

	f, err := createTemp(folder, tempPattern(name))
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()

	// The Parquet writer closes its sink when done, so hand it a buffer
	// rather than the file: the file must stay open to be synced.
	bw := bufio.NewWriterSize(f, 256<<10)
	props := parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(codec),
		parquet.WithDictionaryDefault(true),
		parquet.WithMaxRowGroupLength(cmp.Or(groupRows, max(rec.NumRows(), 1))),
	)
	arrowProps := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem), pqarrow.WithStoreSchema())
	fw, err := pqarrow.NewFileWriter(t.Schema, bw, props, arrowProps)
	if err != nil {
		return fmt.Errorf("samples: %s: %w", final, err)
	}
	if err := writeParquet(fw, rec, bw); err != nil {
		return fmt.Errorf("samples: %s: %w", final, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("samples: %s: %w", final, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("samples: %s: %w", final, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("samples: %s: %w", final, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	return syncDir(folder)
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

// writeParquet writes rec and closes fw. The Parquet writer loses an error
// of its sink (a full disk) and panics in Close on the page it could not
// write: the sink's error, which bufio keeps, is returned instead.
func writeParquet(fw *pqarrow.FileWriter, rec arrow.Record, bw *bufio.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if ferr := bw.Flush(); ferr != nil {
				err = ferr
				return
			}
			panic(p)
		}
	}()
	if err := fw.Write(rec); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}
