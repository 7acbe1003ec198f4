package render

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/pgstudy/pgstudy/analyze/table"
)

// tablePart is a run of a table's rows under one group heading.
type tablePart struct {
	heading string
	t       table.Table
}

// groupsOf splits a table with a Group column into runs of consecutive
// rows with the same group, each without that column in a reader's
// view; rows without a group have no heading. A table
// without a Group column is one part without a heading.
func groupsOf(t table.Table) []tablePart {
	i := t.Index(t.Group)
	if t.Group == "" || i < 0 {
		return []tablePart{{t: t}}
	}
	var parts []tablePart
	for _, r := range t.Rows {
		g, _ := r[i].(string)
		if n := len(parts); n == 0 || parts[n-1].heading != g {
			part := t
			part.Rows = nil
			part.Hidden = append(slices.Clone(t.Hidden), t.Group)
			parts = append(parts, tablePart{heading: g, t: part})
		}
		parts[len(parts)-1].t.Rows = append(parts[len(parts)-1].t.Rows, r)
	}
	return parts
}

// csvTable writes one table in long form with a header row of column keys;
// numbers keep their full precision and base units, and an unknown value
// is an empty field. A Points column is two fields: its positions and its
// values.
func csvTable(w io.Writer, t table.Table) error {
	if err := t.Check(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	var header []string
	for _, c := range t.Columns {
		header = append(header, c.Keys()...)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, 0, len(header))
	for _, row := range t.Rows {
		rec = rec[:0]
		for i, v := range row {
			if t.Columns[i].Kind == table.Points {
				at, vs := rawPoints(v)
				rec = append(rec, at, vs)
				continue
			}
			rec = append(rec, rawValue(v))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonTables writes tables as one document: the extra keys (sorted), then
// "tables", each with its column spec, its pivot if any, and its rows in
// long form as objects keyed by column key, in column order: the same
// content as the CSV. Numbers are numbers; an unknown value, NaN or an
// infinity is null. It streams row by row, so a table of a million rows
// costs no more memory than one row.
func jsonTables(w io.Writer, tables []table.Table, extra map[string]any) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &errWriter{w: bw}
	ew.printf("{\n")
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		v, err := json.MarshalIndent(extra[k], "  ", "  ")
		if err != nil {
			return fmt.Errorf("json %s: %w", k, err)
		}
		ew.printf("  %s: %s,\n", jsonString(k), v)
	}
	ew.printf("  \"tables\": [")
	for ti, t := range tables {
		if err := t.Check(); err != nil {
			return err
		}
		if ti > 0 {
			ew.printf(",")
		}
		writeJSONTable(ew, bw, t)
	}
	if len(tables) > 0 {
		ew.printf("\n  ")
	}
	ew.printf("]\n}\n")
	if ew.err != nil {
		return ew.err
	}
	return bw.Flush()
}

// jsonColumn is a column's spec as JSON shows it: its key, the title a
// person reads, and the unit of its values as written (bytes, ms, s).
type jsonColumn struct {
	Key   string `json:"key"`
	Title string `json:"title"`
	Type  string `json:"type"`
	Unit  string `json:"unit,omitempty"`
}

// jsonPivot is a table's pivot as JSON shows it.
type jsonPivot struct {
	Keys   []string     `json:"keys"`
	Split  []string     `json:"split,omitempty"`
	Name   string       `json:"name"`
	Names  []string     `json:"names"`
	Cell   []string     `json:"cell"`
	Rest   []string     `json:"rest,omitempty"`
	Gather []jsonGather `json:"gather,omitempty"`
}

type jsonGather struct {
	Key   string `json:"key"`
	Title string `json:"title"`
}

func writeJSONTable(ew *errWriter, bw *bufio.Writer, t table.Table) {
	var cols []jsonColumn
	quoted := make([]string, len(t.Columns))
	quotedAt := make([]string, len(t.Columns)) // a Points column's positions
	for i, c := range t.Columns {
		if c.Kind == table.Points {
			cols = append(cols, jsonColumn{Key: c.AtKey, Title: c.Title, Type: "integer[]"})
			quotedAt[i] = jsonString(c.AtKey)
		}
		quoted[i] = jsonString(c.Key)
		cols = append(cols, jsonColumn{Key: c.Key, Title: c.Title, Type: c.Type(), Unit: c.BaseUnit()})
	}
	ew.printf("\n    {\n      \"name\": %s,\n      \"title\": %s,\n", jsonString(t.Name), jsonString(t.Title))
	if t.Note != "" {
		ew.printf("      \"note\": %s,\n", jsonString(t.Note))
	}
	colText, _ := json.Marshal(cols)
	ew.printf("      \"columns\": %s,\n", colText)
	if p := t.Pivot; p != nil {
		jp := jsonPivot{Keys: p.Keys, Split: p.Split, Name: p.Name, Names: nonNil(p.Names), Cell: p.Cell, Rest: p.Rest}
		for _, g := range p.Gather {
			jp.Gather = append(jp.Gather, jsonGather(g))
		}
		pv, _ := json.Marshal(jp)
		ew.printf("      \"pivot\": %s,\n", pv)
	}
	ew.printf("      \"rows\": [")
	var row []byte
	for ri, r := range t.Rows {
		row = row[:0]
		if ri > 0 {
			row = append(row, ',')
		}
		row = append(row, "\n        {"...)
		for i, v := range r {
			if i > 0 {
				row = append(row, ", "...)
			}
			if t.Columns[i].Kind == table.Points {
				row = appendPoints(row, quotedAt[i], quoted[i], v)
				continue
			}
			row = append(row, quoted[i]...)
			row = append(row, ": "...)
			row = appendJSONValue(row, v)
		}
		row = append(row, '}')
		if ew.err == nil {
			_, ew.err = bw.Write(row)
		}
	}
	if len(t.Rows) > 0 {
		ew.printf("\n      ")
	}
	ew.printf("]\n    }")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// appendJSONValue appends a value as JSON: NaN and infinities, which JSON
// cannot hold, as null.
func appendJSONValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(b, "null"...)
		}
		return appendFloat(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return append(b, jsonString(x)...)
	case []int64:
		return appendJSONList(b, x)
	case []float64:
		return appendJSONList(b, x)
	case []string:
		return appendJSONList(b, x)
	}
	out, _ := json.Marshal(v)
	return append(b, out...)
}

// appendFloat writes a float as the shortest text that reads back to the
// same value, always with a decimal point or an exponent ("1.0", not "1"),
// so that a reader that guesses types from values (DuckDB, pandas) types
// a column of floats as floats whatever its values; in plain decimals
// between 1e-6 and 1e21, as people read them.
func appendFloat(b []byte, x float64) []byte {
	start := len(b)
	if a := math.Abs(x); a == 0 || (a >= 1e-6 && a < 1e21) {
		b = strconv.AppendFloat(b, x, 'f', -1, 64)
	} else {
		b = strconv.AppendFloat(b, x, 'e', -1, 64)
	}
	if !bytes.ContainsAny(b[start:], ".e") {
		b = append(b, ".0"...)
	}
	return b
}

func appendJSONList[T any](b []byte, xs []T) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendJSONValue(b, any(x))
	}
	return append(b, ']')
}

// appendPoints appends a Points column as two keys, quoted: its
// positions and its values.
func appendPoints(b []byte, atKey, valKey string, v any) []byte {
	ps, ok := v.([]table.Point)
	b = append(append(b, atKey...), ": "...)
	if !ok {
		return append(append(append(b, "null, "...), valKey...), ": null"...)
	}
	at, vs := splitPoints(ps)
	b = append(append(appendJSONList(b, at), ", "...), valKey...)
	return appendJSONList(append(b, ": "...), vs)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
