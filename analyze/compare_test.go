package analyze_test

import (
	"slices"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
)

func sampleAnalysis(t *testing.T) *analyze.Analysis {
	t.Helper()
	a, err := analyze.Example(analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCompareConfigs: two configurations of one capture compared give
// what analyze gives the second against the first as baseline: the same
// ratio, interval, p-values (Holm over the same tests) and verdict.
func TestCompareConfigs(t *testing.T) {
	a := sampleAnalysis(t)
	c, err := analyze.Compare(analyze.Side{Name: "pg17", A: a, Config: "pg17"}, analyze.Side{Name: "pg18", A: sampleAnalysis(t), Config: "pg18"}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 3 {
		t.Fatalf("%d rows, want one per test", len(c.Rows))
	}
	for _, r := range c.Rows {
		var want *analyze.TimingCompare
		for i := range a.Timings {
			if tm := &a.Timings[i]; tm.Test == r.Test && tm.Config == "pg18" {
				want = tm.Compare
			}
		}
		got := r.Compare
		if want == nil || got.Ratio != want.Ratio || got.Lo != want.Lo || got.Hi != want.Hi || got.P != want.P ||
			got.PAdjusted != want.PAdjusted || got.Verdict.Word != want.Verdict.Word {
			t.Errorf("%s: compare %+v, analyze %+v", r.Test, got, want)
		}
	}
	if !slices.Contains(c.Differences, "server: 17.10 on the pg17 side, 18.4 on the pg18 side") {
		t.Errorf("what differs between the sides: %q", c.Differences)
	}
	if len(c.Findings) == 0 || c.Findings[0].Side != "both" {
		t.Errorf("one capture's findings: %+v", c.Findings)
	}
}

// TestCompareCaptures: a capture against itself is no change: every row a
// ratio of 1 with p=1, not significant, and nothing only on one side.
func TestCompareCaptures(t *testing.T) {
	c, err := analyze.Compare(analyze.Side{Name: "old", A: sampleAnalysis(t)}, analyze.Side{Name: "new", A: sampleAnalysis(t)}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 6 || len(c.OnlyOld)+len(c.OnlyNew) != 0 || c.Geomean != 1 {
		t.Fatalf("%d rows, only %v %v, geomean %v", len(c.Rows), c.OnlyOld, c.OnlyNew, c.Geomean)
	}
	for _, r := range c.Rows {
		if r.Compare.Ratio != 1 || r.Compare.P != 1 || r.Compare.Significant || r.OldConfig != r.NewConfig {
			t.Errorf("%s %s: %+v", r.Test, r.OldConfig, r.Compare)
		}
	}
	if _, err := analyze.Compare(analyze.Side{Name: "old", A: sampleAnalysis(t), Config: "pg16"}, analyze.Side{Name: "new", A: sampleAnalysis(t), Config: "pg18"}, analyze.Options{}); err == nil {
		t.Error("a configuration the side does not have was accepted")
	}
}
