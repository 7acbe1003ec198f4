package samples

// Compaction: the parts of many runs merged into one part per table.
//
// A study writes a part per run per table, so that a run is durable
// before the next starts; 100 hosts of 1,000 runs would be some 770,000
// small files, which no query engine reads well. Compact puts consecutive
// runs parts together into groups and writes, per table, one part named
// rFIRST-LAST.parquet holding the rows of every part of the group in
// order. The steps, each durable (temporary file, sync, rename, sync of
// the folder) before the next:
//
//  1. Check: the capture is of this format and every file is one pgstudy
//     writes, with columns it knows; otherwise nothing is touched.
//  2. Remove leftovers (what a killed collect or compaction left).
//  3. Per group: write each table's part, runs last. Until the runs part
//     is in place the new parts count for nothing (no runs part of their
//     name); once it is, the parts of its range are replaced, in every
//     table at once (runparts.go). Then remove the replaced parts, runs
//     last.
//
// Rows keep their order and every value; a raw_bytes row's row number
// within its part is moved by the rows the group holds before its part;
// the facts of a part whose signature was that of its raw parts are
// signed with the new raw parts, so they stay valid and are not computed
// again.

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
)

// DefaultPartBytes bounds what one table's part of a group holds, as its
// column chunks' uncompressed size: a reader holds a part decoded while
// it reads it (the analysis reads several tables side by side), and
// accepts at most 64 MiB of a table that is not raw text (partcheck.go).
const DefaultPartBytes = 32 << 20

// groupRows is the most rows a row group of a compacted part holds:
// DuckDB's own row group size, so that it and Spark split a large part
// for their threads where its rows are many; a part's bytes are bounded
// by DefaultPartBytes, below the 128 MiB row groups engines take well.
const groupRows = 122_880

// CompactOptions tune Compact.
type CompactOptions struct {
	// PartBytes bounds a table's part of a group (DefaultPartBytes when
	// zero).
	PartBytes int64
	// Stop, when set, is asked before each group: true ends the
	// compaction there, the groups done compacted and the others as they
	// were (a signal's clean stop, rather than one inside a group).
	Stop func() bool
}

// CompactSummary says what Compact did.
type CompactSummary struct {
	FilesBefore, FilesAfter int   // files in the capture folder
	BytesBefore, BytesAfter int64 // their bytes
	Groups                  int   // runs parts written, each replacing several
	Stopped                 bool  // Stop ended it before every group was done
	Leftovers               int   // leftover files removed
	// Facts of the replaced parts that were signed with their raw parts
	// and are now signed with the new ones, and those that were not (of
	// an older capture, or their raw parts changed since): the analysis
	// computes these again.
	FactsKept, FactsStale int
}

// Compact compacts the capture in dir, holding its lock: a capture in use
// by a collect, an import or an analysis storing facts is refused.
func Compact(dir string, opt CompactOptions) (*CompactSummary, error) {
	if _, err := Open(dir); err != nil {
		return nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	return compact(dir, opt)
}

// Compact compacts the capture the writer appends to, under its lock
// (collect compacts a capture at the end of a study). The writer may go
// on committing runs after it.
func (w *Writer) Compact(opt CompactOptions) (*CompactSummary, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errClosed
	}
	sum, err := compact(w.dir, opt)
	committed, cerr := committedRuns(w.dir)
	if cerr != nil {
		return sum, errors.Join(err, cerr)
	}
	w.compacted = w.compacted[:0]
	for _, p := range committed {
		if p.compacted() {
			w.compacted = append(w.compacted, p)
		}
	}
	return sum, err
}

func compact(dir string, opt CompactOptions) (*CompactSummary, error) {
	limit := opt.PartBytes
	if limit <= 0 {
		limit = DefaultPartBytes
	}
	r, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if err := checkCompactable(dir, r); err != nil {
		return nil, err
	}
	parts, err := planParts(dir, r)
	if err != nil {
		return nil, err
	}
	sum := &CompactSummary{}
	sum.FilesBefore, sum.BytesBefore, err = folderSize(dir)
	if err != nil {
		return nil, err
	}
	if sum.Leftovers, err = removeLeftovers(dir, r); err != nil {
		return nil, err
	}
	// Every table has its folder now (a capture made before the facts
	// had none for them): durable before parts are written into them.
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	codec, _ := CompressionZstd.codec()
	c := &compactor{dir: dir, r: r, mem: memory.DefaultAllocator, codec: codec, sum: sum}
	for _, g := range planGroups(parts, limit) {
		if len(g.parts) > 1 {
			if opt.Stop != nil && opt.Stop() {
				sum.Stopped = true
				break
			}
			if err := c.group(g); err != nil {
				return nil, fmt.Errorf("%w; %s", err, sum.sofar())
			}
		}
	}
	sum.FilesAfter, sum.BytesAfter, err = folderSize(dir)
	return sum, err
}

// sofar says what a compaction that failed in a group had done: the
// groups before it are whole, and the reader sees the group it was in as
// it was (its runs part goes in place last).
func (s *CompactSummary) sofar() string {
	if s.Groups == 0 && s.Leftovers == 0 {
		return "nothing was changed"
	}
	return fmt.Sprintf("the capture is whole: %d groups of runs were compacted before it, each whole, and %d leftover files removed; "+
		"the other runs' parts are as they were: compact again once that is fixed", s.Groups, s.Leftovers)
}

// removeLeftovers removes what an interrupted session, run or compaction
// left, as Resume does, and says how many files it removed.
func removeLeftovers(dir string, r *Reader) (int, error) {
	sessions := map[int64]bool{}
	for _, c := range r.Captures() {
		sessions[int64(c.Session)] = true
	}
	committed, err := committedRuns(dir)
	if err != nil {
		return 0, err
	}
	leftovers, err := leftoverParts(dir, r, sessions, committed)
	if err != nil {
		return 0, err
	}
	return len(leftovers), removeAll(leftovers)
}

// folderSize counts the files under dir and their bytes.
func folderSize(dir string) (int, int64, error) {
	var n int
	var size int64
	// A capture named through a symbolic link: its files, not the link.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("samples: %w", err)
	}
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n++
		size += info.Size()
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("samples: %w", err)
	}
	return n, size, nil
}

// compactor writes the groups of one compaction.
type compactor struct {
	dir   string
	r     *Reader
	mem   memory.Allocator
	codec compress.Compression
	sum   *CompactSummary
}
