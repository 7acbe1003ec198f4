package gencapture

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The fixtures are real output (see fixtures/README.md): the plans are
// copies of parse/explain/testdata files, the pg_stat_io rows and pg_settings
// are what a fresh PostgreSQL 17.10 and 18.4 cluster printed.
//
//go:embed fixtures
var fixtures embed.FS

func fixture(name string) string {
	b, err := fixtures.ReadFile("fixtures/" + name)
	if err != nil {
		panic(fmt.Sprintf("gencapture: %v", err))
	}
	return string(b)
}

// planText is the EXPLAIN (FORMAT JSON) text of a test, as the collector
// stores it: the rows of the result's one column joined by newlines, so
// without psql's final newline.
func planText(t *testDef) string {
	return strings.TrimRight(fixture(t.plan), "\n")
}

// jfield is one key of a row_to_json object, in the server's order.
type jfield struct {
	key   string
	null  bool
	isStr bool
	str   string
	num   int64
}

// jrow is one row_to_json object.
type jrow []jfield

// parseRows reads one JSON object per line, keeping the keys in order.
func parseRows(text string) ([]jrow, error) {
	var rows []jrow
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, fmt.Errorf("not an object: %.40s", line)
		}
		var row jrow
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := dec.Token()
			if err != nil {
				return nil, err
			}
			f := jfield{key: k.(string)}
			switch x := v.(type) {
			case nil:
				f.null = true
			case string:
				f.isStr, f.str = true, x
			case json.Number:
				n, err := strconv.ParseInt(string(x), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", f.key, err)
				}
				f.num = n
			default:
				return nil, fmt.Errorf("%s: unexpected %v", f.key, v)
			}
			row = append(row, f)
		}
		if _, err := dec.Token(); err != nil && err != io.EOF {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// get returns the field called key, or nil.
func (r jrow) get(key string) *jfield {
	for i := range r {
		if r[i].key == key {
			return &r[i]
		}
	}
	return nil
}

// add adds n to a number field, leaving a null one null (the server
// prints null where a counter does not apply).
func (r jrow) add(key string, n int64) {
	if f := r.get(key); f != nil && !f.null && !f.isStr {
		f.num += n
	}
}

// appendJSON writes the row as row_to_json prints it: no spaces, keys in
// order.
func (r jrow) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, f := range r {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, f.key)
		b = append(b, ':')
		switch {
		case f.null:
			b = append(b, "null"...)
		case f.isStr:
			b = strconv.AppendQuote(b, f.str)
		default:
			b = strconv.AppendInt(b, f.num, 10)
		}
	}
	return append(b, '}')
}

func (r jrow) clone() jrow { return append(jrow(nil), r...) }

// settingRow is one row of pg_settings as collect reads it.
type settingRow struct {
	name, setting, unit, source, context, vartype, bootVal, resetVal string
	pending                                                          bool
}

func parseSettings(text string) ([]settingRow, error) {
	var rows []settingRow
	for i, line := range bytes.Split([]byte(strings.TrimRight(text, "\n")), []byte("\n")) {
		f := strings.Split(string(line), "\t")
		if len(f) != 9 {
			return nil, fmt.Errorf("settings line %d: %d fields, want 9", i+1, len(f))
		}
		rows = append(rows, settingRow{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8] == "t"})
	}
	return rows, nil
}
