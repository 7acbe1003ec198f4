package pgstat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
)

// FuzzFields: a row is refused with a *SyntaxError naming its source, or
// read; what encoding/json reads as a flat object of numbers, strings,
// booleans and nulls is read, with the same numbers.
func FuzzFields(f *testing.F) {
	for _, s := range []string{io17, io18, wal, `{}`, `{"n":null}`, `{"a":"\"}"}`, `{"x":[{"y":1}]}`, `{"reads":"12"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, row string) {
		// Keys come as written; the reference decodes them, so they are
		// compared decoded (a later duplicate wins in both).
		got := map[string]Value{}
		err := fields(row, "fuzz", func(k string, v Value) {
			got[Value{raw: k, kind: '"', esc: true}.Text()] = v
		})
		if err != nil {
			var se *parse.SyntaxError
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Fatalf("error %v, want a *SyntaxError from fuzz", err)
			}
		}
		var ref map[string]any
		if !utf8.ValidString(row) || json.Unmarshal([]byte(row), &ref) != nil || ref == nil {
			return // encoding/json replaces invalid UTF-8, and reads null as no map
		}
		if err != nil {
			t.Fatalf("encoding/json reads %q, fields refuses it: %v", row, err)
		}
		for k, want := range ref {
			v, ok := got[k]
			if !ok {
				t.Fatalf("%q: key %q not read", row, k)
			}
			if n, isNum := want.(float64); isNum && v.Num().V != n {
				t.Fatalf("%q: %s = %v, want %v", row, k, v.Num().V, n)
			}
		}
	})
}
