package render

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/stats"
)

// CompareFormats are the formats a comparison is written in: text as
// benchstat prints it, and the formats of an analysis.
var CompareFormats = []string{"text", "md", "csv", "json"}

// compareMeta is what a comparison's JSON holds beside its tables.
type compareMeta struct {
	SchemaVersion int                   `json:"schema_version"`
	Old           compareSide           `json:"old"`
	New           compareSide           `json:"new"`
	Confidence    float64               `json:"confidence"`
	Alpha         float64               `json:"alpha"`
	Tolerance     float64               `json:"tolerance"`
	OnlyOld       []string              `json:"only_old"`
	OnlyNew       []string              `json:"only_new"`
	NotCompared   []string              `json:"not_compared"`
	Differences   []string              `json:"differences"`
	Captures      []analyze.CaptureInfo `json:"captures"`
}

type compareSide struct {
	Name   string  `json:"name"`
	Config *string `json:"config"` // null: every configuration both have
}

// Comparison writes a comparison: text and Markdown for people, CSV (one
// table, as name says) and JSON for programs.
func Comparison(w io.Writer, format, table string, c *analyze.Comparison) error {
	tables := c.Tables()
	switch format {
	case "text":
		return compareText(w, c)
	case "md":
		d := doc{heading{1, words("Comparison")}, paragraph{words("%s", compareAbout(c))}}
		if err := d.tables(tables, 2); err != nil {
			return err
		}
		return d.markdown(w)
	case "csv":
		for _, t := range tables {
			if t.Name == table {
				return csvTable(w, t)
			}
		}
		return fmt.Errorf("no table %q in a comparison", table)
	case "json":
		meta, err := metaFields(compareMetaOf(c))
		if err != nil {
			return err
		}
		return jsonTables(w, tables, meta)
	}
	return fmt.Errorf("unknown format %q; expected one of %s", format, strings.Join(CompareFormats, ", "))
}

func compareMetaOf(c *analyze.Comparison) compareMeta {
	side := func(s analyze.Side) compareSide {
		cs := compareSide{Name: s.Name}
		if s.Config != "" {
			cs.Config = &s.Config
		}
		return cs
	}
	m := compareMeta{SchemaVersion: SchemaVersion, Old: side(c.Old), New: side(c.New), Confidence: c.Confidence, Alpha: c.Alpha,
		Tolerance: c.Tolerance, OnlyOld: nonNil(c.OnlyOld), OnlyNew: nonNil(c.OnlyNew), NotCompared: nonNil(c.NotCompared), Differences: nonNil(c.Differences)}
	if c.Old.A != nil {
		m.Captures = append(append(m.Captures, c.Old.A.Captures...), c.New.A.Captures...)
	}
	return m
}

// compareAbout says what was compared with what, and what else differs.
func compareAbout(c *analyze.Comparison) string {
	side := func(s analyze.Side) string {
		cp := s.A.Captures[0]
		out := fmt.Sprintf("%s: %s (host %s, %d runs", s.Name, cp.Name, cp.Host, cp.Runs)
		if s.Config != "" {
			out += ", configuration " + s.Config
		}
		return out + ")"
	}
	lines := []string{side(c.Old), side(c.New)}
	for _, d := range c.Differences {
		lines = append(lines, "differs: "+d)
	}
	if len(c.OnlyOld) > 0 {
		lines = append(lines, fmt.Sprintf("only in %s: %s", c.Old.Name, strings.Join(c.OnlyOld, ", ")))
	}
	if len(c.OnlyNew) > 0 {
		lines = append(lines, fmt.Sprintf("only in %s: %s", c.New.Name, strings.Join(c.OnlyNew, ", ")))
	}
	for _, n := range c.NotCompared {
		lines = append(lines, "not compared: "+n)
	}
	return strings.Join(lines, "\n")
}

// compareText writes a comparison as benchstat does: a column per side,
// each median with its interval as ± percent, then the change with its
// p-value and n, "~" where it is not significant, a geomean row, and
// footnotes for what could not be computed; then both sides' findings.
func compareText(w io.Writer, c *analyze.Comparison) error {
	bw := &errWriter{w: w}
	bw.printf("%s\n", compareAbout(c))
	notes := &footnotes{}
	for _, throughput := range []bool{false, true} {
		var rows []analyze.CompareRow
		for _, r := range c.Rows {
			if r.Throughput == throughput {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		unit, geo := "time (ms)", c.Geomean
		if throughput {
			unit, geo = "queries/s", c.GeomeanQPS
		}
		grid := [][]string{{"", c.Old.Name, c.New.Name, ""}, {"", unit, unit, "vs " + c.Old.Name}}
		for _, r := range rows {
			grid = append(grid, []string{rowLabel(c, r), medianText(r.Old, c.Confidence, notes),
				medianText(r.New, c.Confidence, notes), changeText(r, c.Alpha, c.Tolerance, notes)})
		}
		if geo > 0 {
			grid = append(grid, []string{"geomean", "", "", fmt.Sprintf("%+.2f%%", 100*(geo-1))})
		}
		bw.printf("\n")
		writeGrid(bw, grid)
	}
	if len(c.Rows) == 0 {
		bw.printf("\nno test and configuration is on both sides\n")
	}
	if len(c.Rows) > 0 {
		bw.printf("p: Mann-Whitney U, Holm-corrected over the %d rows; ~: not significant at %.2f; ± is the %.0f%% interval of the median\n",
			len(c.Rows), c.Alpha, 100*c.Confidence)
	}
	for i, n := range notes.texts {
		bw.printf("%s %s\n", superscript(i+1), n)
	}
	if len(c.Findings) > 0 {
		bw.printf("\nfindings (each side's guards):\n")
		for _, f := range c.Findings {
			bw.printf("  %s: %s: %s: %s\n", f.Side, f.Severity, f.Guard, f.Message)
		}
	}
	return bw.err
}

// rowLabel names a row: its test, and its configuration when the sides
// are two captures (two configurations are named in the header).
func rowLabel(c *analyze.Comparison, r analyze.CompareRow) string {
	if c.Old.Config != "" {
		return r.Test
	}
	return r.Test + " " + r.OldConfig
}

// writeGrid writes rows of cells in columns two spaces apart: the first
// column left-aligned, the others right-aligned, as benchstat does.
func writeGrid(bw *errWriter, grid [][]string) {
	width := make([]int, len(grid[0]))
	for _, row := range grid {
		for i, cell := range row {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range grid {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if i == 0 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		bw.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}

// medianText is a median with its interval as benchstat writes it.
func medianText(s stats.Summary, confidence float64, notes *footnotes) string {
	if !s.CIValid {
		return sig(s.Median, 4) + " ± ∞ " + notes.mark(fmt.Sprintf("need more runs for a confidence interval at level %.2f", confidence))
	}
	half := math.Max(s.Hi-s.Median, s.Median-s.Lo) / s.Median
	return fmt.Sprintf("%s ± %.0f%%", sig(s.Median, 4), 100*half)
}

// changeText is the change from old to new with its p-value, "~" where
// it is not significant, "?" where no test could be.
func changeText(r analyze.CompareRow, alpha, tolerance float64, notes *footnotes) string {
	c := r.Compare
	n := fmt.Sprintf("n=%d", r.New.N)
	if r.Old.N != r.New.N {
		n = fmt.Sprintf("n=%d+%d", r.Old.N, r.New.N)
	}
	if !c.Testable {
		return fmt.Sprintf("? (%s) %s", n, notes.mark(fmt.Sprintf("too few runs for any test to reach p < %.2f", alpha)))
	}
	if c.Verdict.Word == "equivalent" {
		return fmt.Sprintf("= (p=%.3f %s) %s", c.PAdjusted, n, notes.mark(fmt.Sprintf("=: equivalent, within ±%.1f%% by two one-sided tests", 100*tolerance)))
	}
	if !c.Significant {
		return fmt.Sprintf("~ (p=%.3f %s)", c.PAdjusted, n)
	}
	return fmt.Sprintf("%+.2f%% (p=%.3f %s)", 100*(c.Ratio-1), c.PAdjusted, n)
}

// footnotes numbers notes once each.
type footnotes struct{ texts []string }

func (f *footnotes) mark(text string) string {
	for i, t := range f.texts {
		if t == text {
			return superscript(i + 1)
		}
	}
	f.texts = append(f.texts, text)
	return superscript(len(f.texts))
}

func superscript(n int) string {
	digits := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	var b strings.Builder
	for _, d := range fmt.Sprint(n) {
		b.WriteRune(digits[d-'0'])
	}
	return b.String()
}
