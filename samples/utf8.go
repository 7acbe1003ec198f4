package samples

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Every string a capture holds is valid UTF-8: Parquet's string type says
// so, and DuckDB refuses a part that breaks it. What a server, a client or
// a shell printed may not be (a server log in LATIN1, a psql session with
// client_encoding WIN1252, binary on a step's output), so before a part is
// written each invalid value is stored with U+FFFD in place of its invalid
// bytes and kept whole in raw_bytes: raw output is not lost, and every
// capture reads.

// validText returns rows, or a copy of them when a string value of one of
// t's columns is not valid UTF-8, with those values made valid, and a
// RawBytes row with the original (through redact) for each.
func (t *Table) validText(rows reflect.Value, redact func(string) string) (reflect.Value, []RawBytes) {
	var raws []RawBytes
	copied := false
	for ci, c := range t.cols {
		if c.kind != kindString || ci == t.captureID {
			continue
		}
		for i := range rows.Len() {
			f := rows.Index(i).Field(c.field)
			if c.nullable {
				if f.IsNil() {
					continue
				}
				f = f.Elem()
			}
			s := f.String()
			if utf8.ValidString(s) {
				continue
			}
			if !copied {
				rows = copyRows(rows)
				copied = true
			}
			raw := RawBytes{Table: t.Name, Column: c.name, Row: int64(i), Base64: base64.StdEncoding.EncodeToString([]byte(redact(s)))}
			if t.runID >= 0 {
				raw.RunID = rows.Index(i).Field(t.cols[t.runID].field).Int()
			}
			raws = append(raws, raw)
			valid := strings.ToValidUTF8(s, "\uFFFD")
			if c.nullable {
				// A new pointer: the caller's value stays as it was.
				p := reflect.New(f.Type())
				p.Elem().SetString(valid)
				rows.Index(i).Field(c.field).Set(p)
			} else {
				rows.Index(i).Field(c.field).SetString(valid)
			}
		}
	}
	return rows, raws
}

// copyRows copies a slice of rows, so that the caller's are not changed.
func copyRows(rows reflect.Value) reflect.Value {
	c := reflect.MakeSlice(rows.Type(), rows.Len(), rows.Len())
	reflect.Copy(c, rows)
	return c
}

// notReplaced is the note a writer gives once per table and column whose
// values it made valid.
func notReplaced(what string, r RawBytes) string {
	return fmt.Sprintf("%s: %s.%s held bytes that are not UTF-8 (a server or a client in another encoding?): stored with U+FFFD in their place, the original bytes in raw_bytes", what, r.Table, r.Column)
}
