package analyze_test

import (
	"path/filepath"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/internal/gencapture"
	"github.com/pgstudy/pgstudy/samples"
)

// checkTables fails when a table of the analysis has a key that is not
// snake_case or that two columns share, a value not of its column's kind,
// or a pivot over columns it does not have. Every capture the tests
// analyse goes through it.
func checkTables(tb testing.TB, a *analyze.Analysis) {
	tb.Helper()
	for _, t := range append(a.Tables(), a.DetailTables()...) {
		if err := t.Check(); err != nil {
			tb.Error(err)
		}
	}
}

// TestTableKeys checks the tables of the embedded sample, alone and as two
// hosts of a fleet (with a host column), and of a generated capture with
// every kind of row.
func TestTableKeys(t *testing.T) {
	sample := func() analyze.Input {
		r, err := samples.Example()
		if err != nil {
			t.Fatal(err)
		}
		return analyze.Input{Name: "sample", Reader: r}
	}
	for _, inputs := range [][]analyze.Input{{sample()}, {sample(), sample()}} {
		a, err := analyze.Analyze(inputs, analyze.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkTables(t, a)
		for _, tb := range a.Tables() {
			if tb.Name == "relative" && len(tb.Rows) == 0 {
				t.Errorf("%d hosts: no relative rows", len(a.Hosts))
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "gen")
	if err := gencapture.Generate(dir, gencapture.Options{Runs: 200, RunsPerPart: 50}); err != nil {
		t.Fatal(err)
	}
	analyzeDir(t, dir)
}
