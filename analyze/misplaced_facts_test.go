package analyze_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/internal/gencapture"
	"github.com/pgstudy/pgstudy/samples"
)

// TestMisplacedFactsPart: a part of disk facts copied over another
// part's (runs 201 to 300 under the name of 101's) is found, though the
// analysis only counts that table's rows: compact refuses it, leaving the
// capture as it was (a SQL engine would have counted runs 201 to 300
// twice in the merged part), and the analysis computes that part's facts
// again from the raw text, saying why.
func TestMisplacedFactsPart(t *testing.T) {
	dir := t.TempDir()
	if err := gencapture.Generate(dir, gencapture.Options{Runs: 400, Samples: 3, RunsPerPart: 100}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "disk_facts", "r000201.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "disk_facts", "r000101.parquet"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = samples.Compact(dir, samples.CompactOptions{})
	if err == nil || !strings.Contains(err.Error(), "disk_facts/r000101.parquet holds a row of run 201, where its runs part holds runs 101 to 200") {
		t.Fatalf("compact: %v; want the misplaced part refused", err)
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "disk_facts", "*.parquet")); len(parts) != 4 {
		t.Errorf("%d parts of disk_facts after the refusal; want the 4 as they were", len(parts))
	}
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	if _, err := analyze.Analyze([]analyze.Input{{Name: "capture", Reader: r}},
		analyze.Options{Note: func(s string) { notes = append(notes, s) }}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "disk_facts/r000101.parquet holds rows of runs 201 to 300, which run_facts/r000101.parquet does not count") {
		t.Errorf("notes %q; want the misplaced part named", notes)
	}
}
