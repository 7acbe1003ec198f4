package vacuum

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// foreignFixtures is real output of PostgreSQL 15 and psql in French,
// German and Russian, written by its capture.sh.
const foreignFixtures = "../internal/foreign/testdata"

// TestForeignRefused: real VACUUM VERBOSE output and server logs in
// French, German and Russian are refused, naming the line and the setting
// to change; before, the autovacuum log gave no records and no error.
func TestForeignRefused(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(foreignFixtures, "pg15-[a-z][a-z].*"))
	if len(files) != 6 {
		t.Fatalf("%d fixtures in %s, want 6 (run its capture.sh)", len(files), foreignFixtures)
	}
	for _, file := range files {
		run, want := func(f *os.File) error { _, _, err := Parse(f, f.Name()); return err }, "LC_ALL=C"
		if strings.HasSuffix(file, ".log") {
			run, want = func(f *os.File) error { _, _, err := Autovacuum(f, f.Name()); return err }, "lc_messages = 'C'"
		}
		lang := strings.SplitN(filepath.Base(file), "-", 2)[1][:2]
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = run(f)
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a refusal", err)
			}
			if se.Line < 1 || !strings.Contains(se.Msg, "another language ("+lang+")") || !strings.Contains(se.Msg, want) {
				t.Errorf("line %d: %s; want a line, the language %s and %q", se.Line, se.Msg, lang, want)
			}
		})
	}
}

// TestForeignEnglishLog: an English server log whose users write French or
// Italian is read.
func TestForeignEnglishLog(t *testing.T) {
	log := `2026-12-01 18:40:47.236 UTC [6127] LOG:  ERREUR: import terminé
2026-12-01 18:40:47.237 UTC [6127] CONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE
2026-12-01 18:40:47.300 UTC [6128] LOG:  statement: select 'vacuum automatico della tabella "x"'
2026-12-01 18:40:48.158 UTC [6135] LOG:  automatic vacuum of table "postgres.public.t": index scans: 1
	pages: 0 removed, 45 remain, 45 scanned (100.00% of total)
`
	recs, _, err := Autovacuum(strings.NewReader(log), "log")
	if err != nil || len(recs) != 1 {
		t.Errorf("English log with a user's French and Italian: %d records, %v", len(recs), err)
	}
}

// TestForeignLogFormats: real csvlog and jsonlog of PostgreSQL 15 in
// French and German are refused as the stderr log is, naming the line
// and lc_messages (testdata/logformats/capture-foreign.sh).
func TestForeignLogFormats(t *testing.T) {
	for _, tc := range []struct {
		file string
		line int
		text string // in the refusal
	}{
		{"foreign-fr.csv", 6, `"2026-12-04 20:19:11.411 UTC [5626] LOG:  VACUUM automatique de la table`},
		{"foreign-fr.json", 6, `"2026-12-04 20:19:11.411 UTC [5626] LOG:  VACUUM automatique de la table`},
		{"foreign-de.csv", 6, `"2026-12-04 20:19:16.654 UTC [5756] LOG:  automatisches Vacuum der Tabelle`},
		{"foreign-de.json", 6, `"2026-12-04 20:19:16.654 UTC [5756] LOG:  automatisches Vacuum der Tabelle`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "logformats", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			recs, _, err := Autovacuum(f, tc.file)
			var se *parse.SyntaxError
			if !errors.As(err, &se) || recs != nil {
				t.Fatalf("%d records, error %v; want a refusal", len(recs), err)
			}
			lang := tc.file[len("foreign-") : len("foreign-")+2]
			if se.Line != tc.line || !strings.Contains(se.Msg, "another language ("+lang+")") ||
				!strings.Contains(se.Msg, "lc_messages = 'C'") || !strings.Contains(se.Msg, tc.text) {
				t.Errorf("%s; want line %d, the language %s, lc_messages = 'C' and %s", se, tc.line, lang, tc.text)
			}
		})
	}
}

// TestForeignSyslog: the real French and German stderr logs as syslog
// and journald would print them are refused as the stderr logs are.
func TestForeignSyslog(t *testing.T) {
	for _, lang := range []string{"fr", "de"} {
		b, err := os.ReadFile(filepath.Join(foreignFixtures, "pg15-"+lang+".autovacuum.log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, head := range []string{"Dec  4 10:00:01 db1 postgres[77]: ", "2026-12-04T10:00:01+0000 db1 postgres[77]: "} {
			var in strings.Builder
			for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				in.WriteString(head + strings.ReplaceAll(l, "\t", "#011") + "\n")
			}
			_, _, err := Autovacuum(strings.NewReader(in.String()), "x")
			var se *parse.SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || !strings.Contains(se.Msg, "another language ("+lang+")") || !strings.Contains(se.Msg, "lc_messages = 'C'") {
				t.Errorf("%s, %q: %v; want a refusal naming the line, %s and lc_messages", lang, head, err, lang)
			}
		}
	}
}
