package analyze

import (
	"fmt"
	"math"

	"github.com/pgstudy/pgstudy/parse/pgstat"
	"github.com/pgstudy/pgstudy/samples"
)

// readStats reads what the statistics views said before and after each
// run: the bytes PostgreSQL read (pg_stat_io), the WAL it wrote, the I/O
// handles in use (pg_aios), and the other sessions and autovacuums at
// work. Each row is read by parse/pgstat; the deltas are taken at the end.
func readStats(r *samples.Reader, byID map[int64]*Run) error {
	v := viewRows{
		pgReads: map[int64]*counts{}, vac: map[int64]*counts{},
		walRecords: map[int64]*counts{}, walFPI: map[int64]*counts{}, walBytes: map[int64]*counts{},
		ioRows: map[int64]map[string]map[string]IODelta{}, aios: aioRuns{},
	}
	err := samples.ReadParts(r, func(rows []samples.Stat) error {
		for _, s := range rows {
			if run := byID[s.RunID]; run != nil {
				if err := v.row(run, s); err != nil {
					run.rowError(s.View, fmt.Errorf("run %d %s: %w", s.RunID, s.Phase, err))
				}
			}
		}
		return nil
	}, "run_id", "phase", "view", "json")
	v.finish(byID)
	return err
}

// counts is a sum before and after a run; NaN until a row adds to it.
type counts struct{ before, after float64 }

// viewRows gathers the statistics rows of every run, by run.
type viewRows struct {
	pgReads, vac, walRecords, walFPI, walBytes map[int64]*counts
	ioRows                                     map[int64]map[string]map[string]IODelta
	aios                                       aioRuns
}

func add(m map[int64]*counts, id int64, phase string, v float64) {
	c := m[id]
	if c == nil {
		c = &counts{math.NaN(), math.NaN()}
		m[id] = c
	}
	p := &c.before
	if phase == "after" {
		p = &c.after
	}
	if math.IsNaN(*p) {
		*p = 0
	}
	*p += v
}

// row reads one row of a view the analysis uses.
func (v *viewRows) row(run *Run, s samples.Stat) error {
	if s.Phase == "before" || s.Phase == "after" {
		run.hasStats = true
	}
	switch s.View {
	case "pg_stat_wal":
		w, err := pgstat.ParseWAL(s.JSON, s.View)
		if err != nil {
			return err
		}
		add(v.walRecords, s.RunID, s.Phase, w.Records.V)
		add(v.walFPI, s.RunID, s.Phase, w.FPI.V)
		if w.Bytes.Valid {
			add(v.walBytes, s.RunID, s.Phase, w.Bytes.V)
		}
	case "pg_stat_io":
		row, err := pgstat.ParseIO(s.JSON, s.View)
		if err != nil {
			return err
		}
		v.io(s, row)
	case "pg_aios":
		a, err := pgstat.ParseAIO(s.JSON, s.View)
		if err != nil {
			return err
		}
		v.aios.add(s.RunID, a)
	case "pg_stat_activity":
		a, err := pgstat.ParseActivity(s.JSON, s.View)
		if err != nil {
			return err
		}
		run.Others = append(run.Others, Activity{Phase: s.Phase, PID: a.PID, BackendType: a.BackendType, State: a.State, Query: a.Query})
	case "pg_settings":
		return run.ranWith(s)
	case "vacuum_counts":
		c, err := pgstat.ParseVacuumCounts(s.JSON, s.View)
		if err != nil {
			return err
		}
		add(v.vac, s.RunID, s.Phase, c.Autovacuums.V+c.Autoanalyzes.V)
	case "relation_sizes":
		rs, err := pgstat.ParseRelationSize(s.JSON, s.View)
		if err != nil {
			return err
		}
		run.sizes = append(run.sizes, rs)
	}
	return nil
}

func (v *viewRows) io(s samples.Stat, row pgstat.IO) {
	if b, ok := readBytes(row); ok {
		add(v.pgReads, s.RunID, s.Phase, b)
	}
	k, d := ioDelta(row)
	m := v.ioRows[s.RunID]
	if m == nil {
		m = map[string]map[string]IODelta{"before": {}, "after": {}}
		v.ioRows[s.RunID] = m
	}
	if m[s.Phase] != nil {
		m[s.Phase][k] = d
	}
}

// finish sets each run's figures from its rows before and after it.
func (v *viewRows) finish(byID map[int64]*Run) {
	for id, c := range v.pgReads {
		if d := c.after - c.before; !math.IsNaN(d) && d >= 0 {
			byID[id].PGReads = &d
		}
	}
	v.aios.finish(byID)
	for id, m := range v.ioRows {
		byID[id].IO = ioDeltas(m["before"], m["after"])
	}
	for id, c := range v.walRecords {
		f := v.walFPI[id]
		if d := c.after - c.before; !math.IsNaN(d) && d >= 0 && f != nil && !math.IsNaN(f.after-f.before) {
			fpi := f.after - f.before
			byID[id].WALRecords, byID[id].WALFPI = &d, &fpi
		}
	}
	for id, c := range v.walBytes {
		if d := c.after - c.before; !math.IsNaN(d) && d >= 0 {
			byID[id].WALStatBytes = &d
		}
	}
	for id, c := range v.vac {
		if d := c.after - c.before; d > 0 {
			byID[id].Autovacuums = int64(d)
		}
	}
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
