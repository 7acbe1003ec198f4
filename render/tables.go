// Package render writes results for people: tables as Markdown, CSV and
// JSON, and (later) figures. It formats; it computes nothing.
package render

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
		case unicode.IsControl(r) || r == utf8.RuneError:
			// A terminal escape in a capture must not reach a terminal.
			b.WriteRune(utf8.RuneError)
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

// PlainText makes text from a capture safe on one line of a terminal: line
// breaks become spaces and other control characters (a terminal escape)
// U+FFFD, so that it can neither forge a line nor move the cursor.
func PlainText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r):
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
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

// JSON writes tables as one document: the extra keys (sorted), then
// "tables", each with its rows as objects keyed by column header, in column
// order: the same content as the CSV. It streams row by row, so a table of
// a million rows costs no more memory than one row.
func JSON(w io.Writer, tables []analyze.Table, extra map[string]any) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	ew := &errWriter{w: bw}
	ew.printf("{\n")
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := json.MarshalIndent(extra[k], "  ", "  ")
		if err != nil {
			return err
		}
		ew.printf("  %s: %s,\n", jsonString(k), v)
	}
	ew.printf("  \"tables\": [")
	var row []byte
	for ti, t := range tables {
		if ti > 0 {
			ew.printf(",")
		}
		headers := make([]string, len(t.Columns))
		quoted := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			headers[i] = c.Header()
			quoted[i] = jsonString(headers[i])
		}
		cols, _ := json.Marshal(headers)
		ew.printf("\n    {\n      \"name\": %s,\n      \"title\": %s,\n", jsonString(t.Name), jsonString(t.Title))
		if t.Note != "" {
			ew.printf("      \"note\": %s,\n", jsonString(t.Note))
		}
		ew.printf("      \"columns\": %s,\n      \"rows\": [", cols)
		for ri, r := range t.Rows {
			row = row[:0]
			if ri > 0 {
				row = append(row, ',')
			}
			row = append(row, "\n        {"...)
			for i, c := range r {
				if i > 0 {
					row = append(row, ", "...)
				}
				row = append(row, quoted[i]...)
				row = append(row, ": "...)
				row = appendJSONValue(row, c.Value)
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
	if len(tables) > 0 {
		ew.printf("\n  ")
	}
	ew.printf("]\n}\n")
	if ew.err != nil {
		return ew.err
	}
	return bw.Flush()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// appendJSONValue appends a cell's value as JSON: NaN and infinities,
// which JSON cannot hold, as null.
func appendJSONValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(b, "null"...)
		}
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return append(b, jsonString(x)...)
	}
	out, _ := json.Marshal(v)
	return append(b, out...)
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
