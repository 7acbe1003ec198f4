package samples

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
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
	t, err := tableOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	if _, err := fs.Stat(r.fsys, path.Join(r.root, t.Name, part)); errors.Is(err, fs.ErrNotExist) {
		// A table may have no part for some runs; but a part whose runs
		// part is gone too was removed by a compaction since the caller
		// listed it, and reading it as empty would lose its rows.
		if _, err := fs.Stat(r.fsys, path.Join(r.root, "runs", part)); t.perRun() && errors.Is(err, fs.ErrNotExist) {
			return nil, errChanged(r.join(r.dir, t.Name, part))
		}
		return nil, nil
	}
	var rows []T
	if err := r.readPart(t, part, reflect.ValueOf(&rows).Elem(), columns); err != nil {
		return nil, err
	}
	if err := r.checkRows(t, part, reflect.ValueOf(rows), columns); err != nil {
		return nil, err
	}
	return rows, nil
}

// Derived writes tables derived from a capture's raw text (its facts)
// beside it, part by part, under the names of the runs parts they are of.
// It holds the capture's lock: a collector cannot resume it meanwhile.
type Derived struct {
	dir   string
	id    string
	lock  *os.File
	mem   memory.Allocator
	codec compress.Compression
}

// ErrNotOnDisk is OpenDerived's error for a capture that is not a folder
// of this machine's file system (the embedded sample).
var ErrNotOnDisk = errors.New("the capture is not a folder on disk")

// OpenDerived opens the capture r reads for writing derived tables. It
// fails when the capture is not on disk, cannot be written, or is in use
// by a collector.
func (r *Reader) OpenDerived() (*Derived, error) {
	if !r.onDisk || len(r.captures) == 0 {
		return nil, ErrNotOnDisk
	}
	lock, err := lockDir(r.dir)
	if err != nil {
		return nil, err
	}
	codec, _ := CompressionZstd.codec()
	return &Derived{dir: r.dir, id: r.captures[0].CaptureID, lock: lock, mem: memory.DefaultAllocator, codec: codec}, nil
}

// Close releases the capture's lock.
func (d *Derived) Close() error { return d.lock.Close() }

// WriteDerived replaces the part of T's table named part (a runs part of
// the capture) with rows, durably: written whole to a temporary file,
// synced and renamed over the old one. No rows removes the part.
func WriteDerived[T any](d *Derived, part string, rows []T) error {
	t, err := tableOf(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	if _, ok := parseRunPart(part); !ok || !t.perRun() {
		return fmt.Errorf("samples: %s is not a part of runs of %s", part, t.Name)
	}
	folder := filepath.Join(d.dir, t.Name)
	if len(rows) == 0 {
		err := os.Remove(filepath.Join(folder, part))
		if err == nil || errors.Is(err, fs.ErrNotExist) {
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
	st := stamp{captureID: d.id}
	return writePart(d.mem, d.codec, folder, part, t, reflect.ValueOf(rows), st, func(s string) string { return s }, true)
}

// factSources are the raw tables the fact tables are computed from.
var factSources = []string{"diskstats", "stats"}

// RawParts is the signature of the raw parts a part's facts are computed
// from (RunFact.RawParts): for each of diskstats and stats, the part's size
// and a checksum of its last 8 KiB (the Parquet footer, which names every
// column chunk's size and bounds), or "none". Facts whose signature is not
// the capture's were computed from other bytes, and are computed again.
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

// partSignature is "none", or a part's size and the CRC-32 of its last
// 8 KiB.
func partSignature(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "none", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := info.Size()
	tail := min(size, 8<<10)
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		return "", fmt.Errorf("cannot seek in %s", name)
	}
	if _, err := rs.Seek(size-tail, io.SeekStart); err != nil {
		return "", err
	}
	h := crc32.NewIEEE()
	if _, err := io.CopyN(h, rs, tail); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %08x", size, h.Sum32()), nil
}
