package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
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

// parser is the shape every parser of a whole output shares.
type parser[T any] func(r io.Reader, source string) (T, []Warning, error)

// testFixtures parses every real output of a kind: no error, no warning,
// check holds, and the result, under key, equals its golden file.
func testFixtures[T any](t *testing.T, kind, key string, parse parser[T], check func(*testing.T, T)) {
	for _, file := range fixtures(t, kind, "*.txt") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, warns, err := parse(f, file)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings for real output: %v", warns)
			}
			check(t, got)
			// Keys sort: key, then "warnings".
			checkGolden(t, file, map[string]any{key: got, "warnings": warns})
		})
	}
}

// fuzzParser fuzzes a parser from its real outputs and seeds: an error is
// a *SyntaxError naming the source (failed then checks what it returned),
// warnings are well formed, check holds for what it accepts, and that
// encodes as JSON.
func fuzzParser[T any](f *testing.F, kind string, seeds []string, parse parser[T], check, failed func(*testing.T, T)) {
	for _, file := range fixtures(f, kind, "*.txt") {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.txt"
		got, warns, err := parse(bytes.NewReader(in), source)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v, want *SyntaxError", err, err)
			}
			if se.Source != source || se.Line < 0 || !strings.HasPrefix(err.Error(), source+":") {
				t.Fatalf("bad error %#v", se)
			}
			if failed != nil {
				failed(t, got)
			}
			return
		}
		check(t, got)
		for _, w := range warns {
			if w.Source != source || w.Line < 1 || strings.ContainsRune(w.Text, '\n') || w.Msg == "" {
				t.Fatalf("bad warning %#v", w)
			}
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("json: %v", err)
		}
	})
}
