package psql

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
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
		"csv-echo": {7, `with \pset format csv (set on line 4)`}, "html-loud": {3, `with \pset format html (set on line 2)`},
		"latex-echo": {7, `with \pset format latex (set on line 4)`}, "asciidoc-loud": {5, `with \pset format asciidoc (set on line 2)`},
		"troff-echo": {7, `with \pset format troff-ms (set on line 4)`}, "tuples-echo": {7, `with \t (tuples only`},
		"tuples-loud": {3, `with \t (tuples only`}, "unaligned-nofooter": {8, `with \pset footer off in the unaligned format (set on line 5)`},
		"unaligned-expanded":        {4, `with \x (expanded, without row counts) in the unaligned format (set on line 3)`},
		"unaligned-recordsep":       {4, `with \pset recordsep "#" (set on line 3)`},
		"unaligned-quiet":           {5, `row count "(2 rows)" under a table this parser did not read whole`},
		"border0-quiet":             {6, `row count "(2 rows)" under a table this parser did not read whole`},
		"unaligned-lookalikes-loud": {6, `row count "(2 rows)" under an unaligned table whose statement psql did not echo`},
		"title-lookalike":           {6, `with \pset title "Time: 999.000 ms", which reads as one of psql's own lines (set on line 3)`},
		"latex-quiet":               {3, `printed with \pset format latex (set quietly: known by its shape)`},
	}
	lookalikes := [][][]string{
		{{"Time: 999.000 ms"}, {"Time: 998.000 ms"}}, {{"ERROR:  x"}, {"select 1;"}}, {{"(3 rows)"}},
		{{"a"}, {"(1 row)"}, {"b"}}, {{"SET"}, {"INSERT 0 1"}}, {{"-[ RECORD 1 ]-"}}, {{"z"}}, {{"1"}},
	}
	read := map[string][][][]string{
		"unaligned-lookalikes": lookalikes, "restored-csv": lookalikes, "restored-tuples": lookalikes, "restored-footer": lookalikes,
		"wrapped-narrow": {
			{{strings.Repeat("abcdefghij", 5), "42"}}, {{"", "Time: 997.000 ms"}}, {{"psql:x.sql:3: ERROR:  fake"}},
			{{strings.Repeat("ab ", 20) + "z"}},
		},
		"no-columns":        {{{}}, {{}, {}, {}}, {{"1"}}},
		"no-columns-noecho": {{{}}, {{}, {}, {}}, {{"1"}}},
		"echo-lookalikes":   {{{"1"}}},
		"fieldsep-wide":     {{{"1", "x"}}},
		"indented":          {{{"1"}}, {{"2"}}, {{"3"}}, {{"4"}}},
		"titles":            {{{"5"}}, {{"1"}}, {{"1"}}, {{strings.Repeat("x", 60)}}, {{"2"}}, {{"5"}}, {{"9"}}},
		"describe":          {{{"1"}}, {{"2"}}},
		"copy-lookalikes":   {{{"1"}}},
	}
	// The statements that print no table: COPY's data, kept as lines;
	// a command's tag.
	other := map[string][]string{"copy-lookalikes": {"Time: 999.000 ms", "SET", "(1 row)"}, "describe": {"CREATE TABLE"}}
	files, err := filepath.Glob(filepath.Join("testdata", "styles", "capture-setting-*.txt"))
	// Fixtures with tests of their own: no Time: lines to check.
	own := map[string]bool{"echo-none": true, "copy-untimed": true, "keyword-alone": true} // TestEchoNone, TestCopyUntimed, TestKeywordAlone
	if err != nil || len(files) != len(refused)+len(read)+len(own) {
		t.Fatalf("%d setting fixtures (%v), want %d", len(files), err, len(refused)+len(read)+len(own))
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "capture-setting-"), "-pg18.txt")
		if own[name] {
			continue
		}
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
		checkOwnTimes(t, name, b, out, read[name], other[name])
		if name == "titles" {
			checkTitles(t, out, "hello", "a title", "", "", "", "?column?", "unaligned_t")
		}
	}
}

// checkTitles: the tables of out's statements have these titles, in
// order: one wider than its table, which psql does not centre, and not a
// statement psql -a echoed with the blanks that centre it (both found by
// an outside tester).
func checkTitles(t *testing.T, out *Output, want ...string) {
	t.Helper()
	var got []string
	for _, st := range out.Statements {
		for _, r := range st.Results {
			if r.Table != nil {
				got = append(got, r.Table.Title)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("titles %q; want %q", got, want)
	}
}

// checkOwnTimes: the statements of out with SQL (not a meta-command's
// query's Time: line) are want's tables, after those of no table, whose
// result is the lines or the tag of other, each statement with its row
// count and the time its own Time: line in the input b printed.
func checkOwnTimes(t *testing.T, name string, b []byte, out *Output, want [][][]string, other []string) {
	t.Helper()
	lines := strings.Split(string(b), "\n")
	// Without psql's echo (-noecho) no statement has SQL.
	echo := !strings.HasSuffix(name, "-noecho")
	var sts []Statement
	for _, st := range out.Statements {
		if st.SQL != "" || !echo {
			sts = append(sts, st)
		}
	}
	// Of no SQL: only the Time: line of \gdesc's query (a known
	// weakness: a meta-command's time is read as a statement's).
	if noSQL, want := len(out.Statements)-len(sts), strings.Count(string(b), "\n\\gdesc\n"); echo && noSQL != want {
		t.Errorf("%s: %d statements without SQL, want %d", name, noSQL, want)
	}
	if len(sts) != len(want)+min(len(other), 1) {
		t.Fatalf("%s: %d statements, want %d", name, len(sts), len(want)+min(len(other), 1))
	}
	for k, st := range sts {
		if st.TimeMs == nil || st.TimeLine == 0 || st.TimeLine > len(lines) {
			t.Errorf("%s: statement %d (%q): no time", name, k, st.SQL)
		} else if own, ok := parseTime(lines[st.TimeLine-1]); !ok || own.ms != *st.TimeMs || *st.TimeMs >= 990 {
			t.Errorf("%s: statement %d (%q): time %v from line %d (%q)", name, k, st.SQL, *st.TimeMs, st.TimeLine, lines[st.TimeLine-1])
		}
		if len(st.Results) != 1 {
			t.Errorf("%s: statement %d (%q): results %+v, want one", name, k, st.SQL, st.Results)
			continue
		}
		if len(other) > 0 && k == 0 {
			if r := st.Results[0]; !reflect.DeepEqual(r.Lines, other) && !reflect.DeepEqual([]string{r.Tag}, other) {
				t.Errorf("%s: statement %d (%q): result %+v, want %q", name, k, st.SQL, r, other)
			}
			continue
		}
		w := want[k-min(len(other), 1)]
		tab := st.Results[0].Table
		if tab == nil || !reflect.DeepEqual(tab.Rows, w) || tab.RowCount == nil || *tab.RowCount != len(w) {
			t.Errorf("%s: statement %d (%q): table %+v; want rows %q", name, k, st.SQL, tab, w)
		}
	}
}

// TestEchoNone: after psql -a echoed \set ECHO none, the statements' output
// that follows, unechoed, is theirs, not the \set's: each a statement of
// its own, the failed one with its error, each with its own time.
func TestEchoNone(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "styles", "capture-setting-echo-none-pg18.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Parse(strings.NewReader(string(b)), "in")
	if err != nil || len(out.Statements) != 4 || len(out.Meta) != 2 {
		t.Fatalf("%v: %d statements, %d meta-commands; want 4 and 2", err, len(out.Statements), len(out.Meta))
	}
	if m := out.Meta[1]; m.Command != `\set ECHO none` || len(m.Output) != 0 {
		t.Errorf("meta %+v; want \\set ECHO none, with no output", m)
	}
	lines := strings.Split(string(b), "\n")
	for k, want := range []string{"1", "2", "", "3"} {
		st := out.Statements[k]
		if st.TimeMs == nil || lines[st.TimeLine-1] != "Time: "+strconv.FormatFloat(*st.TimeMs, 'f', 3, 64)+" ms" {
			t.Errorf("statement %d: time %v at line %d", k, st.TimeMs, st.TimeLine)
		}
		switch {
		case want == "" && (len(st.Messages) != 1 || st.Messages[0].Text != "division by zero"):
			t.Errorf("statement %d: messages %+v; want the division by zero", k, st.Messages)
		case want != "" && (len(st.Results) != 1 || st.Results[0].Table == nil || !reflect.DeepEqual(st.Results[0].Table.Rows, [][]string{{want}})):
			t.Errorf("statement %d: results %+v; want a row %q", k, st.Results, want)
		}
	}
}

// TestCopyUntimed: psql -a without \timing, COPY ... TO STDOUT between
// statements: its data ends where the next statement's echo starts (not
// at data that reads as a command tag, but at a statement whose first
// line is a tag's word alone, "SELECT"), and the statements after it are
// read as themselves (every one was read as the COPY's data; found by an
// outside tester). A COPY's error psql printed without the script's name
// (a script on standard input) stays a line of its data: the known
// weakness the README names; with the name it is the COPY's message.
func TestCopyUntimed(t *testing.T) {
	copyErr := "psql:c7.sql:4: ERROR:  division by zero"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"capture", golden.Text(t, "testdata/styles/capture-setting-copy-untimed-pg18.txt"), []string{
			"select 1 as a; => [[1]]", "copy (select g from generate_series(1, 3) g) to stdout; => 1,2,3",
			"select 2 as b; => [[2]]", "copy (select 'INSERT 0 1' union all select 'SET') to stdout; => INSERT 0 1,SET",
			"/* lead */ copy (select 'UPDATE 7') to stdout; => UPDATE 7",
			"copy (select 1 / (g - 3) from generate_series(1, 5) g) to stdout; => 0,-1,ERROR:  division by zero",
			"select 3 as c; => [[3]]", "copy (select 1) to stdout; => 1", "SELECT\n    4 AS d; => [[4]]",
			"VACUUM\n    pg_class; => VACUUM"}},
		{"error named", "copy (select 1/0) to stdout;\n" + copyErr + "\nselect 5 as e;\n e \n---\n 5\n(1 row)\n\n", []string{
			"copy (select 1/0) to stdout; => ERROR division by zero", "select 5 as e; => [[5]]"}},
	} {
		out, warns, err := Parse(strings.NewReader(tc.in), "in")
		if err != nil || len(warns) != 0 {
			t.Fatal(tc.name, err, warns)
		}
		if got := resultsOf(out, false); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: statements\n%q; want\n%q", tc.name, got, tc.want)
		}
	}
}

// resultsOf is each result and message of out's statements as
// "SQL => value": a table's rows, a result's lines and tag, a message's
// severity and text; without those of no SQL when withSQL.
func resultsOf(out *Output, withSQL bool) []string {
	var got []string
	for _, st := range out.Statements {
		if withSQL && st.SQL == "" {
			continue
		}
		for _, r := range st.Results {
			v := strings.Join(r.Lines, ",") + r.Tag
			if r.Table != nil {
				v = fmt.Sprint(r.Table.Rows)
			}
			got = append(got, st.SQL+" => "+v)
		}
		for _, m := range st.Messages {
			got = append(got, st.SQL+" => "+m.Severity+" "+m.Text)
		}
	}
	return got
}

// TestKeywordAlone: statements psql -a echoed with their first word alone
// on its line ("UPDATE", "INSERT INTO", "EXPLAIN", "SELECT" before a
// comment, "VACUUM"), as a command tag would be: each is one statement
// with its SQL, result and time, and no tag is made up of its first line
// (psql prints SELECT, INSERT, UPDATE with their counts; found by an
// outside tester).
func TestKeywordAlone(t *testing.T) {
	in := golden.Text(t, "testdata/styles/capture-setting-keyword-alone-pg18.txt")
	out, warns, err := Parse(strings.NewReader(in), "in")
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	want := []string{"create temp table t (a int); => CREATE TABLE", "INSERT INTO\n    t\nVALUES (1), (2); => INSERT 0 2",
		"UPDATE\n    t\nSET a = a + 1; => UPDATE 2",
		"EXPLAIN\nSELECT * FROM t; => [[Seq Scan on t  (cost=0.00..35.50 rows=2550 width=4)]]",
		"SELECT\n    -- a comment\n    a\nFROM t; => [[2] [3]]", "VACUUM\n    t; => VACUUM"}
	if got := resultsOf(out, false); !reflect.DeepEqual(got, want) {
		t.Errorf("statements\n%q; want\n%q", got, want)
	}
	for _, st := range out.Statements {
		if st.TimeMs == nil {
			t.Errorf("%q: no time", st.SQL)
		}
	}
}
