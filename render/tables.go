// Package render writes results for people: tables as Markdown, CSV and
// JSON, and (later) figures. It formats; it computes nothing.
package render

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/pgstudy/pgstudy/analyze"
)

// Markdown writes tables as GitHub-flavoured Markdown, each under a
// heading of the given level with its note below. Empty tables are
// written with a line that says so, so that a reader knows none was found.
func Markdown(w io.Writer, tables []analyze.Table, level int) error {
	bw := &errWriter{w: w}
	h := strings.Repeat("#", level)
	for i, t := range tables {
		if i > 0 {
			bw.printf("\n")
		}
		bw.printf("%s %s\n\n", h, MarkdownText(t.Title))
		if t.Note != "" {
			bw.printf("%s\n\n", MarkdownText(t.Note))
		}
		if len(t.Rows) == 0 {
			bw.printf("None.\n")
			continue
		}
		numeric := numericColumns(t)
		bw.printf("|")
		for _, c := range t.Columns {
			bw.printf(" %s |", MarkdownText(c.Header()))
		}
		bw.printf("\n|")
		for i := range t.Columns {
			if numeric[i] {
				bw.printf("---:|")
			} else {
				bw.printf("---|")
			}
		}
		bw.printf("\n")
		for _, row := range t.Rows {
			bw.printf("|")
			for _, c := range row {
				bw.printf(" %s |", MarkdownText(c.Text))
			}
			bw.printf("\n")
		}
	}
	return bw.err
}

// numericColumns says which columns hold numbers only, to align them
// right.
func numericColumns(t analyze.Table) []bool {
	out := make([]bool, len(t.Columns))
	for i := range t.Columns {
		seen := false
		out[i] = true
		for _, row := range t.Rows {
			switch row[i].Value.(type) {
			case float64, int64:
				seen = true
			case nil:
			default:
				out[i] = false
			}
		}
		out[i] = out[i] && seen
	}
	return out
}

// MarkdownText makes text from a capture safe in a Markdown table cell or
// paragraph: no line breaks, pipes, HTML or emphasis markers that would
// change the document around it.
func MarkdownText(s string) string {
	rs := []rune(s)
	word := func(i int) bool {
		return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i]))
	}
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case strings.ContainsRune("|\\`*[]<", r),
			r == '~' && strings.Count(s, "~") > 1, // a lone ~ (not significant) strikes nothing through
			r == '_' && !(word(i-1) && word(i+1)), // r_await needs no escape; _x_ does
			(r == '#' || r == '>') && i == 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CSV writes one table with a header row; numbers keep their full
// precision and an absent value is an empty field.
func CSV(w io.Writer, t analyze.Table) error {
	cw := csv.NewWriter(w)
	header := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		header[i] = c.Header()
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, len(t.Columns))
	for _, row := range t.Rows {
		for i, c := range row {
			rec[i] = rawValue(c.Value)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func rawValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// JSON writes tables as one document: {"tables": [...]} with each row an
// object keyed by column header, so the same content as the CSV.
func JSON(w io.Writer, tables []analyze.Table, extra map[string]any) error {
	type jt struct {
		Name    string           `json:"name"`
		Title   string           `json:"title"`
		Note    string           `json:"note,omitempty"`
		Columns []string         `json:"columns"`
		Rows    []map[string]any `json:"rows"`
	}
	doc := map[string]any{}
	for k, v := range extra {
		doc[k] = v
	}
	var out []jt
	for _, t := range tables {
		j := jt{Name: t.Name, Title: t.Title, Note: t.Note, Rows: []map[string]any{}}
		for _, c := range t.Columns {
			j.Columns = append(j.Columns, c.Header())
		}
		for _, row := range t.Rows {
			m := make(map[string]any, len(row))
			for i, c := range row {
				v := c.Value
				if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
					v = nil
				}
				m[j.Columns[i]] = v
			}
			j.Rows = append(j.Rows, m)
		}
		out = append(out, j)
	}
	doc["tables"] = out
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
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
