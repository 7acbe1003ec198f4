package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
)

// IODelta is what one row of pg_stat_io (a backend type, object and
// context) counted during a run: after minus before. Only rows that moved
// are kept.
type IODelta struct {
	BackendType string
	Object      string
	Context     string
	Reads       float64
	ReadBytes   float64
	Writes      float64
	WriteBytes  float64
	Extends     float64
	Hits        float64
	Evictions   float64
}

// ioGroup is one pg_stat_io row's medians over the runs of a test and
// configuration in which it moved.
type ioGroup struct {
	Host, Test, Config string
	N                  int
	Median             IODelta
}

// ioTable is pg_stat_io's deltas per test and configuration: for each
// backend type, object and context that moved, the medians over runs.
func (a *Analysis) ioTable() table.Table {
	t := table.Table{Name: "io", Title: "pg_stat_io during the runs",
		Note: "pg_stat_io after minus before each run (16+; the whole server's), medians over the runs in which the row moved; bytes from 18's read_bytes and write_bytes, or operations times op_bytes before. From 18 a read is one I/O of up to io_combine_limit blocks, so fewer reads of the same bytes mean larger ones."}
	num := func(key, title, unit string, f func(d *IODelta) float64) table.Field[ioGroup] {
		return table.On(table.Num(key, title, unit), func(g ioGroup) any { return f(&g.Median) })
	}
	bytes := func(key, title, unit string, f func(d *IODelta) float64) table.Field[ioGroup] {
		return table.On(table.Bytes(key, title, unit), func(g ioGroup) any { return f(&g.Median) })
	}
	return build(a, t, func(g ioGroup) string { return g.Host }, []table.Field[ioGroup]{
		table.On(table.Text("test", "test"), func(g ioGroup) any { return g.Test }),
		table.On(table.Text("config", "config"), func(g ioGroup) any { return g.Config }),
		table.On(table.Text("backend_type", "backend type"), func(g ioGroup) any { return g.Median.BackendType }),
		table.On(table.Text("object", "object"), func(g ioGroup) any { return g.Median.Object }),
		table.On(table.Text("context", "context"), func(g ioGroup) any { return g.Median.Context }),
		table.On(table.Int("n", "n", ""), func(g ioGroup) any { return int64(g.N) }),
		num("reads", "reads", "", func(d *IODelta) float64 { return d.Reads }),
		bytes("read_bytes", "read", "MiB", func(d *IODelta) float64 { return d.ReadBytes }),
		num("hits", "hits", "", func(d *IODelta) float64 { return d.Hits }),
		num("writes", "writes", "", func(d *IODelta) float64 { return d.Writes }),
		bytes("written_bytes", "written", "MiB", func(d *IODelta) float64 { return d.WriteBytes }),
		num("extends", "extends", "", func(d *IODelta) float64 { return d.Extends }),
		num("evictions", "evictions", "", func(d *IODelta) float64 { return d.Evictions }),
	}, a.ioGroups())
}

// ioGroups are the medians of each pg_stat_io row that moved, per test and
// configuration, the rows in order of their names.
func (a *Analysis) ioGroups() []ioGroup {
	var out []ioGroup
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && len(r.IO) > 0 })
	for _, k := range keys {
		// Keyed by the row's own strings: a key joined from them was a
		// string made a row of every run.
		type ioRow struct{ backend, object, context string }
		rows := map[ioRow][]IODelta{}
		var order []ioRow
		for _, r := range groups[k] {
			for _, d := range r.IO {
				id := ioRow{d.BackendType, d.Object, d.Context}
				if _, ok := rows[id]; !ok {
					order = append(order, id)
				}
				rows[id] = append(rows[id], d)
			}
		}
		// In the order of the names joined by NUL, as before (PostgreSQL's
		// text holds no NUL).
		slices.SortFunc(order, func(x, y ioRow) int {
			return cmp.Or(strings.Compare(x.backend, y.backend), strings.Compare(x.object, y.object), strings.Compare(x.context, y.context))
		})
		var xs []float64
		for _, id := range order {
			ds := rows[id]
			med := func(f func(IODelta) float64) float64 {
				xs = xs[:0]
				for _, d := range ds {
					xs = append(xs, f(d))
				}
				return stats.MedianInPlace(xs)
			}
			m := IODelta{BackendType: ds[0].BackendType, Object: ds[0].Object, Context: ds[0].Context,
				Reads: med(func(d IODelta) float64 { return d.Reads }), ReadBytes: med(func(d IODelta) float64 { return d.ReadBytes }),
				Hits: med(func(d IODelta) float64 { return d.Hits }), Writes: med(func(d IODelta) float64 { return d.Writes }),
				WriteBytes: med(func(d IODelta) float64 { return d.WriteBytes }), Extends: med(func(d IODelta) float64 { return d.Extends }),
				Evictions: med(func(d IODelta) float64 { return d.Evictions })}
			out = append(out, ioGroup{Host: k.Host, Test: k.Test, Config: k.Config, N: len(ds), Median: m})
		}
	}
	return out
}
