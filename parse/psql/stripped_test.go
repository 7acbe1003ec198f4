package psql

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// trailingBlanks are the blanks at the end of a line that an editor, a
// terminal's copy and paste or git's whitespace fixes remove.
var trailingBlanks = regexp.MustCompile(`(?m)[ \t]+$`)

// TestTrailingBlanksStripped: psql pads every line of an aligned table to
// the table's width; output whose trailing blanks were stripped on its
// way into a post or a repository reads as the same statements, results
// and times as the output psql printed.
func TestTrailingBlanksStripped(t *testing.T) {
	dir := t.TempDir()
	for _, f := range fixtureFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, _, err := parseFixture(t, f)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			stripped := trailingBlanks.ReplaceAll(b, nil)
			if bytes.Equal(stripped, b) {
				t.Skip("no trailing blanks")
			}
			g := filepath.Join(dir, filepath.Base(f))
			if err := os.WriteFile(g, stripped, 0o644); err != nil {
				t.Fatal(err)
			}
			if stem, ok := strings.CutSuffix(f, ".stdout"); ok {
				errb, err := os.ReadFile(stem + ".stderr")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(strings.TrimSuffix(g, ".stdout")+".stderr", errb, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, _, err := parseFixture(t, g)
			if err != nil {
				t.Fatalf("trailing blanks stripped: %v", err)
			}
			trimOutput(want)
			trimOutput(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("trailing blanks stripped: %d statements, want %d", len(got.Statements), len(want.Statements))
				for k := range min(len(got.Statements), len(want.Statements)) {
					if !reflect.DeepEqual(got.Statements[k], want.Statements[k]) {
						t.Errorf("statement %d: got %+v\nwant %+v", k, got.Statements[k], want.Statements[k])
						break
					}
				}
			}
		})
	}
}

// trimOutput strips the trailing blanks of what holds whole lines as
// printed: lines in no table format, messages.
func trimOutput(o *Output) {
	for i := range o.Statements {
		st := &o.Statements[i]
		for j := range st.Results {
			for k, l := range st.Results[j].Lines {
				st.Results[j].Lines[k] = strings.TrimRight(l, " \t")
			}
		}
		for j := range st.Messages {
			st.Messages[j].Text = trailingBlanks.ReplaceAllString(st.Messages[j].Text, "")
		}
	}
}

// TestTableStyles: a table drawn with \pset border 0 or 2, or \pset
// linestyle unicode, is refused at its first line, naming the setting
// (its columns and rows would be misread, a Time: given to a phantom
// statement); back to border 1, or in unaligned format, tables read.
func TestTableStyles(t *testing.T) {
	const one = "select '' as only;\n"
	for _, tc := range []struct {
		name, in string
		line     int // of the refusal; 0: read
		setting  string
	}{
		{"border 0", "Border style is 0.\n" + one + "only \n----\n\n(1 row)\n\nTime: 0.033 ms\n", 3, `\pset border 0`},
		{"border 2", "Border style is 2.\n" + one + "+------+\n| only |\n+------+\n|      |\n+------+\n(1 row)\n\nTime: 0.034 ms\n", 3, `\pset border 2`},
		{"unicode", "Line style is unicode.\n" + one + " only \n──────\n \n(1 row)\n\nTime: 0.034 ms\n", 3, `\pset linestyle unicode`},
		{"border 2, then 1", "Border style is 2.\nBorder style is 1.\n" + one + " only \n------\n \n(1 row)\n\nTime: 0.034 ms\n", 0, ""},
		{"border 2, unaligned", "Border style is 2.\nOutput format is unaligned.\n" + one + "only\n\n(1 row)\nTime: 0.034 ms\n", 0, ""},
	} {
		out, _, err := Parse(strings.NewReader("Timing is on.\n"+tc.in), "in")
		switch {
		case tc.line == 0 && (err != nil || len(out.Statements) != 1 || out.Statements[0].TimeMs == nil):
			t.Errorf("%s: %v; want the statement and its time", tc.name, err)
		case tc.line > 0 && (err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("in:%d: a result drawn with %s,", tc.line+1, tc.setting))):
			t.Errorf("%s: %v; want a refusal at line %d naming %s", tc.name, err, tc.line+1, tc.setting)
		}
	}
}
