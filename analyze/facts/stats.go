package facts

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pgstudy/pgstudy/parse/pgstat"
	"github.com/pgstudy/pgstudy/samples"
)

// counts is a sum before and after a run; NaN until a row adds to it.
type counts struct{ before, after float64 }

func newCounts() counts { return counts{math.NaN(), math.NaN()} }

func (c *counts) add(phase string, v float64) {
	p := &c.before
	if phase == "after" {
		p = &c.after
	}
	if math.IsNaN(*p) {
		*p = 0
	}
	*p += v
}

// delta is after minus before, NaN when a side has no row.
func (c counts) delta() float64 { return c.after - c.before }

// statRows gathers one run's statistics rows.
type statRows struct {
	fact                                       samples.RunFact
	pgReads, vac, walRecords, walFPI, walBytes counts
	ioBefore, ioAfter                          map[string]samples.IOFact
	views                                      []samples.ViewFact
	warns                                      Warnings
}

// newStatRows gathers the statistics rows of run id: the deltas over the
// run, the pg_stat_io rows that moved, and the rows read one by one,
// typed.
func newStatRows(id int64) *statRows {
	return &statRows{fact: samples.RunFact{RunID: id}, pgReads: newCounts(), vac: newCounts(), walRecords: newCounts(),
		walFPI: newCounts(), walBytes: newCounts(), ioBefore: map[string]samples.IOFact{}, ioAfter: map[string]samples.IOFact{}}
}

// add reads the next rows of the run.
func (v *statRows) add(rows []samples.Stat) {
	for _, s := range rows {
		if err := v.row(s); err != nil {
			v.warns.RowError(s.View, fmt.Errorf("run %d %s: %w", v.fact.RunID, s.Phase, err))
		}
	}
}

// row reads one row of a view the analysis uses.
func (v *statRows) row(s samples.Stat) error {
	if s.Phase == "before" || s.Phase == "after" {
		v.fact.HasStats = true
	}
	switch s.View {
	case "pg_stat_wal":
		w, err := pgstat.ParseWAL(s.JSON, s.View)
		if err != nil {
			return err
		}
		v.walRecords.add(s.Phase, w.Records.V)
		v.walFPI.add(s.Phase, w.FPI.V)
		if w.Bytes.Valid {
			v.walBytes.add(s.Phase, w.Bytes.V)
		}
	case "pg_stat_io":
		row, err := pgstat.ParseIO(s.JSON, s.View)
		if err != nil {
			return err
		}
		v.io(s.Phase, row)
	case "vacuum_counts":
		c, err := pgstat.ParseVacuumCounts(s.JSON, s.View)
		if err != nil {
			return err
		}
		v.vac.add(s.Phase, c.Autovacuums.V+c.Autoanalyzes.V)
	case "pg_aios", "pg_stat_activity", "pg_settings", "relation_sizes":
		f, err := viewFact(s)
		if err != nil {
			return err
		}
		f.RunID = v.fact.RunID // an import's rows have none until committed
		v.views = append(v.views, f)
	}
	return nil
}

func (v *statRows) io(phase string, row pgstat.IO) {
	if b, ok := readBytes(row); ok {
		v.pgReads.add(phase, b)
	}
	k, d := ioCounters(row)
	switch phase {
	case "before":
		v.ioBefore[k] = d
	case "after":
		v.ioAfter[k] = d
	}
}

// finish sets the run's figures from its rows before and after it.
func (v *statRows) finish() samples.RunFact {
	f := v.fact
	if d := v.pgReads.delta(); !math.IsNaN(d) && d >= 0 {
		f.PGReadBytes = &d
	}
	if d, fpi := v.walRecords.delta(), v.walFPI.delta(); !math.IsNaN(d) && d >= 0 && !math.IsNaN(fpi) {
		f.WALRecords, f.WALFPI = &d, &fpi
	}
	if d := v.walBytes.delta(); !math.IsNaN(d) && d >= 0 {
		f.WALBytes = &d
	}
	if d := v.vac.delta(); d > 0 {
		n := int64(d)
		f.Autovacuums = &n
	}
	return f
}

// readBytes is the bytes a pg_stat_io row read: read_bytes from 18, reads
// times op_bytes before.
func readBytes(row pgstat.IO) (float64, bool) {
	if row.ReadBytes.Valid {
		return row.ReadBytes.V, true
	}
	if !row.Reads.Valid || !row.OpBytes.Valid {
		return 0, false
	}
	return row.Reads.V * row.OpBytes.V, true
}

// ioCounters is the counters of a pg_stat_io row, under its key (bytes
// from 18's read_bytes and write_bytes, or the operations times op_bytes
// before).
func ioCounters(row pgstat.IO) (k string, d samples.IOFact) {
	d.BackendType, d.Object, d.Context = row.BackendType, row.Object, row.Context
	d.Reads, d.Writes, d.Extends, d.Hits, d.Evictions = row.Reads.V, row.Writes.V, row.Extends.V, row.Hits.V, row.Evictions.V
	d.ReadBytes, d.WriteBytes = d.Reads*row.OpBytes.V, d.Writes*row.OpBytes.V
	if row.ReadBytes.Valid {
		d.ReadBytes = row.ReadBytes.V
	}
	if row.WriteBytes.Valid {
		d.WriteBytes = row.WriteBytes.V
	}
	return d.BackendType + "\x00" + d.Object + "\x00" + d.Context, d
}

// ioDeltas turns a run's before and after rows into the rows that moved,
// in order of their names.
func ioDeltas(id int64, before, after map[string]samples.IOFact) []samples.IOFact {
	var out []samples.IOFact
	for k, a := range after {
		b, ok := before[k]
		if !ok {
			continue
		}
		d := samples.IOFact{RunID: id, BackendType: a.BackendType, Object: a.Object, Context: a.Context, Reads: a.Reads - b.Reads,
			ReadBytes: a.ReadBytes - b.ReadBytes, Writes: a.Writes - b.Writes, WriteBytes: a.WriteBytes - b.WriteBytes,
			Extends: a.Extends - b.Extends, Hits: a.Hits - b.Hits, Evictions: a.Evictions - b.Evictions}
		if d.Reads != 0 || d.Writes != 0 || d.Extends != 0 || d.Hits != 0 || d.Evictions != 0 {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(x, y samples.IOFact) int {
		return cmp.Or(cmp.Compare(x.BackendType, y.BackendType), cmp.Compare(x.Object, y.Object), cmp.Compare(x.Context, y.Context))
	})
	return out
}
