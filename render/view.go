package render

import (
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// view is a table as a person reads it: the headers, which columns hold
// numbers only (aligned right), and each row's cells as text. A table
// with a pivot is spread wide, one column per name.
type view struct {
	headers []string
	numeric []bool
	rows    [][]string
}

// align tracks whether a column holds numbers only, and at least one.
type align struct{ seen, other bool }

func (a *align) add(v any) {
	number, known := numeric(v)
	if known {
		a.seen = a.seen || number
		a.other = a.other || !number
	}
}

func (a align) right() bool { return a.seen && !a.other }

func viewOf(t table.Table) view {
	if t.Pivot != nil {
		return pivotView(t)
	}
	var shown []int
	for i, c := range t.Columns {
		if !slices.Contains(t.Hidden, c.Key) {
			shown = append(shown, i)
		}
	}
	v := view{numeric: make([]bool, len(shown))}
	aligns := make([]align, len(shown))
	for _, i := range shown {
		v.headers = append(v.headers, t.Columns[i].Header())
	}
	for _, r := range t.Rows {
		cells := make([]string, len(shown))
		for j, i := range shown {
			cells[j] = cellText(t.Columns[i], r[i])
			aligns[j].add(r[i])
		}
		v.rows = append(v.rows, cells)
	}
	for j, a := range aligns {
		v.numeric[j] = a.right()
	}
	return v
}

// pivotView spreads a long table: each run of consecutive rows with the
// same key becomes one row, with a column per name.
func pivotView(t table.Table) view {
	p := t.Pivot
	idx := func(keys []string) []int {
		out := make([]int, len(keys))
		for i, k := range keys {
			out[i] = t.Index(k)
		}
		return out
	}
	keys, rest, cell, name := idx(p.Keys), idx(p.Rest), idx(p.Cell), t.Index(p.Name)
	split := append(slices.Clone(keys), idx(p.Split)...)
	var v view
	for _, i := range keys {
		v.headers = append(v.headers, t.Columns[i].Header())
	}
	var own []string // the headers that are not names from the data
	for _, i := range rest {
		own = append(own, t.Columns[i].Header())
	}
	for _, g := range p.Gather {
		own = append(own, g.Title)
	}
	v.headers = append(v.headers, nameHeaders(p.Names, p.Name, append(slices.Clone(v.headers), own...))...)
	v.headers = append(v.headers, own...)
	aligns := make([]align, len(v.headers))
	var last []string // the key cells of the row before
	for _, group := range runsOf(t.Rows, split) {
		first := group[0]
		var cells []string
		for j, i := range keys {
			cells = append(cells, cellText(t.Columns[i], first[i]))
			aligns[j].add(first[i])
		}
		if slices.Equal(cells, last) && len(cells) > 0 {
			cells[len(cells)-1] += splitNote(t, p.Split, first)
		}
		last = slices.Clone(cells)
		for j, n := range p.Names {
			r := rowNamed(group, name, n)
			if r == nil {
				cells = append(cells, "")
				continue
			}
			var texts []string
			for _, i := range cell {
				if s := cellText(t.Columns[i], r[i]); s != "" {
					texts = append(texts, s)
				}
			}
			cells = append(cells, strings.Join(texts, " "))
			aligns[len(keys)+j].add(r[cell[0]])
		}
		for j, i := range rest {
			cells = append(cells, cellText(t.Columns[i], first[i]))
			aligns[len(keys)+len(p.Names)+j].add(first[i])
		}
		for _, g := range p.Gather {
			i := t.Index(g.Key)
			var texts []string
			for _, n := range p.Names {
				if r := rowNamed(group, name, n); r != nil {
					if s := cellText(t.Columns[i], r[i]); s != "" {
						texts = append(texts, n+": "+s)
					}
				}
			}
			cells = append(cells, strings.Join(texts, ", "))
		}
		v.rows = append(v.rows, cells)
	}
	for _, a := range aligns {
		v.numeric = append(v.numeric, a.right())
	}
	return v
}

// runsOf splits rows into runs of consecutive rows with the same values
// in the key columns.
func runsOf(rows [][]any, keys []int) [][][]any {
	var out [][][]any
	same := func(a, b []any) bool {
		return !slices.ContainsFunc(keys, func(i int) bool { return rawValue(a[i]) != rawValue(b[i]) })
	}
	for _, r := range rows {
		if n := len(out); n > 0 && same(out[n-1][0], r) {
			out[n-1] = append(out[n-1], r)
			continue
		}
		out = append(out, [][]any{r})
	}
	return out
}

// rowNamed is the row of a run whose name column is n, or nil.
func rowNamed(group [][]any, name int, n string) []any {
	for _, r := range group {
		if s, ok := r[name].(string); ok && s == n {
			return r
		}
	}
	return nil
}

// nameHeaders are the wide columns' headers: the names from the data, but
// a name that reads as one of the table's own headers (a configuration
// named "test") says what it is: "test (config)".
func nameHeaders(names []string, what string, own []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if slices.Contains(own, n) {
			out[i] = n + " (" + what + ")"
		}
	}
	return out
}

// splitNote tells apart a row whose key reads as the row's before it (a
// test named "geomean" and the geomean across tests): the titles of the
// split columns that are true in it, as " (across tests)".
func splitNote(t table.Table, split []string, row []any) string {
	var note []string
	for _, k := range split {
		if b, ok := row[t.Index(k)].(bool); ok && b {
			note = append(note, t.Columns[t.Index(k)].Title)
		}
	}
	if len(note) == 0 {
		return ""
	}
	return " (" + strings.Join(note, ", ") + ")"
}
