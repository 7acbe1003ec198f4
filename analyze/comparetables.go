package analyze

import (
	"fmt"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
)

// Tables are the comparison's tables: the timed tests' rows, the
// throughput tests' rows (each table in its metric's unit, so that a key
// names it), and both sides' findings.
func (c *Comparison) Tables() []table.Table {
	return []table.Table{c.rowsTable(false), c.rowsTable(true), c.findingsTable()}
}

// EveryCompareTable is every table of a comparison, without rows: what
// its schema is made from.
func EveryCompareTable() []table.Table {
	return (&Comparison{}).Tables()
}

func (c *Comparison) rowsTable(throughput bool) table.Table {
	name, title, unit, what := "compare_timings", "Timings compared", "ms", "median time"
	if throughput {
		name, title, unit, what = "compare_throughput", "Throughput compared", "qps", "median queries per second"
	}
	var rows []CompareRow
	for _, r := range c.Rows {
		if r.Throughput == throughput {
			rows = append(rows, r)
		}
	}
	note := fmt.Sprintf("The %s of each test and configuration on the %s and the %s side, with its %.0f%% interval (order statistics); "+
		"ratio = %s / %s, with its %.0f%% interval and the Mann-Whitney p-value, Holm-corrected over the rows.",
		what, c.Old.Name, c.New.Name, 100*c.Confidence, c.New.Name, c.Old.Name, 100*c.Confidence)
	side := func(prefix string, get func(CompareRow) *stats.Summary) []table.Field[CompareRow] {
		ci := func(f func(s *stats.Summary) float64) func(CompareRow) any {
			return func(r CompareRow) any {
				if s := get(r); s.CIValid {
					return f(s)
				}
				return nil
			}
		}
		return []table.Field[CompareRow]{
			table.On(table.Int(prefix+"_n", prefix+" n", ""), func(r CompareRow) any { return int64(get(r).N) }),
			table.On(table.Num(prefix+"_median_"+unit, prefix, unit), func(r CompareRow) any { return get(r).Median }),
			table.On(table.Num(prefix+"_ci_low_"+unit, prefix+" ci low", unit), ci(func(s *stats.Summary) float64 { return s.Lo })),
			table.On(table.Num(prefix+"_ci_high_"+unit, prefix+" ci high", unit), ci(func(s *stats.Summary) float64 { return s.Hi })),
		}
	}
	fields := []table.Field[CompareRow]{
		table.On(table.Text("old_host", "old host"), func(CompareRow) any { return c.host(c.Old) }),
		table.On(table.Text("new_host", "new host"), func(CompareRow) any { return c.host(c.New) }),
		table.On(table.Text("test", "test"), func(r CompareRow) any { return r.Test }),
		table.On(table.Text("old_config", "old config"), func(r CompareRow) any { return r.OldConfig }),
		table.On(table.Text("new_config", "new config"), func(r CompareRow) any { return r.NewConfig }),
	}
	fields = append(fields, side("old", func(r CompareRow) *stats.Summary { return &r.Old })...)
	fields = append(fields, side("new", func(r CompareRow) *stats.Summary { return &r.New })...)
	cmp := func(f func(c *TimingCompare) any, valid func(c *TimingCompare) bool) func(CompareRow) any {
		return func(r CompareRow) any {
			if !valid(&r.Compare) {
				return nil
			}
			return f(&r.Compare)
		}
	}
	fields = append(fields,
		table.On(table.Fixed("ratio", "ratio", "", 3), cmp(func(c *TimingCompare) any { return c.Ratio }, func(c *TimingCompare) bool { return c.Ratio > 0 })),
		table.On(table.Fixed("ratio_ci_low", "ratio ci low", "", 3), cmp(func(c *TimingCompare) any { return c.Lo }, func(c *TimingCompare) bool { return c.CIValid })),
		table.On(table.Fixed("ratio_ci_high", "ratio ci high", "", 3), cmp(func(c *TimingCompare) any { return c.Hi }, func(c *TimingCompare) bool { return c.CIValid })),
	)
	fields = append(fields, compareFields(func(r CompareRow) *TimingCompare { return &r.Compare })...)
	t := table.Table{Name: name, Title: title, Note: note, Hidden: []string{"old_host", "new_host"}}
	t.Columns, t.Rows = table.Of(fields, rows)
	return t
}

// host is a side's host, as its capture names it; "" for none (the
// table's spec without rows).
func (c *Comparison) host(s Side) string {
	if s.A == nil || len(s.A.Hosts) == 0 {
		return ""
	}
	return s.A.Hosts[0]
}

func (c *Comparison) findingsTable() table.Table {
	fields := []table.Field[SideFinding]{
		table.On(table.Text("host", "host"), func(f SideFinding) any { return f.Host }),
		table.On(table.Text("side", "side"), func(f SideFinding) any { return f.Side }),
	}
	for _, f := range findingFields {
		get := f.Get
		fields = append(fields, table.On(f.Column, func(sf SideFinding) any { return get(sf.Finding) }))
	}
	t := table.Table{Name: "compare_findings", Title: "Findings of each side",
		Note: "What the guards found in each capture; an error means that side cannot support the comparison it was made for."}
	t.Columns, t.Rows = table.Of(fields, c.Findings)
	return t
}
