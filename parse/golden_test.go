package parse

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// checkGolden compares got, as indented JSON, with the golden file beside
// a fixture: testdata/vacuum/pg17-toast.psql.txt has
// testdata/vacuum/pg17-toast.psql.txt.golden.json. -update rewrites it.
func checkGolden(t *testing.T, fixture string, got any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(got); err != nil {
		t.Fatalf("%s: encode: %v", fixture, err)
	}
	golden := fixture + ".golden.json"
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./parse -update to write it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs from %s (go test ./parse -run %s -update rewrites it):\n%s",
			fixture, golden, t.Name(), firstDiff(b.String(), string(want)))
	}
}

// firstDiff shows where two texts part, with a little context.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return "(equal lines, different bytes)"
}

// fixtures lists the fixture files of a kind (not goldens), sorted.
func fixtures(t testing.TB, kind, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", kind, pattern))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".golden.json") && !strings.HasSuffix(f, ".sh") && filepath.Base(f) != "README.md" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures in testdata/%s matching %s", kind, pattern)
	}
	return out
}
