package samples

// What Compact checks and plans before it writes anything: that it knows
// every file of the capture, and which runs parts go together.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// plannedPart is a runs part that counts, and what each table holds of
// its runs.
type plannedPart struct {
	name        string
	first, last int64 // the run ids it holds
	contiguous  bool  // every run from first to last, once
	bytes       map[string]int64
	rows        map[string]int64
}

// group is runs parts compacted into one, named by its runs' range.
type group struct {
	parts       []*plannedPart
	first, last int64
	bytes       map[string]int64
}

func (g *group) name() string { return rangePart(g.first, g.last) }

// checkCompactable refuses a capture Compact cannot rewrite without loss:
// of another format, or holding files it does not know (a folder of a
// table a newer pgstudy writes, a file copied into a table's folder).
func checkCompactable(dir string, r *Reader) error {
	for _, c := range r.Captures() {
		if c.FormatVersion != FormatVersion {
			return fmt.Errorf("samples: %s is of capture format %d; compact rewrites only format %d (analyze reads the capture as it is)",
				dir, c.FormatVersion, FormatVersion)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue // a file beside the tables (a note) is no part
		}
		sub := filepath.Join(dir, e.Name())
		t := tableNamed(e.Name())
		if t == nil {
			if isCapture(sub) {
				return fmt.Errorf("samples: %s holds another capture, %s: move it out of the capture, then compact; nothing was changed", dir, e.Name())
			}
			if hasParquet(sub) {
				return fmt.Errorf("samples: %s holds Parquet files, but %s is no table this pgstudy knows (written by a newer pgstudy?): "+
					"compact it with that pgstudy; nothing was changed", dir, e.Name())
			}
			continue
		}
		files, err := os.ReadDir(sub)
		if err != nil {
			return fmt.Errorf("samples: %w", err)
		}
		for _, f := range files {
			if isTemp(f.Name()) {
				continue
			}
			if f.Type()&fs.ModeSymlink != 0 && knownPartName(t, f.Name()) {
				return fmt.Errorf("samples: %s is a symbolic link, not a part pgstudy wrote: compact rewrites only parts of the capture's own; "+
					"put the file it points to in its place, or move the link out, then compact; nothing was changed", filepath.Join(sub, f.Name()))
			}
			if !f.Type().IsRegular() || !knownPartName(t, f.Name()) {
				return fmt.Errorf("samples: %s is not a part pgstudy writes (parts are named like %s): compact rewrites only what it knows; "+
					"move it out of the capture, then compact; nothing was changed", filepath.Join(sub, f.Name()), canonicalPart(partPrefix(t), 1))
			}
		}
	}
	return nil
}

// isCapture reports whether dir looks like a capture: it has the folders
// of a capture's session and runs tables.
func isCapture(dir string) bool {
	for _, sub := range []string{"capture", "runs"} {
		if info, err := os.Stat(filepath.Join(dir, sub)); err != nil || !info.IsDir() {
			return false
		}
	}
	return true
}

// partPrefix is the letter of t's part names.
func partPrefix(t *Table) byte {
	if t.perRun() {
		return 'r'
	}
	return 's'
}

// knownPartName reports whether name is a part name of table t.
func knownPartName(t *Table, name string) bool {
	if t.Name == "raw_bytes" && canonicalName(name, 's') {
		return true
	}
	return canonicalName(name, partPrefix(t))
}

// hasParquet reports whether a folder holds a .parquet file at any depth.
func hasParquet(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), partSuffix) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// planParts reads the footer of every part of every table of runs and
// the run ids of each runs part, refusing a part of a newer format or
// with columns this pgstudy does not know (rewriting it would drop them).
func planParts(dir string, r *Reader) ([]*plannedPart, error) {
	live, err := r.liveRuns()
	if err != nil {
		return nil, err
	}
	parts := make([]*plannedPart, 0, len(live))
	for _, name := range live {
		p := &plannedPart{name: name, bytes: map[string]int64{}, rows: map[string]int64{}}
		for i := range Tables {
			t := &Tables[i]
			if !t.perRun() && t.Name != "raw_bytes" {
				continue
			}
			n, rows, err := footerSize(filepath.Join(dir, t.Name, name), t)
			if err != nil {
				return nil, err
			}
			p.bytes[t.Name], p.rows[t.Name] = n, rows
		}
		if err := lostSources(dir, r, p); err != nil {
			return nil, err
		}
		runs, err := ReadPart[Run](r, name, "run_id")
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(runs))
		for i, run := range runs {
			ids[i] = run.RunID
		}
		slices.Sort(ids)
		p.first, p.last = ids[0], ids[len(ids)-1]
		p.contiguous = p.last-p.first+1 == int64(len(ids)) && len(slices.Compact(ids)) == len(runs)
		parts = append(parts, p)
	}
	return parts, nil
}

// lostSources refuses part p when a raw part its facts were computed from
// (factSources) is missing though the facts' signature says it was there
// when they were: a part lost in a copy, or a copy still in progress,
// which a compaction would make for good (its rows could no longer be
// merged in). The facts are read only where such a part is missing.
func lostSources(dir string, r *Reader, p *plannedPart) error {
	var missing []string
	for _, table := range factSources {
		if p.rows[table] == 0 {
			if _, err := os.Lstat(filepath.Join(dir, table, p.name)); errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, table)
			}
		}
	}
	if len(missing) == 0 || p.rows["run_facts"] == 0 {
		return nil
	}
	facts, err := ReadPart[RunFact](r, p.name, "raw_parts")
	if err != nil {
		return err
	}
	for _, f := range facts {
		for _, source := range strings.Split(f.RawParts, "; ") {
			table, sig, _ := strings.Cut(source, " ")
			if slices.Contains(missing, table) && sig != "none" {
				return fmt.Errorf("samples: %s is missing, though the facts stored with its runs say it was there when they were computed (%s): "+
					"a part lost in a copy, or a copy still in progress? nothing was changed: finish the copy, or put the part back",
					filepath.Join(dir, table, p.name), sig)
			}
		}
	}
	return nil
}

// footerSize is what a part's column chunks hold uncompressed, and its
// rows, from its footer (0, 0 for a part the table lacks). A part of a
// newer format, of another table, or with a column unknown or of another
// type is an error.
func footerSize(path string, t *Table) (int64, int64, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("samples: %w", err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f, file.WithReadProps(readProps(memory.DefaultAllocator)))
	if err != nil {
		return 0, 0, fmt.Errorf("samples: %s: damaged part: %v; compact rewrites only parts it can read; nothing was changed", path, err)
	}
	md := pf.MetaData()
	if err := checkPartMeta(md.KeyValueMetadata().FindValue, t.Name); err != nil {
		return 0, 0, fmt.Errorf("samples: %s: %w; nothing was changed", path, err)
	}
	for i := range md.Schema.NumColumns() {
		col := md.Schema.Column(i)
		c := slices.IndexFunc(t.cols, func(c column) bool { return c.name == col.Name() })
		if c < 0 || col.ColumnPath().String() != col.Name() {
			return 0, 0, fmt.Errorf("samples: %s has a column %s that this pgstudy does not know (written by a newer pgstudy?): "+
				"compact would drop it; compact with that pgstudy; nothing was changed", path, col.ColumnPath())
		}
		if !physicalFits(t.cols[c].kind, col.PhysicalType()) {
			return 0, 0, fmt.Errorf("samples: %s: column %s is stored as %s, which pgstudy does not write for it; nothing was changed",
				path, col.Name(), col.PhysicalType())
		}
	}
	var n int64
	for g := range len(md.RowGroups) {
		rg := md.RowGroup(g)
		for i := range md.Schema.NumColumns() {
			cc, err := rg.ColumnChunk(i)
			if err != nil {
				return 0, 0, fmt.Errorf("samples: %s: damaged part: %v; nothing was changed", path, err)
			}
			n += max(0, cc.TotalUncompressedSize())
		}
	}
	return n, md.NumRows, nil
}

// physicalFits reports whether a Parquet column of physical type p reads
// into a field of kind k (as decode.go's getters accept).
func physicalFits(k kind, p parquet.Type) bool {
	switch k {
	case kindString:
		return p == parquet.Types.ByteArray
	case kindBool:
		return p == parquet.Types.Boolean
	case kindInt32:
		return p == parquet.Types.Int32
	case kindInt64:
		return p == parquet.Types.Int64 || p == parquet.Types.Int32
	case kindFloat64:
		return p == parquet.Types.Double || p == parquet.Types.Float
	case kindTime:
		return p == parquet.Types.Int64
	}
	return false
}

// planGroups puts consecutive runs parts together while every table's
// part of the group stays within limit bytes. A part whose runs are not
// contiguous, or that is over the limit alone, stays a group of its own:
// a compacted part's name claims every run of its range.
func planGroups(parts []*plannedPart, limit int64) []*group {
	var groups []*group
	var g *group
	fits := func(p *plannedPart) bool {
		if g == nil || !g.parts[len(g.parts)-1].contiguous || !p.contiguous || p.first != g.last+1 {
			return false
		}
		for table, n := range p.bytes {
			if g.bytes[table]+n > limit {
				return false
			}
		}
		return true
	}
	for _, p := range parts {
		if !fits(p) {
			g = &group{first: p.first, bytes: map[string]int64{}}
			groups = append(groups, g)
		}
		g.parts = append(g.parts, p)
		g.last = p.last
		for table, n := range p.bytes {
			g.bytes[table] += n
		}
	}
	return groups
}
