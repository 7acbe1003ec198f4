package analyze_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// TestFactsDamaged: stored facts that are not whole (a fact part lost,
// copied from another run's, a folder where a part should be) or of a newer
// pgstudy are not read: the analysis computes them from the raw text, says
// why, and finds what it found before. Damaged facts are replaced; a newer
// pgstudy's, and anything that is not a regular file, are left as they are.
func TestFactsDamaged(t *testing.T) {
	for _, c := range []struct {
		name    string
		damage  func(t *testing.T, dir string) (left string) // a path that must stay as it is, or ""
		said    []string
		fixed   bool // the next analysis reads stored facts
		reparse bool
	}{
		{"a fact part lost", func(t *testing.T, dir string) string {
			must(t, os.Remove(filepath.Join(dir, "disk_facts", "r000005.parquet")))
			return ""
		}, []string{"computing the facts of 1 run (1 of its 36 parts) from the raw text: their stored facts are unreadable: disk_facts/r000005.parquet is missing or empty, where run_facts counts",
			"stored the facts of 1 run beside it (1 part"}, true, false},
		{"a part of disk intervals lost", func(t *testing.T, dir string) string {
			must(t, os.Remove(filepath.Join(dir, "disk_intervals", "r000004.parquet")))
			return ""
		}, []string{"computing the facts of 1 run (1 of its 36 parts) from the raw text: their stored facts are unreadable: disk_intervals/r000004.parquet is missing or empty, where run_facts counts",
			"stored the facts of 1 run beside it (1 part"}, true, false},
		{"a part of disk figures copied from another run's", func(t *testing.T, dir string) string {
			b, err := os.ReadFile(filepath.Join(dir, "disk_figures", "r000001.parquet"))
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, "disk_figures", "r000002.parquet"), b, 0o644))
			return ""
		}, []string{"computing the facts of 1 run (1 of its 36 parts) from the raw text: their stored facts are unreadable: … disk_figures/r000002.parquet holds a row of run 1",
			"stored the facts of 1 run"}, true, false},
		{"disk figures not computed when collected", func(t *testing.T, dir string) string {
			r, err := samples.Open(dir)
			must(t, err)
			rows, err := samples.ReadPart[samples.RunFact](r, "r000003.parquet")
			must(t, err)
			rows[0].FigureRows, rows[0].IntervalRows = nil, nil // as collect writes a run whose snapshots came out of order
			d, err := r.OpenDerived()
			must(t, err)
			must(t, samples.WriteDerived(d, r, "r000003.parquet", rows))
			d.Close()
			return ""
		}, []string{"computing the facts of 1 run (1 of its 36 parts) from the raw text: the disk figures of some of their runs were not computed when collected",
			"stored the facts of 1 run"}, true, false},
		{"a fact part copied from another run's", func(t *testing.T, dir string) string {
			b, err := os.ReadFile(filepath.Join(dir, "view_facts", "r000001.parquet"))
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, "view_facts", "r000006.parquet"), b, 0o644))
			return ""
		}, []string{"computing the facts of 1 run (1 of its 36 parts) from the raw text: their stored facts are unreadable: ", "stored the facts of 1 run"}, true, false},
		{"facts of a newer pgstudy", newerFacts, []string{"stored by a newer pgstudy at facts version", "stored none (facts of a newer pgstudy are kept as they are)"}, false, false},
		{"facts of a newer pgstudy, with --reparse", newerFacts,
			[]string{"--reparse, but those stored are a newer pgstudy's (facts version",
				"stored the facts of 35 runs beside it (35 parts … those of 1 part, stored by a newer pgstudy, are kept as they are"}, false, true},
		{"a folder named like a fact part, and a fact part lost", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "disk_facts", "r000008.parquet")
			must(t, os.Remove(p))
			must(t, os.Mkdir(p, 0o755))
			must(t, os.Remove(filepath.Join(dir, "disk_facts", "r000009.parquet")))
			return p
		}, []string{"computing the facts of 2 runs (2 of its 36 parts) … disk_facts/r000008.parquet: not a regular file (a folder) … disk_facts/r000009.parquet is missing or empty",
			"stored the facts of 1 run beside it (1 part … those of 1 part were not stored … r000008.parquet is a folder, not a regular file: left as it is"}, false, false},
		{"a file of the user's named like a temporary file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "run_facts", ".my-notes.tmp")
			must(t, os.WriteFile(p, []byte("mine"), 0o644))
			must(t, os.Remove(filepath.Join(dir, "disk_facts", "r000012.parquet")))
			return p
		}, []string{"computing the facts of 1 run", "stored the facts of 1 run beside it"}, true, false},
		{"a FIFO named like a fact part", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "disk_facts", "r000010.parquet")
			must(t, os.Remove(p))
			must(t, mkfifo(p))
			return p
		}, []string{"computing the facts of 1 run … disk_facts/r000010.parquet: not a regular file (a FIFO (named pipe))",
			"and stored none of them; those of 1 part were not stored … is a FIFO (named pipe), not a regular file"}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copySample(t)
			want, _ := analyseNoting(t, dir, false)
			left := c.damage(t, dir)
			before := readRegular(t, left)
			begin := time.Now()
			got, notes := analyseNoting(t, dir, c.reparse)
			said(t, "the analysis", notes, c.said...)
			if d := time.Since(begin); d > 20*time.Second { // a FIFO opened waits for a writer
				t.Errorf("the analysis took %s", d)
			}
			if got != want {
				t.Error("the analysis differs once the facts were damaged")
			}
			if left != "" && !bytes.Equal(readRegular(t, left), before) {
				t.Errorf("%s was changed", left)
			}
			_, notes = analyseNoting(t, dir, false)
			if c.fixed && len(notes) != 0 {
				t.Errorf("the facts were not replaced: the next analysis said %q", notes)
			}
			if !c.fixed && len(notes) == 0 {
				t.Error("the next analysis read facts it should not have")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newerFacts makes run 7's stored facts a newer pgstudy's.
func newerFacts(t *testing.T, dir string) string {
	r, err := samples.Open(dir)
	must(t, err)
	rows, err := samples.ReadPart[samples.RunFact](r, "r000007.parquet")
	must(t, err)
	rows[0].FactsVersion = facts.Version + 1
	d, err := r.OpenDerived()
	must(t, err)
	must(t, samples.WriteDerived(d, r, "r000007.parquet", rows))
	d.Close()
	return filepath.Join(dir, "run_facts", "r000007.parquet")
}

// readRegular is what a file holds, its kind if it is not a regular
// file (opening a FIFO would wait for a writer), "" for no name.
func readRegular(t *testing.T, name string) []byte {
	t.Helper()
	if name == "" {
		return nil
	}
	fi, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() {
		return []byte(fi.Mode().Type().String())
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
