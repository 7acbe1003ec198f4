package analyze_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

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
		name   string
		damage func(t *testing.T, dir string) (left string) // a path that must stay as it is, or ""
		said   []string
		fixed  bool // the next analysis reads stored facts
	}{
		{"a fact part lost", func(t *testing.T, dir string) string {
			must(t, os.Remove(filepath.Join(dir, "disk_facts", "r000005.parquet")))
			return ""
		}, []string{"(damaged: disk_facts/r000005.parquet holds 0 rows of run 5 where run_facts counts", "stored the facts of 1 part"}, true},
		{"a fact part copied from another run's", func(t *testing.T, dir string) string {
			b, err := os.ReadFile(filepath.Join(dir, "view_facts", "r000001.parquet"))
			must(t, err)
			must(t, os.WriteFile(filepath.Join(dir, "view_facts", "r000006.parquet"), b, 0o644))
			return ""
		}, []string{"computing the facts of 1 of its 36 parts from the raw text (damaged: ", "stored the facts of 1 part"}, true},
		{"facts of a newer pgstudy", func(t *testing.T, dir string) string {
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
		}, []string{"stored by a newer pgstudy at facts version", "stored none (facts of a newer pgstudy are kept as they are)"}, false},
		{"a folder named like a fact part", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "disk_facts", "r000008.parquet")
			must(t, os.Remove(p))
			must(t, os.Mkdir(p, 0o755))
			return p
		}, []string{"computing the facts of 1 of its 36 parts", "is not a regular file (d"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copySample(t)
			want, _ := analyseNoting(t, dir, false)
			left := c.damage(t, dir)
			var before []byte
			if left != "" {
				before, _ = os.ReadFile(left) // a folder reads as nothing
			}
			got, notes := analyseNoting(t, dir, false)
			said(t, "the analysis", notes, c.said...)
			if got != want {
				t.Error("the analysis differs once the facts were damaged")
			}
			if left != "" {
				after, err := os.ReadFile(left)
				if fi, serr := os.Lstat(left); serr != nil || (fi.Mode().IsRegular() && (err != nil || !bytes.Equal(before, after))) {
					t.Errorf("%s was changed (%v)", left, serr)
				}
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
