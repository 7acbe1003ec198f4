package vacuum

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// TestNotALogRefusedAtItsFirstLines: psql's output (a session, VACUUM
// VERBOSE as printed, with psql -f's "psql:FILE:N: " before its messages,
// or from its first INFO line on) is not a server log: an error naming its
// first line without a severity, found within its first lines however
// long the input (it read as a log of INFO messages: records without
// numbers, or none, and exit 0).
func TestNotALogRefusedAtItsFirstLines(t *testing.T) {
	var files []string
	for _, p := range []string{"testdata/verbose/*.psql.txt", "../psql/testdata/pg1?-session.txt", "../psql/testdata/capture-*-pg1?.txt"} {
		files = append(files, fixtures(t, p)...)
	}
	errLine := regexp.MustCompile(`^x:(\d+): expected a PostgreSQL server log \(.*\), found "`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs := map[string][]byte{"as printed": b}
		if i := bytes.Index(b, []byte("INFO:  ")); i >= 0 {
			inputs["from its first INFO"] = b[i:]
			inputs["psql -f"] = regexp.MustCompile(`(?m)^(INFO|DETAIL|WARNING|ERROR):  `).ReplaceAll(b, []byte("psql:run.sql:2: $1:  "))
		}
		for how, in := range inputs {
			const copies = 200000 // 100 MB and more
			r := parsetest.Repeat(in, copies)
			recs, _, err := Autovacuum(r, "x")
			m := errLine.FindStringSubmatch(fmt.Sprint(err))
			if m == nil || len(recs) > 0 {
				t.Errorf("%s, %s: %d records, error %v; want the error of an input that is not a log", filepath.Base(f), how, len(recs), err)
				continue
			}
			if n, _ := strconv.Atoi(m[1]); n < 1 || n > strings.Count(string(in), "\n") {
				t.Errorf("%s, %s: the error names line %s, past the input's first copy", filepath.Base(f), how, m[1])
			}
			if read := copies - r.Left(); read > copies/1000 {
				t.Errorf("%s, %s: %d copies read before the error; want it at the first lines", filepath.Base(f), how, read)
			}
		}
	}
}

// TestLogsStillLogs: a server log that starts with another program's line,
// or has a few among its first lines (archive_command's), and one without
// autovacuum entries, are logs: records and no error, or neither.
func TestLogsStillLogs(t *testing.T) {
	b, err := os.ReadFile("testdata/autovacuum/pg17-autovacuum.log")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Autovacuum(bytes.NewReader(b), "x")
	if err != nil || len(want) == 0 {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	stray := "cp: cannot stat '/archive/000000010000000000000001': No such file or directory\n"
	for name, in := range map[string]string{
		"a stray first line":     stray + string(b),
		"stray lines among them": strings.Join(lines[:3], "") + stray + strings.Join(lines[3:5], "") + stray + strings.Join(lines[5:], ""),
		"blank and tab lines":    "\n\t(a rotated log's first line continues a message)\n" + string(b),
		"no autovacuum in a log": strings.Join(lines[:5], ""),
	} {
		recs, _, err := Autovacuum(strings.NewReader(in), "x")
		if err != nil || name != "no autovacuum in a log" && len(recs) != len(want) || name == "no autovacuum in a log" && len(recs) != 0 {
			t.Errorf("%s: %d records, %v; want %d and no error", name, len(recs), err, len(want))
		}
	}
}
