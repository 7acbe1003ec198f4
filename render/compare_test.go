package render_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/render/exportcheck"
)

func sample(t *testing.T) *analyze.Analysis {
	t.Helper()
	a, err := analyze.Example(analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCompareBenchstatPeer: the sample's runs written in the Go benchmark
// format and read by benchstat give, for pg18 against pg17, the medians,
// the intervals (as ± percent), the changes, the raw p-values and the
// geomean that pgstudy compare gives.
func TestCompareBenchstatPeer(t *testing.T) {
	bin := pgtest.Benchstat(t)
	a := sample(t)
	var runs bytes.Buffer
	if err := render.Analysis(&runs, "benchfmt", a, render.Tables{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "runs.txt")
	os.WriteFile(file, runs.Bytes(), 0o644)
	out, err := exec.Command(bin, "-format", "csv", "-col", "/config", "-row", "/test", file).Output()
	if err != nil {
		t.Fatalf("benchstat: %v", err)
	}
	cr := csv.NewReader(bytes.NewReader(out))
	cr.FieldsPerRecord = -1 // its config lines have one field, its rows seven
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("benchstat's CSV: %v\n%s", err, out)
	}
	peer := map[string][]string{} // test: pg17 sec/op, CI, pg18 sec/op, CI, vs base, P
	for _, r := range recs {
		if len(r) == 7 && r[0] != "" {
			peer[r[0]] = r[1:]
		}
	}
	c, err := analyze.Compare(analyze.Side{Name: "pg17", A: a, Config: "pg17"}, analyze.Side{Name: "pg18", A: sample(t), Config: "pg18"}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(s, "p="), "%"), 64)
		if err != nil {
			t.Fatalf("benchstat printed %q", s)
		}
		return v
	}
	for _, r := range c.Rows {
		p, ok := peer[r.Test]
		if !ok {
			t.Errorf("benchstat has no row %s: %q", r.Test, recs)
			continue
		}
		if old, new := num(p[0])*1e3, num(p[2])*1e3; math.Abs(old-r.Old.Median) > 1e-6 || math.Abs(new-r.New.Median) > 1e-6 {
			t.Errorf("%s medians: benchstat %v and %v ms, pgstudy %v and %v", r.Test, old, new, r.Old.Median, r.New.Median)
		}
		half := math.Max(r.Old.Hi-r.Old.Median, r.Old.Median-r.Old.Lo) / r.Old.Median
		if ci := num(p[1]); math.Abs(ci-100*half) > 0.5 {
			t.Errorf("%s: benchstat ± %v%%, pgstudy %.2f%%", r.Test, ci, 100*half)
		}
		pv := strings.Fields(p[5])[0]
		if got := fmt.Sprintf("p=%.3f", r.Compare.P); got != pv {
			t.Errorf("%s: benchstat %s, pgstudy (before Holm) %s", r.Test, pv, got)
		}
		if p[4] != "~" {
			if got := fmt.Sprintf("%+.2f%%", 100*(r.Compare.Ratio-1)); got != p[4] {
				t.Errorf("%s: benchstat %s, pgstudy %s", r.Test, p[4], got)
			}
		}
	}
	if g, ok := peer["geomean"]; !ok || fmt.Sprintf("%+.2f%%", 100*(c.Geomean-1)) != g[4] {
		t.Errorf("geomean: benchstat %q, pgstudy %+.2f%%", g, 100*(c.Geomean-1))
	}
}

// TestCompareText: the text a reader sees, on the sample's two
// configurations (a golden file).
func TestCompareText(t *testing.T) {
	a := sample(t)
	c, err := analyze.Compare(analyze.Side{Name: "pg17", A: a, Config: "pg17"}, analyze.Side{Name: "pg18", A: sample(t), Config: "pg18"}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render.Comparison(&b, "text", "", c); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "compare.txt")
	if f := flagUpdate(); f {
		os.WriteFile(path, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(want, b.Bytes()) {
		t.Errorf("%s differs (go test ./render -update):\n%s", path, b.String())
	}
	for _, format := range []string{"md", "json"} {
		if err := render.Comparison(&b, format, "", c); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}

// TestCompareJSONValidates: a comparison's JSON passes its published
// schema with an independent validator.
func TestCompareJSONValidates(t *testing.T) {
	c, err := analyze.Compare(analyze.Side{Name: "old", A: sample(t)}, analyze.Side{Name: "new", A: sample(t)}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render.Comparison(&b, "json", "", c); err != nil {
		t.Fatal(err)
	}
	schema, err := render.CompareSchema()
	if err != nil {
		t.Fatal(err)
	}
	if err := exportcheck.ValidateWith(schema, b.Bytes()); err != nil {
		t.Errorf("the comparison's JSON breaks its schema: %v", err)
	}
	bad := strings.Replace(b.String(), `"old_n": 6,`, `"old_n": "6",`, 1)
	if err := exportcheck.ValidateWith(schema, []byte(bad)); err == nil || bad == b.String() {
		t.Error("a count written as text passed the schema")
	}
}
