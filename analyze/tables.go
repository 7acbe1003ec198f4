package analyze

import (
	"fmt"
	"math"
	"strings"
)

// Table is one result table, in a form every output shares: Markdown
// shows each cell's Text, CSV and JSON its Value, so the three hold the
// same content.
type Table struct {
	Name    string   `json:"name"`  // a file name: "timings"
	Title   string   `json:"title"` // a heading: "Timings"
	Note    string   `json:"note,omitempty"`
	Columns []Column `json:"columns"`
	Rows    [][]Cell `json:"rows"`
}

// Column is a table's column; Unit goes in its header.
type Column struct {
	Name string `json:"name"`
	Unit string `json:"unit,omitempty"`
}

// Header is the column's name with its unit, as a header shows it.
func (c Column) Header() string {
	if c.Unit == "" {
		return c.Name
	}
	return c.Name + " (" + c.Unit + ")"
}

// Cell is a value and its text; Value is a float64, an int64, a string,
// a bool or nil (no value).
type Cell struct {
	Value any    `json:"value"`
	Text  string `json:"-"`
}

func str(s string) Cell { return Cell{Value: s, Text: s} }
func integer(n int64) Cell {
	return Cell{Value: n, Text: fmt.Sprint(n)}
}
func none() Cell { return Cell{Value: nil, Text: ""} }

// num4 is a number with four significant digits, never in e-notation.
func num4(v float64) Cell {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return none()
	}
	return Cell{Value: v, Text: sig(v, 4)}
}

// sig writes v with the given significant digits, never in e-notation,
// without trailing zeros: 259, 0.04, 302.1, 0.6981.
func sig(v float64, digits int) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	d := digits - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	d = max(0, min(d, 6))
	out := fmt.Sprintf("%.*f", d, v)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

func fixed(v float64, decimals int) Cell {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return none()
	}
	return Cell{Value: v, Text: fmt.Sprintf("%.*f", decimals, v)}
}

func optInt(p *int64) Cell {
	if p == nil {
		return none()
	}
	return integer(*p)
}

func optNum(p *float64) Cell {
	if p == nil {
		return none()
	}
	return num4(*p)
}

// Tables returns the result tables, in the order a reader wants them:
// findings first, then timings, the relative table, disk, WAL, vacuum,
// plans and settings.
func (a *Analysis) Tables() []Table {
	ts := []Table{a.findingsTable()}
	if len(a.Timings) > 0 || len(a.Throughputs) == 0 {
		ts = append(ts, a.timingsTable(), a.RelativeTable())
	}
	if len(a.Throughputs) > 0 {
		ts = append(ts, a.throughputTable(), a.RelativeQPSTable())
	}
	return append(ts, a.diskTable(), a.ioTable(), a.walTable(), a.vacuumTable(), a.plansTable(), a.settingsTable())
}

// DetailTables are the tables of every run and of every sampled interval
// within a run: as long as the capture, so asked for on their own.
func (a *Analysis) DetailTables() []Table {
	return []Table{a.runsTable(), a.seriesTable()}
}

// hostCol puts a host column first when the analysis covers several.
func (a *Analysis) hostCol(cols []Column) []Column {
	if len(a.Hosts) > 1 {
		return append([]Column{{Name: "host"}}, cols...)
	}
	return cols
}

func (a *Analysis) hostCell(host string, cells ...Cell) []Cell {
	if len(a.Hosts) > 1 {
		return append([]Cell{str(host)}, cells...)
	}
	return cells
}

func (a *Analysis) findingsTable() Table {
	t := Table{Name: "findings", Title: "Findings", Note: "What the guards found; an error means the capture cannot support the comparison it was made for.",
		Columns: a.hostCol([]Column{{Name: "severity"}, {Name: "guard"}, {Name: "test"}, {Name: "config"}, {Name: "runs"}, {Name: "finding"}})}
	for _, f := range a.Findings {
		runs := ""
		if len(f.Runs) > 0 {
			runs = strings.TrimPrefix(strings.TrimPrefix(listRuns(f.Runs), "runs "), "run ")
		}
		t.Rows = append(t.Rows, a.hostCell(f.Host, str(string(f.Severity)), str(f.Guard), str(f.Test), str(f.Config), str(runs), str(f.Message)))
	}
	return t
}

func (a *Analysis) timingsTable() Table {
	conf := fmt.Sprintf("%.0f%%", 100*a.Confidence)
	t := Table{Name: "timings", Title: "Timings",
		Note: fmt.Sprintf("Median over rounds with its %s interval (order statistics); ratio = median / median of %s, with its %s interval and the Mann-Whitney p-value, Holm-corrected over tests; ~ = not significant at %.2f.",
			conf, a.Baseline, conf, a.Alpha),
		Columns: a.hostCol([]Column{{Name: "test"}, {Name: "config"}, {Name: "n"}, {Name: "median", Unit: "ms"},
			{Name: "ci low", Unit: "ms"}, {Name: "ci high", Unit: "ms"}, {Name: "min", Unit: "ms"}, {Name: "max", Unit: "ms"}, {Name: "iqr", Unit: "ms"},
			{Name: "ratio"}, {Name: "ratio ci low"}, {Name: "ratio ci high"}, {Name: "p"}, {Name: "p holm"}, {Name: "significant"}, {Name: "rounds", Unit: "ms"}, {Name: "notes"}})}
	for _, tm := range a.Timings {
		s := tm.Summary
		lo, hi := none(), none()
		if s.CIValid {
			lo, hi = num4(s.Lo), num4(s.Hi)
		}
		ratio, rlo, rhi, p, padj, sigc := none(), none(), none(), none(), none(), none()
		if tm.Config == a.Baseline {
			ratio = str("baseline")
		} else if c := tm.Compare; c != nil {
			ratio = fixed(c.Ratio, 3)
			if c.CIValid {
				rlo, rhi = fixed(c.Lo, 3), fixed(c.Hi, 3)
			}
			if c.PValid {
				p, padj = fixed(c.P, 3), fixed(c.PAdjusted, 3)
				sigc = Cell{Value: c.Significant, Text: map[bool]string{true: "yes", false: "~"}[c.Significant]}
			}
		}
		var rounds []string
		for _, r := range tm.Rounds {
			rounds = append(rounds, fmt.Sprintf("%d:%s", r.Round, sig(r.TimeMs, 4)))
		}
		t.Rows = append(t.Rows, a.hostCell(tm.Host, str(tm.Test), str(tm.Config), integer(int64(s.N)), num4(s.Median), lo, hi,
			num4(s.Min), num4(s.Max), num4(s.IQR), ratio, rlo, rhi, p, padj, sigc, str(strings.Join(rounds, " ")), str(strings.Join(tm.Notes, "; "))))
	}
	return t
}

// RelativeTable is the table a post shows: tests as rows, configurations
// as columns, each value the median time relative to the baseline's (below
// 1 is faster), "~" where the difference is not significant, and the
// geometric mean across tests.
func (a *Analysis) RelativeTable() Table {
	t := a.relative("relative", "Relative times",
		fmt.Sprintf("Median time relative to %s (below 1.00 is faster); ~ marks a difference not significant at %.2f (Holm-corrected); geomean is across the tests.", a.Baseline, a.Alpha),
		func(h, test, c string) (found bool, ratio float64, significant bool) {
			tm := a.timing(h, test, c)
			if tm == nil {
				return false, 0, false
			}
			if tm.Compare == nil {
				return true, 0, false
			}
			return true, tm.Compare.Ratio, tm.Compare.Significant
		},
		func(h string) []Cell {
			if len(a.Geomeans) == 0 {
				return nil
			}
			row := []Cell{str("geomean")}
			for _, c := range a.Configs {
				if c == a.Baseline {
					row = append(row, Cell{Value: 1.0, Text: "1.00"})
					continue
				}
				cell := none()
				for _, g := range a.Geomeans {
					if g.Host == h && g.Config == c {
						cell = fixed(g.Ratio, 2)
					}
				}
				row = append(row, cell)
			}
			return row
		})
	return t
}

// relative builds a table of tests as rows and configurations as columns,
// each value a ratio to the baseline to two decimals and "~" where it is
// not significant. get says whether a (host, test, configuration) has a
// result and, off the baseline, its ratio; a result without a ratio (too
// few runs) is left empty. last, when it gives a row, ends each host's.
func (a *Analysis) relative(name, title, note string, get func(host, test, config string) (found bool, ratio float64, significant bool),
	last func(host string) []Cell) Table {
	t := Table{Name: name, Title: title, Note: note}
	cols := []Column{{Name: "test"}}
	for _, c := range a.Configs {
		cols = append(cols, Column{Name: c})
	}
	t.Columns = a.hostCol(cols)
	for _, h := range a.Hosts {
		for _, test := range a.Tests {
			row := []Cell{str(test)}
			any := false
			for _, c := range a.Configs {
				found, ratio, significant := get(h, test, c)
				switch {
				case !found:
					row = append(row, none())
				case c == a.Baseline:
					row = append(row, Cell{Value: 1.0, Text: "1.00"})
					any = true
				case ratio > 0 && !math.IsInf(ratio, 0):
					cell := fixed(ratio, 2)
					if !significant {
						cell.Text += " ~"
					}
					row = append(row, cell)
					any = true
				default:
					row = append(row, none())
				}
			}
			if any {
				t.Rows = append(t.Rows, a.hostCell(h, row...))
			}
		}
		if last != nil {
			if row := last(h); row != nil {
				t.Rows = append(t.Rows, a.hostCell(h, row...))
			}
		}
	}
	return t
}

func (a *Analysis) diskTable() Table {
	t := Table{Name: "disk", Title: "Disk",
		Note: "Medians over rounds of each run's figures over its timed statement, with iostat -x's definitions; bounded = runs within 10% of the device's limit.",
		Columns: a.hostCol([]Column{{Name: "test"}, {Name: "config"}, {Name: "device"}, {Name: "n"}, {Name: "reads"}, {Name: "merged"}, {Name: "read", Unit: "MiB"},
			{Name: "rareq-sz", Unit: "KiB"}, {Name: "r/s"}, {Name: "read", Unit: "MiB/s"}, {Name: "r_await", Unit: "ms"},
			{Name: "writes"}, {Name: "merged"}, {Name: "written", Unit: "MiB"}, {Name: "wareq-sz", Unit: "KiB"}, {Name: "w/s"}, {Name: "write", Unit: "MiB/s"},
			{Name: "w_await", Unit: "ms"}, {Name: "discards"}, {Name: "flushes"}, {Name: "aqu-sz"}, {Name: "util", Unit: "%"}, {Name: "bounded"}})}
	for _, d := range a.Disks {
		t.Rows = append(t.Rows, a.hostCell(d.Host, str(d.Test), str(d.Config), str(d.Device), integer(int64(d.N)), num4(d.Reads), num4(d.ReadsMerged),
			num4(d.ReadMiB), num4(d.RAreqSzKiB), num4(d.RPerS), num4(d.RMiBPerS), num4(d.RAwaitMs), num4(d.Writes), num4(d.WritesMerged),
			num4(d.WriteMiB), num4(d.WAreqSzKiB), num4(d.WPerS), num4(d.WMiBPerS), num4(d.WAwaitMs), num4(d.Discards), num4(d.Flushes),
			num4(d.AquSz), fixed(d.UtilPct, 1), integer(int64(d.Bounded))))
	}
	return t
}

func (a *Analysis) walTable() Table {
	t := Table{Name: "wal", Title: "WAL written",
		Note: "Bytes from the WAL positions before and after each run (median, min and max over rounds); records and full page images from pg_stat_wal (14+; the whole server's, medians).",
		Columns: a.hostCol([]Column{{Name: "test"}, {Name: "config"}, {Name: "n"}, {Name: "wal", Unit: "MiB"}, {Name: "min", Unit: "MiB"}, {Name: "max", Unit: "MiB"},
			{Name: "records"}, {Name: "full page images"}})}
	for _, w := range a.WAL {
		t.Rows = append(t.Rows, a.hostCell(w.Host, str(w.Test), str(w.Config), integer(int64(w.N)), num4(w.WALBytes/mib), num4(w.Min/mib), num4(w.Max/mib),
			optNum(w.Records), optNum(w.FPI)))
	}
	return t
}

func (a *Analysis) vacuumTable() Table {
	t := Table{Name: "vacuum", Title: "Vacuum",
		Note: "VACUUM VERBOSE's figures for every round, summed over the tables vacuumed. " + strings.Join(a.Contrast, " "),
		Columns: a.hostCol([]Column{{Name: "test"}, {Name: "config"}, {Name: "round"}, {Name: "run"}, {Name: "pages scanned"},
			{Name: "buffers hit"}, {Name: "buffers read"}, {Name: "pages dirtied"}, {Name: "wal records"}, {Name: "full page images"},
			{Name: "wal", Unit: "MiB"}, {Name: "tuples frozen"}, {Name: "tuples removed"}, {Name: "cpu", Unit: "s"}, {Name: "elapsed", Unit: "s"}})}
	for _, v := range a.Vacuums {
		walMiB := none()
		if v.WALBytes != nil {
			walMiB = num4(float64(*v.WALBytes) / mib)
		}
		t.Rows = append(t.Rows, a.hostCell(v.Host, str(v.Test), str(v.Config), integer(int64(v.Round)), integer(v.RunID), optInt(v.PagesScanned),
			optInt(v.BufferHits), optInt(v.BufferReads), optInt(v.BufferDirtied), optInt(v.WALRecords), optInt(v.WALFPI), walMiB,
			optInt(v.TuplesFrozen), optInt(v.TuplesRemoved), optNum(v.CPUS), optNum(v.ElapsedS)))
	}
	return t
}

func (a *Analysis) plansTable() Table {
	t := Table{Name: "plans", Title: "Plans",
		Note:    "The plan each configuration ran (EXPLAIN before the cold steps); the fingerprint ignores costs, rows and timings.",
		Columns: a.hostCol([]Column{{Name: "test"}, {Name: "config"}, {Name: "fingerprint"}, {Name: "shape"}, {Name: "rounds"}})}
	for _, p := range a.Plans {
		fp := p.Fingerprint
		if len(fp) > 12 {
			fp = fp[:12]
		}
		t.Rows = append(t.Rows, a.hostCell(p.Host, str(p.Test), str(p.Config), Cell{Value: p.Fingerprint, Text: fp}, str(p.Shape),
			str(strings.TrimPrefix(strings.TrimPrefix(roundsText(p.Rounds), "rounds "), "round "))))
	}
	return t
}

func (a *Analysis) settingsTable() Table {
	cols := []Column{{Name: "setting"}}
	for _, c := range a.Configs {
		cols = append(cols, Column{Name: c})
	}
	cols = append(cols, Column{Name: "declared"}, Column{Name: "sources"})
	t := Table{Name: "settings", Title: "Settings that differ",
		Note:    "pg_settings of each configuration's server; the settings most likely to matter first; declared = named by the study.",
		Columns: a.hostCol(cols)}
	for _, s := range a.Settings {
		row := []Cell{str(s.Name)}
		var srcs []string
		for _, c := range a.Configs {
			v, ok := s.Values[c]
			if !ok {
				row = append(row, none())
				continue
			}
			row = append(row, str(v))
			if src := s.Sources[c]; src != "" {
				srcs = append(srcs, c+": "+src)
			}
		}
		row = append(row, Cell{Value: s.Declared, Text: map[bool]string{true: "yes", false: "no"}[s.Declared]}, str(strings.Join(srcs, ", ")))
		t.Rows = append(t.Rows, a.hostCell(s.Host, row...))
	}
	return t
}

func (a *Analysis) runsTable() Table {
	t := Table{Name: "runs", Title: "Runs",
		Note: "Every run analysed, in the order it ran.",
		Columns: a.hostCol([]Column{{Name: "run"}, {Name: "round"}, {Name: "position"}, {Name: "test"}, {Name: "config"}, {Name: "status"},
			{Name: "time", Unit: "ms"}, {Name: "time from"}, {Name: "device"}, {Name: "read", Unit: "MiB"}, {Name: "reads"}, {Name: "rareq-sz", Unit: "KiB"},
			{Name: "pg read", Unit: "MiB"}, {Name: "wal", Unit: "MiB"}, {Name: "aio in flight"}, {Name: "aio max"}, {Name: "plan"}})}
	for _, r := range a.Runs {
		tm, rd, reads, rsz, pgr, wal, plan := none(), none(), none(), none(), none(), none(), none()
		if r.HasTime {
			tm = num4(r.TimeMs)
		}
		if r.Disk != nil {
			rd, reads, rsz = num4(r.Disk.ReadBytes/mib), num4(r.Disk.Reads), num4(r.Disk.RAreqSzKiB)
		}
		if r.PGReads != nil {
			pgr = num4(*r.PGReads / mib)
		}
		if r.WALBytes != nil {
			wal = num4(float64(*r.WALBytes) / mib)
		}
		if r.Plan != nil {
			plan = str(r.Plan.Shape)
		}
		aioMean, aioMax := none(), none()
		if r.AIOSamples > 0 {
			aioMean, aioMax = num4(r.AIOMean), num4(r.AIOMax)
		}
		t.Rows = append(t.Rows, a.hostCell(r.Host, integer(r.RunID), integer(int64(r.Round)), integer(int64(r.Position)), str(r.Test), str(r.Config),
			str(r.Status), tm, str(r.TimeSource), str(r.Device), rd, reads, rsz, pgr, wal, aioMean, aioMax, plan))
	}
	return t
}

// seriesTable is the device's throughput over time within each run that
// was sampled: one row per interval between snapshots.
func (a *Analysis) seriesTable() Table {
	t := Table{Name: "disk-series", Title: "Disk over time",
		Note: "The run's device between consecutive diskstats snapshots (before, samples, after); offset is the end of the interval from the start of the timed statement.",
		Columns: a.hostCol([]Column{{Name: "run"}, {Name: "test"}, {Name: "config"}, {Name: "round"}, {Name: "device"}, {Name: "offset", Unit: "s"},
			{Name: "interval", Unit: "s"}, {Name: "r/s"}, {Name: "read", Unit: "MiB/s"}, {Name: "rareq-sz", Unit: "KiB"}, {Name: "w/s"},
			{Name: "write", Unit: "MiB/s"}, {Name: "aqu-sz"}, {Name: "util", Unit: "%"}})}
	for _, r := range a.Runs {
		for _, iv := range r.Series {
			s := iv.Stats
			t.Rows = append(t.Rows, a.hostCell(r.Host, integer(r.RunID), str(r.Test), str(r.Config), integer(int64(r.Round)), str(r.Device),
				fixed(iv.OffsetS, 3), fixed(s.Seconds, 3), num4(s.RPerS), num4(s.RKiBPerS/1024), num4(s.RAreqSzKiB), num4(s.WPerS),
				num4(s.WKiBPerS/1024), num4(s.AquSz), fixed(s.UtilPct, 1)))
		}
	}
	return t
}
