package samples

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
)

// group writes the parts of g, then removes the parts they replace.
// Every table's part is written to its temp file first (no reader sees
// it), then all are put in place, runs last, and the replaced parts
// removed at once: a query engine that reads the table folders as they
// are, which knows nothing of the runs part that tells pgstudy which
// parts count (runparts.go), sees both only in the moment between the
// renames and the removals, not while the group is written. A part that
// comes out larger than a reader accepts (the old parts' footers gave a
// size the merged one exceeds, as when a dictionary no longer fits) has
// the group's staged parts removed and the group split in two.
func (c *compactor) group(g *group) error {
	name := g.name()
	staged := map[string]string{} // table: its part's temp file
	var order []string
	fail := func(err error) error {
		for _, temp := range staged {
			os.Remove(temp)
		}
		return err
	}
	// where is table's part of the group: its temp file once staged.
	where := func(table string) string {
		if temp, ok := staged[table]; ok {
			return temp
		}
		return filepath.Join(c.dir, table, name)
	}
	var newSig string
	for i := range Tables {
		t := &Tables[i]
		if !t.perRun() && t.Name != "raw_bytes" {
			continue
		}
		var fix func(p *plannedPart, seg reflect.Value) error
		switch t.Name {
		case "raw_bytes":
			fix = rawRowsIn(g)
		case "run_facts":
			sig, err := rawParts(stagedFS{dir: c.dir, part: name, staged: staged}, ".", name, where)
			if err != nil {
				return fail(err)
			}
			newSig = sig
			fix = c.resign(newSig)
		}
		rows, err := c.rows(t, g, fix)
		if err != nil {
			return fail(err)
		}
		if rows.Len() == 0 {
			continue
		}
		temp, err := stageGroups(c.mem, c.codec, filepath.Join(c.dir, t.Name), name, t, rows, stamp{keep: true}, nil, groupRows)
		if err != nil {
			return fail(err)
		}
		staged[t.Name] = temp
		order = append(order, t.Name)
		n, _, err := footerSize(temp, t)
		if err != nil {
			return fail(err)
		}
		if n > maxDecodedPart(t.Name) && len(g.parts) > 1 {
			fail(nil)
			return c.split(g)
		}
	}
	mark := filepath.Join(c.dir, compactMarkPrefix+name)
	if err := writeMark(c.dir, mark); err != nil {
		return fail(err)
	}
	for k, table := range order { // runs last: the commit of the group for pgstudy's reader
		if err := placePart(staged[table], filepath.Join(c.dir, table, name)); err != nil {
			for _, rest := range order[k+1:] {
				os.Remove(staged[rest])
			}
			return err
		}
		delete(staged, table)
	}
	c.sum.Groups++
	for _, p := range g.parts {
		if p.rows["run_facts"] == 0 {
			c.sum.FactsStale++
		}
	}
	return c.removeReplaced(g, mark)
}

// writeMark writes the empty file mark in dir, durably: a compaction's
// mark that it is putting a group in place (compactMarkPrefix).
func writeMark(dir, mark string) error {
	f, err := os.Create(mark)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	if err := errors.Join(f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	return syncDir(dir)
}

// stagedFS is the capture's folder as the group will leave it: the
// group's part of a table is read from its temp file once staged, so
// that the facts are signed with the raw parts the group writes.
type stagedFS struct {
	dir, part string
	staged    map[string]string // table: temp file
}

func (f stagedFS) path(name string) string {
	table, part := path.Split(name)
	if temp, ok := f.staged[path.Clean(table)]; ok && part == f.part {
		return temp
	}
	return filepath.Join(f.dir, filepath.FromSlash(name))
}

func (f stagedFS) Open(name string) (fs.File, error)     { return os.Open(f.path(name)) }
func (f stagedFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(f.path(name)) }

// split compacts the halves of g apart.
func (c *compactor) split(g *group) error {
	half := len(g.parts) / 2
	for _, parts := range [][]*plannedPart{g.parts[:half], g.parts[half:]} {
		h := &group{parts: parts, first: parts[0].first, last: parts[len(parts)-1].last}
		if len(parts) == 1 {
			continue // stays as it is
		}
		if err := c.group(h); err != nil {
			return err
		}
	}
	return nil
}

// rows reads the rows of t's parts of g, in order, each part checked as a
// reader checks it and passed to fix (when set) before it is appended.
func (c *compactor) rows(t *Table, g *group, fix func(p *plannedPart, seg reflect.Value) error) (reflect.Value, error) {
	var n int64
	for _, p := range g.parts {
		n += p.rows[t.Name]
	}
	all := reflect.MakeSlice(reflect.SliceOf(t.Type), 0, int(n))
	for _, p := range g.parts {
		if p.rows[t.Name] == 0 {
			if _, err := os.Stat(filepath.Join(c.dir, t.Name, p.name)); !errors.Is(err, fs.ErrNotExist) {
				return all, fmt.Errorf("samples: %s changed while it was compacted", filepath.Join(c.dir, t.Name, p.name))
			}
			continue
		}
		seg := reflect.New(all.Type()).Elem()
		if err := c.r.readPart(t, p.name, seg, nil, nil); err != nil {
			return all, err
		}
		if err := c.r.checkRows(t, p.name, seg, nil); err != nil {
			return all, err
		}
		if err := outsideRuns(t, p, seg); err != nil {
			return all, fmt.Errorf("samples: %s %w: a part of other runs, renamed? move it out of the capture (its facts, if it is a table of facts: an analysis computes them again)",
				filepath.Join(c.dir, t.Name, p.name), err)
		}
		if int64(seg.Len()) != p.rows[t.Name] {
			return all, fmt.Errorf("samples: %s: read %d rows, its footer says %d", filepath.Join(c.dir, t.Name, p.name), seg.Len(), p.rows[t.Name])
		}
		if fix != nil {
			if err := fix(p, seg); err != nil {
				return all, err
			}
		}
		all = reflect.AppendSlice(all, seg)
	}
	return all, nil
}

// outsideRuns refuses rows of a per-run table that are not of the runs
// its runs part holds: a part of other runs copied over it (the reader
// checks that no row is of a run before the part's first; its last is
// known from the runs part only).
func outsideRuns(t *Table, p *plannedPart, seg reflect.Value) error {
	if t.runID < 0 || t.Name == "runs" {
		return nil
	}
	f := fieldsOf(seg, 0, t.cols[t.runID])
	for i := range seg.Len() {
		if id := *(*int64)(f.at(i)); id < p.first || id > p.last {
			return fmt.Errorf("holds a row of run %d, where its runs part holds runs %d to %d", id, p.first, p.last)
		}
	}
	return nil
}

// rawRowsIn moves each raw_bytes row's row number by the rows of its
// table that the group holds before the row's part: a row is addressed
// within the part of its table of the same name, which is now the
// group's.
func rawRowsIn(g *group) func(p *plannedPart, seg reflect.Value) error {
	before := map[string]map[string]int64{} // table, part: rows before it in the group
	sum := map[string]int64{}
	for _, p := range g.parts {
		for table, n := range p.rows {
			if before[table] == nil {
				before[table] = map[string]int64{}
			}
			before[table][p.name] = sum[table]
			sum[table] += n
		}
	}
	return func(p *plannedPart, seg reflect.Value) error {
		raws := seg.Interface().([]RawBytes)
		for i := range raws {
			off, ok := before[raws[i].Table][p.name]
			if !ok || raws[i].Row < 0 || raws[i].Row >= p.rows[raws[i].Table] {
				return fmt.Errorf("samples: %s: row %d names row %d of %s, which that table's part does not have",
					filepath.Join("raw_bytes", p.name), i, raws[i].Row, raws[i].Table)
			}
			raws[i].Row += off
		}
		return nil
	}
}

// resign signs with sig the run_facts rows of a part that were signed
// with its own raw parts; the others (computed from raw parts since
// replaced) keep their signature, which matches no part, so the analysis
// computes them again.
func (c *compactor) resign(sig string) func(p *plannedPart, seg reflect.Value) error {
	return func(p *plannedPart, seg reflect.Value) error {
		old, err := rawParts(os.DirFS(c.dir), ".", p.name, func(table string) string { return filepath.Join(c.dir, table, p.name) })
		if err != nil {
			return err
		}
		facts := seg.Interface().([]RunFact)
		kept := true
		for i := range facts {
			if facts[i].RawParts == old {
				facts[i].RawParts = sig
			} else {
				kept = false
			}
		}
		if kept {
			c.sum.FactsKept++
		} else {
			c.sum.FactsStale++
		}
		return nil
	}
}

// removeReplaced removes the parts the group's runs part replaced, then
// the group's mark (writeMark): runs
// last, so that a compaction killed between removals leaves each part
// not removed yet beside the runs part of its name, which shows it a
// compaction's leftover (leftoverParts); a part of a run that runs/ does
// not hold is otherwise a user's, and refused rather than removed. The
// compacted runs part already says, in every table, that they no longer
// count.
func (c *compactor) removeReplaced(g *group, mark string) error {
	var order []string
	for _, t := range Tables {
		if t.Name != "runs" && (t.perRun() || t.Name == "raw_bytes") {
			order = append(order, t.Name)
		}
	}
	order = append(order, "runs")
	for _, table := range order {
		var paths []string
		for _, p := range g.parts {
			paths = append(paths, filepath.Join(c.dir, table, p.name))
		}
		if err := removeAll(paths); err != nil {
			return err
		}
	}
	if err := os.Remove(mark); err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	return syncDir(c.dir)
}
