package psql

import (
	"bytes"
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
