package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForeignRefused: real output of PostgreSQL 15 and psql in French,
// German and Russian (testdata/foreign, written by its capture.sh) is
// refused by every parser that reads its kind, naming the line and the
// setting to change; before, the autovacuum log gave no records and no
// error, and psql's output lost every timing with warnings only.
func TestForeignRefused(t *testing.T) {
	type parser struct {
		name string
		run  func(f *os.File) error
		want string
	}
	psql := []parser{
		{"psql", func(f *os.File) error { _, _, err := Psql(f, f.Name()); return err }, "LC_ALL=C"},
		{"vacuum", func(f *os.File) error { _, _, err := Vacuum(f, f.Name()); return err }, "LC_ALL=C"},
	}
	logs := []parser{
		{"autovacuum", func(f *os.File) error { _, _, err := AutovacuumLog(f, f.Name()); return err }, "lc_messages = 'C'"},
	}
	files, _ := filepath.Glob("testdata/foreign/pg15-*")
	if len(files) != 6 {
		t.Fatalf("%d fixtures in testdata/foreign, want 6 (run its capture.sh)", len(files))
	}
	for _, file := range files {
		ps := psql
		if strings.HasSuffix(file, ".log") {
			ps = logs
		}
		lang := strings.SplitN(filepath.Base(file), "-", 2)[1][:2]
		for _, p := range ps {
			t.Run(filepath.Base(file)+"/"+p.name, func(t *testing.T) {
				f, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				err = p.run(f)
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("error %v, want a refusal", err)
				}
				if se.Line < 1 || !strings.Contains(se.Msg, "another language ("+lang+")") || !strings.Contains(se.Msg, p.want) {
					t.Errorf("line %d: %s; want a line, the language %s and %q", se.Line, se.Msg, lang, p.want)
				}
			})
		}
	}
}

// TestForeignCatalogue: every translated message of the catalogue, printed
// with values in its directives' places, is recognised, and none of the
// English messages is: the three languages of the fixtures are a sample of
// the thirteen the catalogue has.
func TestForeignCatalogue(t *testing.T) {
	langs := map[string]bool{}
	for _, m := range foreignCatalog {
		langs[m.lang] = true
		value := "12"
		if m.kind == "psql" {
			value = "2,052"
		}
		printed := printfVerb.ReplaceAllString(strings.TrimSuffix(m.msgstr, "\n"), value)
		english := printfVerb.ReplaceAllString(strings.TrimSuffix(m.msgid, "\n"), strings.ReplaceAll(value, ",", "."))
		switch m.kind {
		case "label":
			label := m.msgstr
			if !strings.Contains(label, ":") {
				label += ":  "
			}
			line := "2026-12-01 18:40:47.236 UTC [6127] " + label + "message"
			if _, ok := foreignServerLine(line); !ok {
				t.Errorf("%s label %q not recognised in %q", m.lang, m.msgstr, line)
			}
			if _, ok := foreignServerLine("2026-12-01 18:40:47.236 UTC [6127] " + strings.TrimSuffix(strings.TrimSpace(m.msgid), ":") + ":  message"); ok {
				t.Errorf("English label %q taken as foreign", m.msgid)
			}
		case "server":
			if _, ok := foreignServerLine(printed); !ok && len(printed) > 20 {
				t.Errorf("%s: %q not recognised", m.lang, printed)
			}
			if f, ok := foreignServerLine(english); ok {
				t.Errorf("English %q taken as %s (%q)", english, f.lang, f.msgstr)
			}
		case "psql":
			if _, ok := foreignPsqlLine(printed); !ok {
				t.Errorf("%s: psql %q not recognised", m.lang, printed)
			}
			if _, ok := foreignPsqlLine(english); ok {
				t.Errorf("English psql %q taken as foreign", english)
			}
		}
	}
	if len(langs) < 10 {
		t.Errorf("catalogue of %d languages, want the 13 of PostgreSQL 15's", len(langs))
	}
	if _, ok := foreignPsqlLine("Time: 2,052 ms"); !ok {
		t.Error("a Time: line with a decimal comma is read")
	}
}
