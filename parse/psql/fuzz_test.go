package psql

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// FuzzParse checks properties of Psql and Streams on any input: an
// error is a *parse.SyntaxError with a line, and without one every statement,
// result, message and meta-command lies within the input, statements in
// order and apart, and every duration is a number of milliseconds >= 0.
func FuzzParse(f *testing.F) {
	for _, fx := range fixtureFiles(f) {
		b, err := os.ReadFile(fx)
		if err != nil {
			f.Fatal(err)
		}
		var e []byte
		if stem, ok := strings.CutSuffix(fx, ".stdout"); ok {
			if e, err = os.ReadFile(stem + ".stderr"); err != nil {
				f.Fatal(err)
			}
		}
		f.Add(string(b), string(e))
	}
	f.Add("select 1; select 2;\nTime: 1.0 ms\nTime: 2.0 ms\n", "")
	f.Add("Time: 61234.567 ms (01:01.235)\n", "ERROR:  x\nLINE 1: y\n  ^\n")
	f.Fuzz(func(t *testing.T, stdout, stderr string) {
		out, warns, err := Parse(strings.NewReader(stdout), "in")
		checkPsqlFuzz(t, stdout, "", out, warns, err)
		out, warns, err = Streams(strings.NewReader(stdout), strings.NewReader(stderr), "in")
		checkPsqlFuzz(t, stdout, stderr, out, warns, err)
	})
}

func checkPsqlFuzz(t *testing.T, stdout, stderr string, out *Output, warns []parse.Warning, err error) {
	t.Helper()
	if err != nil {
		var se *parse.SyntaxError
		if !errors.As(err, &se) || se.Line < 0 || out != nil {
			t.Fatalf("error %T %v (line < 0, or output too)", err, err)
		}
		return
	}
	lines := func(s string) int { return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1 }
	nOut, nErr := lines(stdout), lines(stderr)
	within := func(what string, a, b int, stream string) {
		n := nOut
		if stream == "stderr" {
			n = nErr
		}
		if a < 1 || b < a || b > n {
			t.Fatalf("%s on lines %d-%d of %d", what, a, b, n)
		}
	}
	prev := 0
	for _, st := range out.Statements {
		within("statement", st.Line, st.EndLine, "")
		if st.Line <= prev {
			t.Fatalf("statement on lines %d-%d overlaps one ending on %d", st.Line, st.EndLine, prev)
		}
		prev = st.EndLine
		if st.SQL != "" && (st.SQLLine < 1 || st.SQLLine > st.Line) {
			t.Fatalf("statement on line %d has its SQL on line %d", st.Line, st.SQLLine)
		}
		if st.TimeMs != nil {
			if ms := *st.TimeMs; ms < 0 || math.IsNaN(ms) || math.IsInf(ms, 0) {
				t.Fatalf("time %v", ms)
			}
			if st.TimeLine < st.Line || st.TimeLine > st.EndLine {
				t.Fatalf("time on line %d, statement on %d-%d", st.TimeLine, st.Line, st.EndLine)
			}
		}
		for _, r := range st.Results {
			if r.Line < st.Line || r.EndLine > st.EndLine || r.EndLine < r.Line {
				t.Fatalf("result on lines %d-%d of a statement on %d-%d", r.Line, r.EndLine, st.Line, st.EndLine)
			}
			if tb := r.Table; tb != nil && tb.RowCount != nil && *tb.RowCount < 0 {
				t.Fatalf("row count %d", *tb.RowCount)
			}
		}
		for _, m := range st.Messages {
			within("message", m.Line, m.EndLine, m.Stream)
			if m.Stream == "" && (m.Line < st.Line || m.EndLine > st.EndLine) {
				t.Fatalf("message on lines %d-%d of a statement on %d-%d", m.Line, m.EndLine, st.Line, st.EndLine)
			}
		}
	}
	for _, m := range out.Meta {
		within("meta-command", m.Line, m.EndLine, "")
	}
	for _, m := range out.Messages {
		within("message", m.Line, m.EndLine, m.Stream)
	}
	for _, w := range warns {
		n := nOut
		if strings.HasSuffix(w.Source, ":stderr") {
			n = nErr
		}
		if w.Line < 1 || w.Line > n {
			t.Fatalf("warning on line %d of %d: %v", w.Line, n, w)
		}
	}
}
