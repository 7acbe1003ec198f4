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
	files, _ := filepath.Glob("testdata/foreign/pg15-[a-z][a-z].*")
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

// TestForeignEdges: psql's row count footer in other languages (as psql 15
// prints it in es, it, ja, sv and ko with \timing off) is refused, not read
// as a row; English output that only looks foreign is read.
func TestForeignEdges(t *testing.T) {
	for _, footer := range []string{"(1 fila)", "(1 riga)", "(1 行)", "(1 rad)", "(1개 행)", "(3 Zeilen)"} {
		in := "select count(*) from t;\n count \n-------\n  6667\n" + footer + "\n\n"
		_, _, err := Psql(strings.NewReader(in), "in")
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != 5 || !strings.Contains(se.Msg, "LC_ALL=C") {
			t.Errorf("footer %q: %v; want a refusal at line 5", footer, err)
		}
	}
	english := map[string]string{
		// psql -At of a user's select, \timing on.
		"-At Latency":      "Timing is on.\nselect 'Latency: ' || round(12.3456,3) || ' ms';\nLatency: 12.346 ms\nTime: 0.412 ms\n",
		"-At Total":        "Timing is on.\nselect 'Total: ' || to_char(12345,'FM99,999') || ' rows';\nTotal: 12,345 rows\nTime: 0.412 ms\n",
		"-At French value": "Timing is on.\nselect v from t;\nDurée : 21,820 ms\n(2 Zeilen)\nTime: 0.500 ms\n",
		"table cells":      "select 'ERREUR:  x' as a;\n      a      \n-------------\n ERREUR:  x\n(1 row)\n\n",
	}
	for name, in := range english {
		if _, _, err := Psql(strings.NewReader(in), "in"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An English server log whose users write French or Italian.
	log := `2026-12-01 18:40:47.236 UTC [6127] LOG:  ERREUR: import terminé
2026-12-01 18:40:47.237 UTC [6127] CONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE
2026-12-01 18:40:47.300 UTC [6128] LOG:  statement: select 'vacuum automatico della tabella "x"'
2026-12-01 18:40:48.158 UTC [6135] LOG:  automatic vacuum of table "postgres.public.t": index scans: 1
	pages: 0 removed, 45 remain, 45 scanned (100.00% of total)
`
	recs, _, err := AutovacuumLog(strings.NewReader(log), "log")
	if err != nil || len(recs) != 1 {
		t.Errorf("English log with a user's French and Italian: %d records, %v", len(recs), err)
	}
}
