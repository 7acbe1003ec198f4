package psql

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// seqRecords is what ParseSeq yields for r: the records before the
// error, the warnings, and the error.
func seqRecords(t *testing.T, r *strings.Reader) ([]Record, []parse.Warning, error) {
	t.Helper()
	var recs []Record
	var warns []parse.Warning
	for rec, err := range ParseSeq(r, "in", func(w parse.Warning) { warns = append(warns, w) }) {
		if err != nil {
			return recs, warns, err
		}
		recs = append(recs, rec)
	}
	return recs, warns, nil
}

// shortLen is a reader that says it holds n bytes, whatever it holds:
// parse.Lines then reads it through a buffer of n+1 bytes.
type shortLen struct {
	io.Reader
	n int
}

func (r shortLen) Len() int { return r.n }

// TestParseSeqBuffers: every fixture read a byte at a time through a
// buffer of a few bytes (so that messages, echoes and tables span
// buffers, and longer lines are gathered on their own), gives what Parse
// gives, the records in the order of their first lines.
func TestParseSeqBuffers(t *testing.T) {
	for _, f := range fixtureFiles(t) {
		if strings.HasSuffix(f, ".stdout") {
			continue
		}
		in := readFixture(t, strings.TrimPrefix(f, "testdata/"))
		out, warns, err := Parse(strings.NewReader(in), "in")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal([]any{out, warns})
		for _, size := range []int{1, 5, 100} {
			got := &Output{Statements: []Statement{}}
			var gotWarns []parse.Warning
			prev := 0
			r := shortLen{iotest.OneByteReader(strings.NewReader(in)), size}
			for r, err := range ParseSeq(r, "in", func(w parse.Warning) { gotWarns = append(gotWarns, w) }) {
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if r.Line() < prev || r.Kind == "" {
					t.Errorf("%s: a %s record on line %d after one on line %d", f, r.Kind, r.Line(), prev)
				}
				prev = r.Line()
				got.add(r)
			}
			if b, _ := json.Marshal([]any{got, gotWarns}); string(b) != string(want) {
				t.Errorf("%s, buffers of %d bytes: ParseSeq differs from Parse:\n%.300s\nwant\n%.300s", f, size+1, b, want)
			}
		}
	}
}

// TestParseSeqErrors: a stream found bad part-way keeps the records read
// before, then ends with the error naming the line; input with nothing
// psql printed has no records, unless more than maxUnprinted came first.
func TestParseSeqErrors(t *testing.T) {
	session := readFixture(t, "pg17-session.txt")
	n := strings.Count(session, "\n")
	for _, tc := range []struct {
		name, in, err string
		records       bool // records come before the error
	}{
		{"binary", session + "SET\nab\x00cd\n", "in:" + strconv.Itoa(n+2) + ": binary data (a NUL byte); expected text", true},
		{"server in French", session + "select 1/0;\nERREUR:  division par zéro\n", "in:" + strconv.Itoa(n+2) + ": psql output in another language (fr)", true},
		// psql's own line in another language, where no line of psql's
		// is English: refused at the end.
		{"footer in Spanish", "SET\nSET\nselect 1;\n a \n---\n 1\n(1 fila)\n\n", "in:7: psql output in another language", true},
		{"a script", strings.Repeat("select 1;\n", 100), "in:1: no psql output", false},
		{"a long script", strings.Repeat("select 1;\n", maxUnprinted+10), "in:1: no psql output", true},
		{"empty", "\n \n", "in: empty input; expected psql output", false},
	} {
		recs, _, err := seqRecords(t, strings.NewReader(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %s...", tc.name, err, tc.err)
		}
		var se *parse.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %T, want a *parse.SyntaxError", tc.name, err)
		}
		if (len(recs) > 0) != tc.records {
			t.Errorf("%s: %d records before the error; want some: %v", tc.name, len(recs), tc.records)
		}
		if out, _, err := Parse(strings.NewReader(tc.in), "in"); err == nil || out != nil {
			t.Errorf("%s: Parse gives %v, %v; want the error alone", tc.name, out, err)
		}
	}
}

// TestParseSeqStops: a consumer that stops ends the reading.
func TestParseSeqStops(t *testing.T) {
	r := parsetest.Repeat([]byte(readFixture(t, "pg17-session.txt")), 1000)
	n := 0
	for _, err := range ParseSeq(r, "in", nil) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	if r.Left() < 990 {
		t.Errorf("%d copies of 1000 left unread after 3 records; want the reading stopped", r.Left())
	}
}

// TestTimingLookAhead: with \timing on and no "Timing is on." (psql -q),
// a statement of two results ("select 1 \; select 2") is one statement
// when its Time: line, the first line about \timing, is within the look-
// ahead; past it (the second result a table of 5,000 rows), it is read
// as two, with a warning at the Time: line.
func TestTimingLookAhead(t *testing.T) {
	table := func(rows int) string {
		var b strings.Builder
		b.WriteString(" a \n---\n")
		for i := range rows {
			b.WriteString(" " + strconv.Itoa(i%10) + "\n")
		}
		b.WriteString("(" + strconv.Itoa(rows) + " rows)\n\n")
		return b.String()
	}
	for _, tc := range []struct {
		rows, stmts int
		warn        bool
	}{{10, 1, false}, {5000, 2, true}} {
		in := "select 1 \\; select a from t;\nSET\n" + table(tc.rows) + "Time: 1.000 ms\n"
		out, warns, err := Parse(strings.NewReader(in), "in")
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Statements) != tc.stmts || (len(warns) == 1) != tc.warn {
			t.Errorf("%d rows: %d statements, warnings %v; want %d statements, a warning: %v", tc.rows, len(out.Statements), warns, tc.stmts, tc.warn)
		}
		if tc.warn && (warns[0].Line != tc.rows+7 || !strings.Contains(warns[0].Msg, "past the look-ahead")) {
			t.Errorf("warning %+v; want one at the Time: line, %d", warns[0], tc.rows+7)
		}
	}
}

// TestLongLineWarning: a long line not understood is warned of with its
// first KiB, saying how long it was.
func TestLongLineWarning(t *testing.T) {
	_, warns, err := Parse(strings.NewReader("SET\n"+strings.Repeat("x", 5000)+"\nSET\n"), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || warns[0].Line != 2 || !strings.HasSuffix(warns[0].Text, "... [cut: a line of 5000 bytes]") || len(warns[0].Text) > parse.MaxExcerpt+48 {
		t.Errorf("warnings %.200v; want one at line 2, its first KiB", warns)
	}
}

// TestJudgedAfterTable: a result table, then more than parse.Judged lines
// not understood (COPY's data psql printed without its echo), then
// another: psql's output, read with warnings, not refused as no psql
// output (its first record waited for the next while the lines were
// counted; found by an outside tester).
func TestJudgedAfterTable(t *testing.T) {
	in := " a \n---\n 1\n(1 row)\n\n" + strings.Repeat("x\n", parse.Judged+10) + " b \n---\n 2\n(1 row)\n\n"
	n, warns := 0, 0
	for _, err := range ParseSeq(strings.NewReader(in), "in", func(parse.Warning) { warns++ }) {
		if err != nil {
			t.Fatalf("after %d records: %v", n, err)
		}
		n++
	}
	if n != 2 || warns == 0 {
		t.Errorf("%d records, %d warnings; want 2 and the lines not understood warned of", n, warns)
	}
}
