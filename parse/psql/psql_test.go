package psql

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// goldenOutput is what a psql fixture's golden file holds.
type goldenOutput struct {
	Output   *Output         `json:"output"`
	Warnings []parse.Warning `json:"warnings"`
}

// parseFixture parses one fixture: NAME.stdout with NAME.stderr beside it
// through Streams, anything else through Parse. The source is named as
// the fixture was when its golden file was written (testdata/psql/NAME),
// so that the goldens did not change when the fixtures moved.
func parseFixture(t testing.TB, f string) (*Output, []parse.Warning, error) {
	t.Helper()
	source := filepath.Join("testdata", "psql", filepath.Base(f))
	if stem, ok := strings.CutSuffix(f, ".stdout"); ok {
		out, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		errf, err := os.Open(stem + ".stderr")
		if err != nil {
			t.Fatal(err)
		}
		defer errf.Close()
		return Streams(out, errf, strings.TrimSuffix(source, ".stdout"))
	}
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	return Parse(in, source)
}

// fixtureFiles lists the fixtures to parse (a .stderr goes with its
// .stdout).
func fixtureFiles(t testing.TB) []string {
	var out []string
	for _, f := range golden.Files(t, "", "*") {
		if !strings.HasSuffix(f, ".stderr") {
			out = append(out, f)
		}
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, f := range fixtureFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out, warns, err := parseFixture(t, f)
			if err != nil {
				t.Fatal(err)
			}
			checkPsqlInvariants(t, f, out)
			if warns == nil {
				warns = []parse.Warning{}
			}
			golden.Check(t, f, goldenOutput{Output: out, Warnings: warns})
		})
	}
}

// checkPsqlInvariants checks what must hold of any output: statements in
// order, each range inside the input and apart from the others, results
// and its Time: line inside its range, durations not negative.
func checkPsqlInvariants(t testing.TB, name string, out *Output) {
	t.Helper()
	prev := 0
	for k, st := range out.Statements {
		if st.Line < 1 || st.EndLine < st.Line || st.Line <= prev {
			t.Fatalf("%s: statement %d: lines %d-%d after a statement ending on line %d", name, k, st.Line, st.EndLine, prev)
		}
		prev = st.EndLine
		if st.SQL != "" && (st.SQLLine < 1 || st.SQLLine > st.Line) {
			t.Fatalf("%s: statement %d: SQL on line %d, statement on %d", name, k, st.SQLLine, st.Line)
		}
		if st.TimeMs != nil && (*st.TimeMs < 0 || st.TimeLine < st.Line || st.TimeLine > st.EndLine) {
			t.Fatalf("%s: statement %d: time %v on line %d, outside %d-%d", name, k, *st.TimeMs, st.TimeLine, st.Line, st.EndLine)
		}
		for _, r := range st.Results {
			if r.Line < st.Line || r.EndLine > st.EndLine || r.EndLine < r.Line {
				t.Fatalf("%s: statement %d (lines %d-%d): result on lines %d-%d", name, k, st.Line, st.EndLine, r.Line, r.EndLine)
			}
		}
		for _, m := range st.Messages {
			if m.Stream == "" && (m.Line < st.Line || m.EndLine > st.EndLine) {
				t.Fatalf("%s: statement %d (lines %d-%d): message on lines %d-%d", name, k, st.Line, st.EndLine, m.Line, m.EndLine)
			}
		}
	}
}

// readFixture reads a fixture of testdata/psql.
func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestErrors(t *testing.T) {
	// EXPLAIN (FORMAT JSON) as psql -At prints it.
	explain := `[
  {
    "Plan": {
      "Node Type": "Seq Scan",
      "Parallel Aware": false,
      "Relation Name": "pgbench_accounts",
      "Startup Cost": 0.00,
      "Total Cost": 2640.00,
      "Plan Rows": 100000,
      "Plan Width": 97
    }
  }
]
`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "in: empty input; expected psql output"},
		{"blank", "\n  \n", "in: empty input; expected psql output"},
		{"binary", "SET\nTime: 1.0 ms\nab\x00cd\n", "in:3: binary data (a NUL byte); expected text"},
		{"diskstats", "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n 254       0 vda 781169 260613 387009922\n",
			`in:1: no psql output: expected a command tag, a result table, a Time: line or a server message after the statements, found "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"`},
		{"explain json", explain,
			`in:1: no psql output: expected a command tag, a result table, a Time: line or a server message after the statements, found "["`},
		{"a script", "\\set aid random(1, 100000 * :scale)\nBEGIN;\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\nEND;\n",
			`in:1: no psql output: expected a command tag, a result table, a Time: line or a server message after the statements, found "\\set aid random(1, 100000 * :scale)"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := Parse(strings.NewReader(tc.in), "in")
			if err == nil {
				t.Fatalf("no error; got %+v", out)
			}
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T, want *SyntaxError: %v", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

func TestStreamsErrors(t *testing.T) {
	_, _, err := Streams(strings.NewReader(""), strings.NewReader("\n"), "run/3")
	if err == nil || err.Error() != "run/3: empty stdout and stderr; expected psql output" {
		t.Errorf("empty streams: %v", err)
	}
	_, _, err = Streams(strings.NewReader("   8  0 sda 1 2 3\n"), strings.NewReader(""), "run/3")
	if err == nil || !strings.HasPrefix(err.Error(), "run/3:stdout:1: no psql output") {
		t.Errorf("diskstats on stdout: %v", err)
	}
	_, _, err = Streams(strings.NewReader("SET\n"), strings.NewReader("x\x00"), "run/3")
	if err == nil || err.Error() != "run/3:stderr:1: binary data (a NUL byte); expected text" {
		t.Errorf("binary stderr: %v", err)
	}
}

func mustParse(t *testing.T, in string) (*Output, []parse.Warning) {
	t.Helper()
	out, warns, err := Parse(strings.NewReader(in), "in")
	if err != nil {
		t.Fatal(err)
	}
	checkPsqlInvariants(t, "in", out)
	return out, warns
}

func summary(out *Output) []string {
	var s []string
	for _, st := range out.Statements {
		line := strconv.Itoa(st.Line) + "-" + strconv.Itoa(st.EndLine) + " "
		if st.Hidden {
			line += "hidden "
		}
		line += strconv.Quote(st.SQL)
		for _, m := range st.Messages {
			line += " " + m.Severity + "=" + strconv.Quote(m.Text)
		}
		for _, r := range st.Results {
			switch {
			case r.Tag != "":
				line += " tag=" + r.Tag
			case r.Table != nil:
				line += " " + r.Table.Format + "=" + strconv.Itoa(len(r.Table.Rows))
			default:
				line += " lines=" + strconv.Itoa(len(r.Lines))
			}
		}
		if st.TimeMs != nil {
			line += " time=" + strconv.FormatFloat(*st.TimeMs, 'f', -1, 64)
		}
		s = append(s, line)
	}
	return s
}

func checkPsqlSummary(t *testing.T, out *Output, want ...string) {
	t.Helper()
	got := summary(out)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("statements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// psql -a echoes "select 1; select 2;" once; each statement has its own
// table and Time: line.
func TestMultiStatementLine(t *testing.T) {
	out, warns := mustParse(t, `\timing on
Timing is on.
select 1; select 2;
 ?column? 
----------
        1
(1 row)

Time: 0.227 ms
 ?column? 
----------
        2
(1 row)

Time: 0.039 ms
`)
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	checkPsqlSummary(t, out,
		`3-9 "select 1;" aligned=1 time=0.227`,
		`10-15 "select 2;" aligned=1 time=0.039`)
	if s := out.Statements[1]; s.SQLLine != 3 {
		t.Errorf("second statement's SQL on line %d, want 3", s.SQLLine)
	}
	// psql -e echoes each statement of the line on its own.
	out, _ = mustParse(t, "select 1;\nSET\nTime: 0.5 ms\nselect 2;\nSET\nTime: 0.25 ms\n")
	checkPsqlSummary(t, out, `1-3 "select 1;" tag=SET time=0.5`, `4-6 "select 2;" tag=SET time=0.25`)
	// One query, two results ("select 1 \; select 2"): one Time: line.
	out, _ = mustParse(t, "select 1 as one ; select 2 as two;\n one \n-----\n   1\n(1 row)\n\n two \n-----\n   2\n(1 row)\n\nTime: 0.188 ms\n")
	checkPsqlSummary(t, out, `1-12 "select 1 as one ; select 2 as two;" aligned=1 aligned=1 time=0.188`)
}

func TestLongTiming(t *testing.T) {
	for _, tc := range []struct {
		line string
		ms   float64
		warn bool
	}{
		{"Time: 61234.567 ms (01:01.235)", 61234.567, false},
		{"Time: 1203.196 ms (00:01.203)", 1203.196, false},
		{"Time: 3723004.500 ms (01:02:03.005)", 3723004.5, false},
		{"Time: 90061001.000 ms (1 d 01:01:01.001)", 90061001, false},
		{"Time: 59999.9996 ms (01:00.000)", 59999.9996, false},
		{"Time: 61234.567 ms (01:02.235)", 61234.567, true},
		{"Time: 0.000 ms", 0, false},
	} {
		out, warns := mustParse(t, "select pg_sleep(61);\n pg_sleep \n----------\n \n(1 row)\n\n"+tc.line+"\n")
		st := out.Statements[0]
		if st.TimeMs == nil || *st.TimeMs != tc.ms || st.TimeLine != 7 {
			t.Errorf("%s: time %v on line %d, want %v on line 7", tc.line, st.TimeMs, st.TimeLine, tc.ms)
		}
		if got := len(warns) > 0; got != tc.warn {
			t.Errorf("%s: warnings %v, want a warning: %v", tc.line, warns, tc.warn)
		}
	}
	out, _ := mustParse(t, readFixture(t, "pg17-long-timing.txt"))
	if st := out.Statements[0]; st.TimeMs == nil || *st.TimeMs < 60000 || *st.TimeMs > 62000 {
		t.Errorf("pg17-long-timing.txt: time %v, want 61xxx ms", st.TimeMs)
	}
}

// The collector's capture: stdout and stderr apart.
func TestStreamsCollector(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tag      string
		messages []string
	}{
		{"capture-collector-vacuum-pg17", "VACUUM", []string{"INFO", "INFO"}},
		{"capture-collector-vacuum-pg18", "VACUUM", []string{"INFO", "INFO"}},
		{"capture-collector-select-pg18", "", nil},
		{"capture-collector-error-pg18", "", []string{"ERROR"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, warns, err := Streams(strings.NewReader(readFixture(t, tc.name+".stdout")), strings.NewReader(readFixture(t, tc.name+".stderr")), tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			last := out.Statements[len(out.Statements)-1]
			if last.Tag() != tc.tag || last.TimeMs == nil {
				t.Errorf("timed statement %q: tag %q, time %v; want tag %q and a time", last.SQL, last.Tag(), last.TimeMs, tc.tag)
			}
			var sev []string
			for _, m := range last.Messages {
				sev = append(sev, m.Severity)
				if m.Stream != "stderr" {
					t.Errorf("message %q: stream %q", m.Text, m.Stream)
				}
			}
			if strings.Join(sev, ",") != strings.Join(tc.messages, ",") {
				t.Errorf("timed statement's messages %v, want %v", sev, tc.messages)
			}
			for _, st := range out.Statements[:len(out.Statements)-1] {
				if !strings.HasPrefix(st.SQL, `SET "`) || st.Tag() != "SET" || len(st.Messages) > 0 {
					t.Errorf("statement before the timed one: %+v", st)
				}
			}
			if (last.Err() != nil) != (tc.name == "capture-collector-error-pg18") {
				t.Errorf("error: %v", last.Err())
			}
		})
	}
	// Notices before an error go with it; an error goes to the statement
	// that printed no result; psql's own messages to no statement.
	out, _, err := Streams(strings.NewReader("SET\nTime: 1.0 ms\nselect f();\nTime: 2.0 ms\n"),
		strings.NewReader("NOTICE:  starting\nsecond line\nERROR:  boom\nCONTEXT:  PL/pgSQL function f() line 3 at RAISE\nconnection to server was lost\n"), "run")
	if err != nil {
		t.Fatal(err)
	}
	checkPsqlSummary(t, out, `1-2 "" tag=SET time=1`, `3-4 "select f();" NOTICE="starting\nsecond line" ERROR="boom" time=2`)
	if len(out.Messages) != 1 || out.Messages[0].Text != "connection to server was lost" || out.Messages[0].Line != 5 {
		t.Errorf("psql's messages: %+v", out.Messages)
	}
	// psql could not connect: only stderr.
	out, _, err = Streams(strings.NewReader(""), strings.NewReader("psql: error: connection to server on socket \"x\" failed: No such file or directory\n\tIs the server running locally and accepting connections on that socket?\n"), "run")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Statements) != 0 || len(out.Messages) != 1 || out.Messages[0].Severity != "error" || out.Messages[0].EndLine != 2 {
		t.Errorf("connection failure: %+v", out)
	}
}

func TestCases(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
		warns    int
	}{
		{"no echo", "SET\nTime: 0.5 ms\nNOTICE:  hi\nDO\nTime: 1.5 ms\n (1 row)\n",
			[]string{`1-2 "" tag=SET time=0.5`, `3-5 "" NOTICE="hi" tag=DO time=1.5`}, 1},
		{"no timing", "select 1/0;\nERROR:  division by zero\nselect 2;\nSET\nset a = 1;\nSET\n",
			[]string{`1-2 "select 1/0;" ERROR="division by zero"`, `3-4 "select 2;" tag=SET`, `5-6 "set a = 1;" tag=SET`}, 0},
		{"no timing, notices", "SET\nSET\nWARNING:  there is no transaction in progress\nCOMMIT\n",
			[]string{`1-1 "" tag=SET`, `2-2 "" tag=SET`, `3-4 "" WARNING="there is no transaction in progress" tag=COMMIT`}, 0},
		{"echo cut short by \\g", "select 1 \n ?column? \n----------\n        1\n(1 row)\n\nvacuum t \nVACUUM\nTime: 3.0 ms\n",
			[]string{`1-6 "select 1" aligned=1`, `7-9 "vacuum t" tag=VACUUM time=3`}, 0},
		{"dollar quotes", "do $$\nbegin\n  raise notice 'a;';\nend $$;\nNOTICE:  a;\nDO\n",
			[]string{`1-6 "do $$\nbegin\n  raise notice 'a;';\nend $$;" NOTICE="a;" tag=DO`}, 0},
		{"quotes and comments", "select 'x;' as \"y;\" /* ; */ -- ;\n, E'\\';' as z;\nSET\n",
			[]string{`1-3 "select 'x;' as \"y;\" /* ; */ -- ;\n, E'\\';' as z;" tag=SET`}, 0},
		{"a line like a tag inside a statement", "insert into t values (1) on conflict (a)\nDO\nnothing;\nINSERT 0 0\n",
			[]string{`1-4 "insert into t values (1) on conflict (a)\nDO\nnothing;" tag=INSERT 0 0`}, 0},
		{"vacuum continuation lines", "vacuum (verbose) t;\nINFO:  finished vacuuming \"db.public.t\": index scans: 0\ntable \"t\": index scan bypassed: 1 pages from table (1.00% of total) have 5 dead item identifiers\nselect is not a statement here\nVACUUM\n",
			[]string{`1-5 "vacuum (verbose) t;" INFO="finished vacuuming \"db.public.t\": index scans: 0\ntable \"t\": index scan bypassed: 1 pages from table (1.00% of total) have 5 dead item identifiers\nselect is not a statement here" tag=VACUUM`}, 0},
		{"unaligned after a notice", "select f();\nNOTICE:  hi\nf\nx\n(1 row)\nTime: 1.0 ms\n",
			[]string{`1-6 "select f();" NOTICE="hi" unaligned=1 time=1`}, 0},
		{"tuples only", "select 1;\n1\nselect 2;\n2\n\n",
			[]string{`1-2 "select 1;" lines=1`, `3-4 "select 2;" lines=1`}, 0},
		{"empty expanded", "Expanded display is on.\nselect 1 where false;\n(0 rows)\n\nTime: 0.04 ms\n",
			[]string{`2-5 "select 1 where false;" expanded=0 time=0.04`}, 0},
		{"crlf", "select 1;\r\n a \r\n---\r\n 1\r\n(1 row)\r\n\r\nTime: 1.5 ms\r\nERROR:  x\r\nDETAIL:  y\r\nz\r\n",
			[]string{`1-7 "select 1;" aligned=1 time=1.5`, `8-10 "" ERROR="x"`}, 0},
		{"shell output in psql -e", "SET\nTime: 1.0 ms\n   8       0 sda 1 2 3\n   8       1 sda1 1 2 3\nselect 1;\nSET\nTime: 2.0 ms\n",
			[]string{`1-2 "" tag=SET time=1`, `5-7 "select 1;" tag=SET time=2`}, 2},
		{"echo hidden", "Timing is on.\n********* QUERY **********\nSELECT n.nspname AS \"Name\"\nFROM pg_catalog.pg_namespace n\nORDER BY 1;\n**************************\n\n  List of schemas\n  Name  |  Owner   \n--------+----------\n public | postgres\n(1 row)\n\n",
			[]string{`3-13 hidden "SELECT n.nspname AS \"Name\"\nFROM pg_catalog.pg_namespace n\nORDER BY 1;" aligned=1`}, 0},
		{"psql's own errors", "psql:x.sql:3: error: invalid command \\foo\nselect 1;\npsql:x.sql:4: ERROR:  syntax error at or near \"x\"\nLINE 1: select x y;\n                 ^\npsql:x.sql:4: STATEMENT:  select x y;\n",
			[]string{`2-6 "select 1;" ERROR="syntax error at or near \"x\""`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, warns := mustParse(t, tc.in)
			checkPsqlSummary(t, out, tc.want...)
			if len(warns) != tc.warns {
				t.Errorf("%d warnings, want %d: %v", len(warns), tc.warns, warns)
			}
		})
	}
}

func TestMessageFields(t *testing.T) {
	out, _ := mustParse(t, `select f();
psql:t3.sql:11: ERROR:  42703: column "nosuchcol" does not exist
LINE 1: SELECT '日本', nosuchcol from pg_class
                       ^
QUERY:  SELECT '日本', nosuchcol from pg_class
CONTEXT:  PL/pgSQL function f() line 3 at PERFORM
SQL statement "select f()"
LOCATION:  errorMissingColumn, parse_relation.c:3827
Time: 1.0 ms
`)
	m := out.Statements[0].Err()
	if m == nil {
		t.Fatal("no error")
	}
	want := Message{Line: 2, EndLine: 8, File: "t3.sql", InputLine: 11, Severity: "ERROR", SQLState: "42703",
		Text: `column "nosuchcol" does not exist`, Query: `SELECT '日本', nosuchcol from pg_class`,
		Context: "PL/pgSQL function f() line 3 at PERFORM\nSQL statement \"select f()\"", Location: "errorMissingColumn, parse_relation.c:3827",
		Position: &Position{Line: 1, Text: `SELECT '日本', nosuchcol from pg_class`, Column: 14}}
	want.Raw = m.Raw
	if got := *m; got.Position == nil || *got.Position != *want.Position || got.Raw == "" {
		t.Errorf("position %+v, want %+v", got.Position, want.Position)
	} else {
		got.Position, want.Position = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("message\n got: %+v\nwant: %+v", got, want)
		}
	}
	if !strings.HasPrefix(m.Raw, "psql:t3.sql:11: ERROR:") || !strings.HasSuffix(m.Raw, "parse_relation.c:3827") {
		t.Errorf("raw: %q", m.Raw)
	}
}

// The collector's capture since it brackets the statement: the marker
// lines are read back as markers, in order, and are no statement's output
// and no warning; the timed statement is the last one, with its Time: line.
func TestStreamsWindow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		markers string // names in order
		tag     string
		err     bool
	}{
		{"capture-window-vacuum-pg17", "backend before after", "VACUUM", false},
		{"capture-window-vacuum-pg18", "backend before after", "VACUUM", false},
		{"capture-window-select-pg17", "backend before after", "", false},
		{"capture-window-select-pg18", "backend before after", "", false},
		{"capture-window-error-pg18", "backend before", "", true}, // psql stopped on the error
		{"capture-window-badset-pg18", "", "", true},              // ... on a setting, before the statement
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, warns, err := Streams(strings.NewReader(readFixture(t, tc.name+".stdout")), strings.NewReader(readFixture(t, tc.name+".stderr")), tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings: %v", warns)
			}
			var names []string
			for _, m := range out.Markers {
				names = append(names, m.Name)
				if m.Token != "0123456789abcdef" {
					t.Errorf("marker %+v: token", m)
				}
			}
			if strings.Join(names, " ") != tc.markers {
				t.Fatalf("markers %v, want %s", names, tc.markers)
			}
			last := out.Statements[len(out.Statements)-1]
			if (last.Err() != nil) != tc.err {
				t.Errorf("last statement %q: error %v", last.SQL, last.Err())
			}
			if tc.markers == "" {
				return
			}
			if b := out.Marker("backend"); b == nil || b.Value == "" || b.Line != out.Marker("before").Line-1 {
				t.Errorf("backend marker %+v", b)
			}
			before := out.Marker("before").Line
			if last.TimeMs == nil || last.Tag() != tc.tag || last.Line <= before || strings.HasPrefix(last.SQL, "SET") {
				t.Errorf("timed statement %+v after the before marker on line %d", last, before)
			}
			if a := out.Marker("after"); a != nil && a.Line <= last.EndLine {
				t.Errorf("after marker on line %d, inside the statement (lines %d-%d)", a.Line, last.Line, last.EndLine)
			}
			for _, st := range out.Statements[:len(out.Statements)-1] {
				if !strings.HasPrefix(st.SQL, `SET "`) || st.Line >= before {
					t.Errorf("statement before the timed one: %+v", st)
				}
			}
		})
	}
	// Lines that look like markers but are not stay what they were.
	for _, l := range []string{"pgstudy:before 0123456789ABCDEF", "pgstudy:before 0123", "pgstudy:after 0123456789abcdef x",
		"pgstudy:backend 0123456789abcdef", "pgstudy:other 0123456789abcdef"} {
		if m, ok := parseMarker(l); ok {
			t.Errorf("%q read as marker %+v", l, m)
		}
	}
}

// TestSeverityAt: each severity is found by its first letter, and a line
// of each is read as a message, with and without a SQLSTATE; a word that
// only starts like one is not.
func TestSeverityAt(t *testing.T) {
	for _, v := range severities {
		if severityAt[v[0]] != v {
			t.Errorf("%s shares its first letter with %s", v, severityAt[v[0]])
		}
		for _, l := range []string{v + ":  text", v + ":  42P01: text"} {
			sev, _, text, ok := severityLabel(l)
			if !ok || sev != v || l[text:] != "text" {
				t.Errorf("severityLabel(%q) = %q, %d, %v", l, sev, text, ok)
			}
		}
		if _, _, _, ok := severityLabel(v + "S:  text"); ok {
			t.Errorf("%sS read as a severity", v)
		}
	}
}

// TestFieldLabel: each field label is read, the longest included, and a
// line that only starts like one is not.
func TestFieldLabel(t *testing.T) {
	for _, f := range fieldLabels {
		if len(f) > maxLabel {
			t.Errorf("%s is longer than maxLabel", f)
		}
		if name, text, ok := fieldLabel(f + ":  text"); !ok || name != f || text != len(f)+3 {
			t.Errorf("fieldLabel(%q) = %q, %d, %v", f+":  text", name, text, ok)
		}
		if _, _, ok := fieldLabel(f + "X:  text"); ok {
			t.Errorf("%sX read as a label", f)
		}
		if _, _, ok := fieldLabel(f + ": text"); ok {
			t.Errorf("%s: with one space read as a label", f)
		}
	}
}

// TestTagWords: real psql -a output (testdata/tagwords) where a line reads
// as a command tag's word or a meta-command: each statement keeps its SQL,
// its result and its tag, and none is made up (found by an outside
// tester).
func TestTagWords(t *testing.T) {
	for name, want := range map[string][]string{
		"copy-null-first": {`SELECT 'before' AS b; => [[before]]`, `COPY (SELECT NULL::int, 1) TO STDOUT; => \N` + "\t1",
			`SELECT 'after' AS a; => [[after]]`},
		// One statement, with its SQL: none made up from its last lines.
		"select-union-timed": {`SELECT 'before' AS b; => [[before]]`, "SELECT\n    1 AS u\nUNION ALL\nSELECT\n    2; => [[1] [2]]",
			`SELECT 'after' AS a; => [[after]]`},
		"vacuum-then-mixed": {`SELECT 'before' AS b; => [[before]]`, `VACUUM pgbench_branches; => VACUUM`,
			`SELECT 'after' AS a; => [[after]]`},
	} {
		out, _, err := Parse(strings.NewReader(golden.Text(t, "testdata/tagwords/"+name+".txt")), "in")
		if err != nil {
			t.Fatal(name, err)
		}
		// A statement read without its SQL (mixed case, keywords alone on
		// its lines) is warned of, a known weakness: left out here.
		got := resultsOf(out, true)
		for _, m := range out.Meta {
			if m.Command != `\timing on` {
				t.Errorf("%s: meta-command %q, made up from a line of data", name, m.Command)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: statements\n%q; want\n%q", name, got, want)
		}
	}
}
