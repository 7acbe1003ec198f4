package samples

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
)

// group writes the parts of g, runs last, then removes the parts they
// replace. A part that comes out larger than a reader accepts (the old
// parts' footers gave a size the merged one exceeds, as when a dictionary
// no longer fits) has the group's new parts removed, uncommitted, and the
// group split in two.
func (c *compactor) group(g *group) error {
	name := g.name()
	var written []string
	fail := func(err error) error { return errors.Join(err, removeAll(written)) }
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
			sig, err := rawParts(os.DirFS(c.dir), ".", name, func(table string) string { return filepath.Join(c.dir, table, name) })
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
		path := filepath.Join(c.dir, t.Name, name)
		if err := writeGroups(c.mem, c.codec, filepath.Dir(path), name, t, rows, stamp{keep: true}, nil, true, groupRows); err != nil {
			return fail(err)
		}
		written = append(written, path)
		n, _, err := footerSize(path, t)
		if err != nil {
			return fail(err)
		}
		if n > maxDecodedPart(t.Name) && len(g.parts) > 1 {
			if err := removeAll(written); err != nil {
				return err
			}
			return c.split(g)
		}
	}
	c.sum.Groups++
	for _, p := range g.parts {
		if p.rows["run_facts"] == 0 {
			c.sum.FactsStale++
		}
	}
	return c.removeReplaced(g)
}

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

// removeReplaced removes the parts the group's runs part replaced: runs
// first, so that a part of another table is never left counting without
// the rows the group holds of it.
func (c *compactor) removeReplaced(g *group) error {
	order := []string{"runs"}
	for _, t := range Tables {
		if t.Name != "runs" && (t.perRun() || t.Name == "raw_bytes") {
			order = append(order, t.Name)
		}
	}
	for _, table := range order {
		var paths []string
		for _, p := range g.parts {
			paths = append(paths, filepath.Join(c.dir, table, p.name))
		}
		if err := removeAll(paths); err != nil {
			return err
		}
	}
	return nil
}
