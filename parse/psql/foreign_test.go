package psql

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

// TestForeignRefused: real psql output in French, German and Russian is
// refused, naming the line and the setting to change; before, it lost
// every timing with warnings only.
func TestForeignRefused(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(foreignFixtures, "pg15-[a-z][a-z].*.psql.txt"))
	if len(files) != 3 {
		t.Fatalf("%d psql fixtures in %s, want 3 (run its capture.sh)", len(files), foreignFixtures)
	}
	for _, file := range files {
		lang := strings.SplitN(filepath.Base(file), "-", 2)[1][:2]
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, _, err = Parse(f, f.Name())
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a refusal", err)
			}
			if se.Line < 1 || !strings.Contains(se.Msg, "another language ("+lang+")") || !strings.Contains(se.Msg, "LC_ALL=C") {
				t.Errorf("line %d: %s; want a line, the language %s and %q", se.Line, se.Msg, lang, "LC_ALL=C")
			}
		})
	}
}

// TestForeignEdges: psql's row count footer in other languages (as psql 15
// prints it in es, it, ja, sv and ko with \timing off) is refused, not read
// as a row; English output that only looks foreign is read.
func TestForeignEdges(t *testing.T) {
	for _, footer := range []string{"(1 fila)", "(1 riga)", "(1 行)", "(1 rad)", "(1개 행)", "(3 Zeilen)"} {
		in := "select count(*) from t;\n count \n-------\n  6667\n" + footer + "\n\n"
		_, _, err := Parse(strings.NewReader(in), "in")
		var se *parse.SyntaxError
		if !errors.As(err, &se) || se.Line != 5 || !strings.Contains(se.Msg, "LC_ALL=C") {
			t.Errorf("footer %q: %v; want a refusal at line 5", footer, err)
		}
	}
	// English messages, numbers of another LC_NUMERIC: every time would
	// be lost. After a Time: line with a point, it is a user's value.
	// The same over a second, its clock's seconds with a comma too.
	for _, tl := range []string{"Time: 1,500 ms", "Time: 1103,360 ms (00:01,103)", "Time: 90061234,500 ms (1 d 01:01:01,235)"} {
		_, _, err := Parse(strings.NewReader("Timing is on.\nselect 1;\n ?column? \n----------\n        1\n(1 row)\n\n"+tl+"\n"), "in")
		var se *parse.SyntaxError
		if !errors.As(err, &se) || se.Line != 8 || !strings.Contains(se.Msg, "a decimal comma") || !strings.Contains(se.Msg, "LC_NUMERIC=C") {
			t.Errorf("%q: %v; want a refusal at line 8", tl, err)
		}
	}
	english := map[string]string{
		"-At Time after one with a point": "Timing is on.\nselect 1;\n?column?\n1\nTime: 0.412 ms\nselect 'Time: 1,500 ms';\nTime: 1,500 ms\nTime: 0.412 ms\n",
		// psql -At of a user's select, \timing on.
		"-At Latency":      "Timing is on.\nselect 'Latency: ' || round(12.3456,3) || ' ms';\nLatency: 12.346 ms\nTime: 0.412 ms\n",
		"-At Total":        "Timing is on.\nselect 'Total: ' || to_char(12345,'FM99,999') || ' rows';\nTotal: 12,345 rows\nTime: 0.412 ms\n",
		"-At French value": "Timing is on.\nselect v from t;\nDurée : 21,820 ms\n(2 Zeilen)\nTime: 0.500 ms\n",
		"table cells":      "select 'ERREUR:  x' as a;\n      a      \n-------------\n ERREUR:  x\n(1 row)\n\n",
	}
	for name, in := range english {
		if _, _, err := Parse(strings.NewReader(in), "in"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
