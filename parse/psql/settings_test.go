package psql

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestSettings: real psql output printed with \pset settings other than
// the defaults (testdata/capture.sh settings). Those whose values cannot
// be told from psql's own lines are refused at the line that made them,
// when psql answered it or echoed it (psql -a), else at the first row
// count, which no table read whole is above; unaligned values that read
// as psql's lines ("Time: 999.000 ms", "(3 rows)", "SET") and narrow
// wrapped values are read as psql printed them, each statement with the
// time of its own Time: line. Found by an outside tester.
func TestSettings(t *testing.T) {
	refused := map[string]struct {
		line int
		says string
	}{
		"csv-echo": {4, `with \pset format csv from here`}, "html-loud": {2, `with \pset format html from here`},
		"latex-echo": {4, `with \pset format latex from here`}, "asciidoc-loud": {2, `with \pset format asciidoc from here`},
		"troff-echo": {4, `with \pset format troff-ms from here`}, "tuples-echo": {4, `with \t (tuples only`},
		"tuples-loud": {2, `with \t (tuples only`}, "unaligned-nofooter": {5, `with \pset footer off in the unaligned format`},
		"unaligned-expanded":        {3, `with \x (expanded, without row counts)`},
		"unaligned-recordsep":       {3, `with \pset recordsep "#"`},
		"unaligned-quiet":           {5, `row count "(2 rows)" under a table this parser did not read whole`},
		"border0-quiet":             {6, `row count "(2 rows)" under a table this parser did not read whole`},
		"unaligned-lookalikes-loud": {6, `row count "(2 rows)" under an unaligned table whose statement psql did not echo`},
	}
	read := map[string][][][]string{
		"unaligned-lookalikes": {
			{{"Time: 999.000 ms"}, {"Time: 998.000 ms"}}, {{"ERROR:  x"}, {"select 1;"}}, {{"(3 rows)"}},
			{{"a"}, {"(1 row)"}, {"b"}}, {{"SET"}, {"INSERT 0 1"}}, {{"-[ RECORD 1 ]-"}}, {{"z"}}, {{"1"}},
		},
		"wrapped-narrow": {
			{{strings.Repeat("abcdefghij", 5), "42"}}, {{"", "Time: 997.000 ms"}}, {{"psql:x.sql:3: ERROR:  fake"}},
		},
	}
	files, err := filepath.Glob(filepath.Join("testdata", "styles", "capture-setting-*.txt"))
	if err != nil || len(files) != len(refused)+len(read) {
		t.Fatalf("%d setting fixtures (%v), want %d", len(files), err, len(refused)+len(read))
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "capture-setting-"), "-pg18.txt")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := Parse(strings.NewReader(string(b)), "in")
		if want, ok := refused[name]; ok {
			if err == nil || !strings.HasPrefix(err.Error(), "in:"+strconv.Itoa(want.line)+": ") || !strings.Contains(err.Error(), want.says) {
				t.Errorf("%s: %v; want a refusal at line %d saying %q", name, err, want.line, want.says)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkOwnTimes(t, name, b, out, read[name])
	}
}

// checkOwnTimes: the statements of out are want's results, each with its
// row count and the time its own Time: line in the input b printed.
func checkOwnTimes(t *testing.T, name string, b []byte, out *Output, want [][][]string) {
	t.Helper()
	lines := strings.Split(string(b), "\n")
	if len(out.Statements) != len(want) {
		t.Fatalf("%s: %d statements, want %d", name, len(out.Statements), len(want))
	}
	for k, st := range out.Statements {
		if len(st.Results) != 1 || st.Results[0].Table == nil {
			t.Errorf("%s: statement %d (%q): results %+v, want one table", name, k, st.SQL, st.Results)
			continue
		}
		tab := st.Results[0].Table
		if !reflect.DeepEqual(tab.Rows, want[k]) || tab.RowCount == nil || *tab.RowCount != len(want[k]) {
			t.Errorf("%s: statement %d (%q): rows %q, count %v; want %q", name, k, st.SQL, tab.Rows, tab.RowCount, want[k])
		}
		if st.TimeMs == nil || st.TimeLine == 0 || st.TimeLine > len(lines) {
			t.Errorf("%s: statement %d (%q): no time", name, k, st.SQL)
			continue
		}
		own, ok := parseTime(lines[st.TimeLine-1])
		if !ok || own.ms != *st.TimeMs || *st.TimeMs >= 990 {
			t.Errorf("%s: statement %d (%q): time %v from line %d (%q)", name, k, st.SQL, *st.TimeMs, st.TimeLine, lines[st.TimeLine-1])
		}
	}
}
