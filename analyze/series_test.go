package analyze_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/samples"
)

// TestSkipSeries: an analysis that skips the runs' series finds what a
// whole one finds, the series aside; on the sample, whose devices have a
// measured ceiling (the disk-bound guard reads each run's median
// interval), it reads them all the same.
func TestSkipSeries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	if err := os.CopyFS(dir, os.DirFS("../samples/example/capture")); err != nil {
		t.Fatal(err)
	}
	analyse := func(skip bool) *analyze.Analysis {
		r, err := samples.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		a, err := analyze.Analyze([]analyze.Input{{Name: "capture", Reader: r}}, analyze.Options{SkipSeries: skip})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	asJSON := func(a *analyze.Analysis) string {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	whole := analyse(false)
	if asJSON(analyse(true)) != asJSON(whole) {
		t.Error("with a measured ceiling, the analysis without series differs")
	}
	if err := os.RemoveAll(filepath.Join(dir, "calibrations")); err != nil {
		t.Fatal(err)
	}
	whole, skipped := analyse(false), analyse(true)
	series := 0
	for i, r := range whole.Runs {
		series += len(r.Series)
		if len(skipped.Runs[i].Series) != 0 {
			t.Fatalf("run %d has %d intervals with SkipSeries", r.RunID, len(skipped.Runs[i].Series))
		}
		r.Series = nil
	}
	if series == 0 {
		t.Fatal("the sample's runs have no series: the test compares nothing")
	}
	if asJSON(skipped) != asJSON(whole) {
		t.Error("without a limit, the analysis without series differs from the whole one, series aside")
	}
	// The intervals not read are still counted: a part of them lost has
	// the part's facts computed again.
	if err := os.Remove(filepath.Join(dir, "disk_intervals", "r000004.parquet")); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	a, err := analyze.Analyze([]analyze.Input{{Name: "capture", Reader: r}},
		analyze.Options{SkipSeries: true, Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	said(t, "the analysis without series", notes, "computing the facts of 1 run (1 of its 36 parts) from the raw text: their stored facts are unreadable: disk_intervals/r000004.parquet is missing or empty")
	if asJSON(a) != asJSON(skipped) {
		t.Error("the analysis differs once a part of intervals was lost")
	}
}
