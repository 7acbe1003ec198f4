// Package table is the shape of a result table, shared by analyze, which
// fills it, and render, which writes it as Markdown, CSV and JSON. Each
// column is a spec: a stable machine key, a title and unit for people, and
// a kind that says what its values are and how they are shown. Rows hold
// typed values, never text, so every format is written from one
// definition and no two columns can share a name in a machine format.
//
// A table is made in three steps:
//
//  1. declare its fields: a column spec and a getter from a row type
//     (Field);
//  2. evaluate them over the rows (Of), which gives the columns and the
//     values;
//  3. check it (Table.Check): keys are snake_case and unique, and a pivot
//     names columns the table has.
//
// Names that come from the data (configurations, tests, settings) are
// values in a table, never keys: a table that people read with one
// column per configuration is made in long form, one row per
// configuration, with a Pivot that says how render's Markdown spreads it.
package table

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Table is one result table.
type Table struct {
	Name    string // a file name: "timings"
	Title   string // a heading: "Timings"
	Note    string
	Columns []Column
	// Rows hold one value per column: float64, int64, string, bool,
	// []int64 (Ranges and Listed), []string (Names), []Point (Points) or
	// nil (unknown). Numbers are in base units (bytes, not MiB): Scale
	// says how a person's view shows them.
	Rows [][]any
	// Pivot, when set, says how a reader's view spreads the rows into
	// one column per name; machine formats keep the rows as they are.
	Pivot *Pivot
	// Group, when set, is the key of a column whose value, in runs of
	// consecutive rows, is a heading a reader's view writes each run
	// under, as a table of its own (seed 003's point queries, range
	// queries, writes); machine formats keep it as a column.
	Group string
	// Hidden are columns a reader's view leaves out (the host, when there
	// is one); machine formats keep every column, so that their columns
	// are the same whatever the input.
	Hidden []string
}

// Kind is what a column holds and how a person sees it.
type Kind uint8

const (
	Plain       Kind = iota // a string as it is (cut to Width when set)
	Whole                   // an int64
	Significant             // a float64 with Digits significant digits, never in e-notation
	Decimals                // a float64 with Digits decimals
	Words                   // a bool, shown as Yes or No
	Ranges                  // []int64, consecutive numbers as ranges: "1-24, 30"
	Listed                  // []int64, every number: "1, 2, 5"
	Points                  // []Point, shown as "at:value" with Digits significant digits
	PValue                  // a float64 shown with three decimals, "<0.001" below 0.0005
	Names                   // []string, shown joined by ", "
)

// Column is a column's spec.
type Column struct {
	Key    string // snake_case, unique in its table: the name in CSV and JSON
	Title  string // the header a person reads, with Unit after it
	Unit   string
	Kind   Kind
	Digits int    // significant digits or decimals of a float
	Yes    string // Words: the text of true
	No     string // Words: the text of false
	Width  int    // Plain: the most runes shown (a fingerprint); 0 is all
	// Scale divides a value for a person's view: values are kept in base
	// units (bytes) and shown in Unit (MiB). 0 is 1.
	Scale float64
	// AtKey is a Points column's second key in machine formats: its
	// positions (the rounds) as one array, its values as another under Key.
	AtKey string
	// Empty says that "" is a value of the column (a setting set to the
	// empty string), not a stand-in for unknown, which is nil.
	Empty bool
}

// Header is the column's title with its unit, as a person reads it.
func (c Column) Header() string {
	if c.Unit == "" {
		return c.Title
	}
	return c.Title + " (" + c.Unit + ")"
}

// Point is a value at a position: a round's time.
type Point struct {
	At    int64
	Value float64
}

// BaseUnit is the unit of the values as stored and written by the
// machine formats: "bytes" for a column shown in MiB.
func (c Column) BaseUnit() string {
	if c.Scale == 0 {
		return c.Unit
	}
	if strings.HasSuffix(c.Unit, "/s") {
		return "bytes/s"
	}
	return "bytes"
}

// Shown is a value as a person's view shows it, in Unit.
func (c Column) Shown(v float64) float64 {
	if c.Scale == 0 {
		return v
	}
	return v / c.Scale
}

// byteScales are the units a byte count is shown in.
var byteScales = map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	"KiB/s": 1 << 10, "MiB/s": 1 << 20}

// Bytes is a column of byte counts (float64, or int64 for "B"), kept in
// bytes and shown in unit: B, KiB, MiB or GiB, or KiB/s or MiB/s for a
// rate in bytes per second. Its key ends in _bytes (_bytes_per_s).
func Bytes(key, title, unit string) Column {
	scale, ok := byteScales[unit]
	if !ok {
		panic("table.Bytes: unknown unit " + unit)
	}
	kind := Significant
	if unit == "B" {
		kind = Whole
	}
	return Column{Key: key, Title: title, Unit: unit, Kind: kind, Digits: 4, Scale: scale}
}

// P is a column of p-values.
func P(key, title string) Column { return Column{Key: key, Title: title, Kind: PValue, Digits: 3} }

// Text is a column of strings.
func Text(key, title string) Column { return Column{Key: key, Title: title, Kind: Plain} }

// Int is a column of int64.
func Int(key, title, unit string) Column {
	return Column{Key: key, Title: title, Unit: unit, Kind: Whole}
}

// Num is a column of float64 shown with four significant digits.
func Num(key, title, unit string) Column {
	return Column{Key: key, Title: title, Unit: unit, Kind: Significant, Digits: 4}
}

// Fixed is a column of float64 shown with the given decimals.
func Fixed(key, title, unit string, decimals int) Column {
	return Column{Key: key, Title: title, Unit: unit, Kind: Decimals, Digits: decimals}
}

// Bool is a column of bool shown as yes or no.
func Bool(key, title, yes, no string) Column {
	return Column{Key: key, Title: title, Kind: Words, Yes: yes, No: no}
}

// Field is a column and how to read its value from a row of type R.
type Field[R any] struct {
	Column
	Get func(R) any
}

// Of evaluates fields over rows: the columns and one value per field and
// row. An empty text is nil (unknown, or not applicable) unless the
// column holds the empty string as a value (Empty): "" would read as a
// value to a machine reader, and null is what the export says for none.
func Of[R any](fields []Field[R], rows []R) ([]Column, [][]any) {
	cols := make([]Column, len(fields))
	for i, f := range fields {
		cols[i] = f.Column
	}
	vals := make([][]any, len(rows))
	for j, r := range rows {
		row := make([]any, len(fields))
		for i, f := range fields {
			row[i] = f.Get(r)
			if s, ok := row[i].(string); ok && s == "" && !f.Empty {
				row[i] = nil
			}
		}
		vals[j] = row
	}
	return cols, vals
}

// Pivot spreads a long table into a wide one: one row per run of
// consecutive rows with the same Keys, one column per name in Names (the
// values of column Name), each cell the texts of the Cell columns joined
// by a space. Rest are columns shown after the names, from the run's
// first row; each Gather column is shown after them as "name: text" over
// the run's rows, joined by ", ". Split columns also end a run but are not
// shown: they tell apart rows that read the same to a person, such as the
// geomean across tests and a test named "geomean".
type Pivot struct {
	Keys   []string
	Split  []string
	Name   string
	Names  []string // every wide column in order, those without a value too
	Cell   []string
	Rest   []string
	Gather []Gather
}

// Gather is a column of the long table shown as one wide column, titled
// Title, listing its texts by name.
type Gather struct {
	Key   string
	Title string
}

var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// unitWords are the words of a key each unit asks for, so that a machine
// reader knows a value's unit from its key: read_bytes_per_s, median_ms.
var unitWords = map[string][]string{
	"ms": {"ms"}, "µs": {"us"}, "s": {"s"}, "%": {"pct"}, "IOPS": {"iops"},
	"bytes": {"bytes"}, "bytes/s": {"bytes", "per", "s"},
}

// notBase are key endings of units that are not base units.
var notBase = []string{"_kb", "_mb", "_gb", "_kib", "_mib", "_gib", "_per_s_kib", "_mib_per_s", "_kib_per_s"}

// Check says what is wrong with a table's spec: a name or key that is not
// snake_case, a key that two columns share, a key that does not name its
// base unit (median_ms, read_bytes) or names one that is not (read_mib),
// a row of the wrong length or with a value of the wrong kind, or a pivot
// that names a column the table does not have.
func (t Table) Check() error {
	if !snake.MatchString(t.Name) {
		return fmt.Errorf("table %q: its name is not snake_case", t.Name)
	}
	seen := map[string]bool{}
	for _, c := range t.Columns {
		if err := c.check(); err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		for _, k := range c.Keys() {
			if seen[k] {
				return fmt.Errorf("table %s: two columns have the key %q", t.Name, k)
			}
			seen[k] = true
		}
	}
	for i, r := range t.Rows {
		if len(r) != len(t.Columns) {
			return fmt.Errorf("table %s: row %d has %d values for %d columns", t.Name, i+1, len(r), len(t.Columns))
		}
		for j, v := range r {
			if !t.Columns[j].holds(v) {
				return fmt.Errorf("table %s: row %d: column %s holds %#v, not a value of its kind", t.Name, i+1, t.Columns[j].Key, v)
			}
		}
	}
	if p := t.Pivot; p != nil {
		keys := append(append(append(append(slices.Clone(p.Keys), p.Split...), p.Name), p.Cell...), p.Rest...)
		if t.Group != "" {
			keys = append(keys, t.Group)
		}
		for _, g := range p.Gather {
			keys = append(keys, g.Key)
		}
		for _, k := range keys {
			if !seen[k] {
				return fmt.Errorf("table %s: the pivot names column %q, which the table does not have", t.Name, k)
			}
		}
	}
	return nil
}

// Keys are the column's keys in machine formats: its own, and a Points
// column's positions.
func (c Column) Keys() []string {
	if c.Kind == Points {
		return []string{c.AtKey, c.Key}
	}
	return []string{c.Key}
}

func (c Column) check() error {
	for _, k := range c.Keys() {
		if !snake.MatchString(k) {
			return fmt.Errorf("column key %q is not snake_case", k)
		}
		for _, bad := range notBase {
			if strings.HasSuffix(k, bad) {
				return fmt.Errorf("column key %q names a unit that is not a base unit (bytes, ms, s)", k)
			}
		}
	}
	words := strings.Split(c.Key, "_")
	for _, w := range unitWords[c.BaseUnit()] {
		if !slices.Contains(words, w) {
			return fmt.Errorf("column %q is in %s: its key must name it (%s)", c.Key, c.BaseUnit(), strings.Join(unitWords[c.BaseUnit()], "_"))
		}
	}
	return nil
}

// holds says whether a value is of the column's kind: nil (unknown) fits
// any column, a string only a column of text, and "" only a column where
// the empty string is a value.
func (c Column) holds(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return c.Kind == Plain && (x != "" || c.Empty)
	case int64:
		return c.Kind == Whole
	case float64:
		return c.Kind == Significant || c.Kind == Decimals || c.Kind == PValue
	case bool:
		return c.Kind == Words
	case []int64:
		return c.Kind == Ranges || c.Kind == Listed
	case []string:
		return c.Kind == Names
	case []Point:
		return c.Kind == Points
	}
	return false
}

// Index is the position of the column with the key, or -1.
func (t Table) Index(key string) int {
	return slices.IndexFunc(t.Columns, func(c Column) bool { return c.Key == key })
}

// RangeText writes numbers sorted, each once, consecutive ones as ranges:
// "1-24, 30" ("5, 6" for two). It is the one writing of a list of runs,
// for render's cells and analyze's messages alike.
func RangeText(ids []int64) string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var b []byte
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if len(b) > 0 {
			b = append(b, ", "...)
		}
		switch {
		case j == i:
			b = fmt.Appendf(b, "%d", ids[i])
		case j == i+1:
			b = fmt.Appendf(b, "%d, %d", ids[i], ids[j])
		default:
			b = fmt.Appendf(b, "%d-%d", ids[i], ids[j])
		}
		i = j + 1
	}
	return string(b)
}

// On is a field: a column and its getter.
func On[R any](c Column, get func(R) any) Field[R] { return Field[R]{Column: c, Get: get} }

// Maybe is a text, or nil (unknown, or not applicable) when it is empty.
func Maybe(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Type is the JSON type of the column's values as machine formats write
// them, besides null: "string", "integer", "number", "boolean", or a list
// as "integer[]", "number[]", "string[]". A Points column's positions
// are "integer[]" (AtType) and its values "number[]".
func (c Column) Type() string {
	switch c.Kind {
	case Whole:
		return "integer"
	case Significant, Decimals, PValue:
		return "number"
	case Words:
		return "boolean"
	case Ranges, Listed:
		return "integer[]"
	case Names:
		return "string[]"
	case Points:
		return "number[]"
	}
	return "string"
}
