package analyze_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// copySample copies the embedded sample's folder (real output of real
// servers) to a new folder, without its facts: a capture made before them.
func copySample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "capture")
	if err := os.CopyFS(dir, os.DirFS("../samples/example/capture")); err != nil {
		t.Fatal(err)
	}
	for _, table := range factTables {
		if err := os.RemoveAll(filepath.Join(dir, table)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var factTables = []string{"run_facts", "disk_facts", "disk_figures", "disk_intervals", "io_facts", "view_facts", "fact_problems"}

// TestSampleFactsCurrent: the sample carries the facts of the current
// version, of its raw parts as they are, as a capture collected today
// would; an analysis of it in the source tree writes nothing there.
func TestSampleFactsCurrent(t *testing.T) {
	r, err := samples.Open("../samples/example/capture")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := r.Parts("runs")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		rows, err := samples.ReadPart[samples.RunFact](r, p)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := r.RawParts(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 || rows[0].FactsVersion != facts.Version || rows[0].RawParts != sig {
			t.Fatalf("part %s: the sample's facts are not those of facts version %d over its raw parts (%+v): "+
				"store them again with go run ./cmd/pgstudy analyze --reparse samples/example/capture -o /tmp/x", p, facts.Version, rows)
		}
	}
}

// analyseNoting analyses dir and returns the analysis as JSON, with what
// it said it did to the capture.
func analyseNoting(t *testing.T, dir string, reparse bool) (string, []string) {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	a, err := analyze.Analyze([]analyze.Input{{Name: "capture", Reader: r}},
		analyze.Options{Reparse: reparse, Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(a); err != nil {
		t.Fatal(err)
	}
	a.StoreFacts(context.Background())
	return b.String(), notes
}

// said checks that the notes are those wanted, one for one: each holds
// the fragments of its want, separated by " … ", in order.
func said(t *testing.T, what string, notes []string, want ...string) {
	t.Helper()
	ok := len(notes) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = containsInOrder(notes[i], strings.Split(want[i], " … ")...)
	}
	if !ok {
		t.Errorf("%s said %q; want notes containing %q", what, notes, want)
	}
}

// containsInOrder is whether s holds each of parts, one after another.
func containsInOrder(s string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

// TestFactsAgreeWithRawText: the first analysis of a capture without facts
// computes them and stores them beside it; the next reads only them and
// finds the same analysis; --reparse computes them again, alike. The facts
// stored are row for row what a fresh parse of the raw text gives.
func TestFactsAgreeWithRawText(t *testing.T) {
	dir := copySample(t)
	first, notes := analyseNoting(t, dir, false)
	said(t, "the first analysis", notes, "computing the facts of 36 runs (36 of its 36 parts) from the raw text: no facts stored beside them yet", "stored the facts of 36 runs beside it (36 parts")
	second, notes := analyseNoting(t, dir, false)
	if len(notes) != 0 {
		t.Errorf("second analysis said %q; it should read the stored facts", notes)
	}
	if second != first {
		t.Error("the analysis from stored facts differs from the one from the raw text")
	}
	third, notes := analyseNoting(t, dir, true)
	said(t, "--reparse", notes, "computing the facts of 36 runs (36 of its 36 parts) from the raw text: --reparse", "stored the facts of 36 runs")
	if third != first {
		t.Error("the analysis after --reparse differs")
	}
	checkFactsRows(t, dir)
}

// checkFactsRows compares the facts stored in dir with facts.Of over the
// raw rows, run by run.
func checkFactsRows(t *testing.T, dir string) {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs := read[samples.Run](t, r)
	disk, stats := read[samples.Diskstats](t, r), read[samples.Stat](t, r)
	var want facts.Set
	for _, run := range runs {
		want.Append(facts.Of(run,
			slices.DeleteFunc(slices.Clone(disk), func(d samples.Diskstats) bool { return d.RunID != run.RunID }),
			slices.DeleteFunc(slices.Clone(stats), func(s samples.Stat) bool { return s.RunID != run.RunID })))
	}
	got := facts.Set{Runs: read[samples.RunFact](t, r), Disks: read[samples.DiskFact](t, r), Figures: read[samples.DiskFigure](t, r),
		Intervals: read[samples.DiskInterval](t, r), IO: read[samples.IOFact](t, r), Views: read[samples.ViewFact](t, r),
		Problems: read[samples.FactProblem](t, r)}
	for _, f := range got.Runs { // the sample has a part per run
		if sig, err := r.RawParts(fmt.Sprintf("r%06d.parquet", f.RunID)); err != nil || f.RawParts != sig {
			t.Errorf("run %d: facts of raw parts %q, want %q (%v)", f.RunID, f.RawParts, sig, err)
		}
	}
	for _, s := range []*facts.Set{&want, &got} {
		for i := range s.Runs {
			s.Runs[i].CaptureID, s.Runs[i].RawParts = "", ""
		}
		for i := range s.Disks {
			s.Disks[i].CaptureID = ""
			s.Disks[i].TakenAt = s.Disks[i].TakenAt.UTC()
		}
		for i := range s.Figures {
			s.Figures[i].CaptureID = ""
		}
		for i := range s.Intervals {
			s.Intervals[i].CaptureID = ""
		}
		for i := range s.IO {
			s.IO[i].CaptureID = ""
		}
		for i := range s.Views {
			s.Views[i].CaptureID = ""
		}
		for i := range s.Problems {
			s.Problems[i].CaptureID = ""
		}
	}
	if len(got.Disks) < 36*2 || len(got.Runs) != 36 || len(got.Figures) != 36 || len(got.Intervals) == 0 || len(got.IO) == 0 || len(got.Views) == 0 {
		t.Fatalf("stored facts: %d runs, %d snapshots, %d disk figures, %d intervals, %d pg_stat_io rows, %d view rows: too few",
			len(got.Runs), len(got.Disks), len(got.Figures), len(got.Intervals), len(got.IO), len(got.Views))
	}
	for name, pair := range map[string][2]any{"run_facts": {want.Runs, got.Runs}, "disk_facts": {want.Disks, got.Disks},
		"disk_figures": {want.Figures, got.Figures}, "disk_intervals": {want.Intervals, got.Intervals},
		"io_facts": {want.IO, got.IO}, "view_facts": {want.Views, got.Views}, "fact_problems": {want.Problems, got.Problems}} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: the stored facts differ from a fresh parse of the raw text", name)
		}
	}
}

func read[T any](t *testing.T, r *samples.Reader) []T {
	t.Helper()
	rows, err := samples.Read[T](r)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestFactsOlderVersion: facts stored by an older version are computed
// again and replaced; a part whose run_facts is gone is computed alone.
func TestFactsOlderVersion(t *testing.T) {
	dir := copySample(t)
	want, _ := analyseNoting(t, dir, false)
	// Make part 3's facts those of version 0: its run_facts rows say so.
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := samples.ReadPart[samples.RunFact](r, "r000003.parquet")
	if err != nil || len(rows) != 1 {
		t.Fatalf("run_facts of part 3: %v, %v", rows, err)
	}
	rows[0].FactsVersion = facts.Version - 1
	d, err := r.OpenDerived()
	if err != nil {
		t.Fatal(err)
	}
	if err := samples.WriteDerived(d, r, "r000003.parquet", rows); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if err := os.Remove(filepath.Join(dir, "run_facts", "r000009.parquet")); err != nil {
		t.Fatal(err)
	}
	got, notes := analyseNoting(t, dir, false)
	said(t, "the analysis", notes, fmt.Sprintf("computing the facts of 2 runs (2 of its 36 parts) from the raw text: no facts stored beside them yet (1 part); stored at facts version %d, older than %d (1 part)",
		facts.Version-1, facts.Version),
		"stored the facts of 2 runs")
	if got != want {
		t.Error("the analysis differs once older facts were replaced")
	}
	if _, notes = analyseNoting(t, dir, false); len(notes) != 0 {
		t.Errorf("the replaced facts were not stored: %q", notes)
	}
}

// TestFactsReadOnlyCapture: a capture that cannot be written is analysed
// all the same, from its raw text, and left as it was; the analysis says
// the facts were not stored.
func TestFactsReadOnlyCapture(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root, which writes through read-only modes: the capture is made read-only by an in-use lock instead")
	}
	dir := copySample(t)
	want, _ := analyseNoting(t, copySample(t), false)
	before := listFiles(t, dir)
	if os.Geteuid() == 0 {
		// Another pgstudy holds the capture: a second client.
		r, err := samples.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		d, err := r.OpenDerived()
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
	} else {
		chmodAll(t, dir, 0o555, 0o444)
		defer chmodAll(t, dir, 0o755, 0o644)
	}
	got, notes := analyseNoting(t, dir, false)
	if got != want {
		t.Error("the analysis of the read-only capture differs")
	}
	said(t, "the analysis", notes, "computing the facts of 36 runs (36 of its 36 parts)", "and stored none of them (")
	if after := listFiles(t, dir); !slices.Equal(before, after) {
		t.Errorf("the capture changed: %d files before, %d after", len(before), len(after))
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func chmodAll(t *testing.T, dir string, dirMode, fileMode os.FileMode) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Chmod(p, dirMode)
		}
		return os.Chmod(p, fileMode)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFactsStoredAfterCompaction: facts computed of a capture that is
// compacted before they are stored (the analysis's output went to a pipe
// that waited) are not stored under the names of parts that are gone,
// where they would never count; the note says why.
func TestFactsStoredAfterCompaction(t *testing.T) {
	dir := copySample(t)
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	a, err := analyze.Analyze([]analyze.Input{{Name: "capture", Reader: r}},
		analyze.Options{Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := samples.Compact(dir, samples.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	a.StoreFacts(context.Background())
	said(t, "the analysis", notes, "computing the facts of 36 runs",
		"stored none of them; those of 36 parts were not stored: the capture was compacted since it was read")
	for _, table := range factTables {
		if entries, _ := os.ReadDir(filepath.Join(dir, table)); len(entries) != 0 {
			t.Errorf("%s holds %d files", table, len(entries))
		}
	}
}
