package analyze

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestParseWarningsAreProblems: real psql output with lines psql's parser
// does not understand (a user's `\! cat /proc/diskstats` among the timed
// statements) says so, once per kind of warning, with the first line and a
// count, rather than parsing quietly; before, every warning was dropped.
func TestParseWarningsAreProblems(t *testing.T) {
	text, err := os.ReadFile("../parse/psql/testdata/capture-handmade-pg17.txt")
	if err != nil {
		t.Fatal(err)
	}
	run := &Run{RunID: 7, Client: "psql", Status: "ok"}
	run.readOutputs(map[string]string{"stdout": string(text)}, nil)
	run.flushParseWarnings()
	var got []string
	for _, p := range run.Problems {
		if strings.HasPrefix(p, "psql output: a line not understood") {
			got = append(got, p)
		}
	}
	want := `psql output: a line not understood: run 7:stdout:1: not part of any statement, result or message: "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" (and 29 more like it)`
	if len(got) != 1 || got[0] != want {
		t.Errorf("problems %q;\nwant %q", got, want)
	}
	if !run.HasTime {
		t.Error("the run's time is lost: warnings are said, not fatal")
	}
}

// TestStatRowErrors: rows of a statistics view that are not JSON are
// said once per view, with a count, not read as zeros.
func TestStatRowErrors(t *testing.T) {
	run := &Run{RunID: 3}
	for range 3 {
		run.rowError("pg_stat_io", errors.New("run 3 pg_stat_io before: expected a JSON object"))
	}
	run.flushParseWarnings()
	want := "pg_stat_io: a row not read: run 3 pg_stat_io before: expected a JSON object (and 2 more like it)"
	if len(run.Problems) != 1 || run.Problems[0] != want {
		t.Errorf("problems %q, want %q", run.Problems, want)
	}
}
