// Package golden holds what the parsers' tests share: golden JSON files
// beside real outputs (-update rewrites them), the list of a package's
// fixtures, and the test and fuzz loops every parser of a whole output
// goes through. It is for tests only.
package golden

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

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Check compares got, as indented JSON, with the golden file beside a
// fixture: testdata/verbose/pg17-toast.psql.txt has
// testdata/verbose/pg17-toast.psql.txt.golden.json. -update rewrites it.
func Check(t *testing.T, fixture string, got any) {
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
		t.Fatalf("%v (run go test with -update to write it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s differs from %s (go test -run %s -update rewrites it):\n%s",
			fixture, golden, t.Name(), FirstDiff(b.String(), string(want)))
	}
}

// FirstDiff shows where two texts part, with a little context.
func FirstDiff(got, want string) string {
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

// Files lists the fixture files (not goldens, scripts or READMEs) of
// testdata/dir matching pattern, sorted; dir is "" for testdata itself.
func Files(t testing.TB, dir, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			continue // fixtures of another test
		}
		if !strings.HasSuffix(f, ".golden.json") && !strings.HasSuffix(f, ".sh") && filepath.Base(f) != "README.md" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures in %s matching %s", filepath.Join("testdata", dir), pattern)
	}
	return out
}

// Parser is the shape every parser of a whole output shares.
type Parser[T any] func(r io.Reader, source string) (T, []parse.Warning, error)

// Each parses every real output (*.txt) of testdata/dir: no error, no
// warning, check holds, and the result, under key, equals its golden file.
func Each[T any](t *testing.T, dir, key string, read Parser[T], check func(*testing.T, T)) {
	for _, file := range Files(t, dir, "*.txt") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, warns, err := read(f, file)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 {
				t.Errorf("warnings for real output: %v", warns)
			}
			check(t, got)
			// Keys sort: key, then "warnings".
			Check(t, file, map[string]any{key: got, "warnings": warns})
		})
	}
}

// Fuzz fuzzes a parser from its real outputs and seeds: an error is
// a *SyntaxError naming the source (failed then checks what it returned),
// warnings are well formed, check holds for what it accepts, and that
// encodes as JSON.
func Fuzz[T any](f *testing.F, dir string, seeds []string, read Parser[T], check, failed func(*testing.T, T)) {
	addSeeds(f, dir, seeds)
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.txt"
		got, warns, err := read(bytes.NewReader(in), source)
		if err != nil {
			var se *parse.SyntaxError
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

// addSeeds adds the real outputs (*.txt) of testdata/dir and seeds to
// the fuzzer's corpus.
func addSeeds(f *testing.F, dir string, seeds []string) {
	for _, file := range Files(f, dir, "*.txt") {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

// EncodingJSON is v as an encoding/json Encoder with SetEscapeHTML(false)
// writes it (pgstudy parse's setting), without the newline; ok is false
// where encoding/json fails. It is the reference a record's AppendJSON
// is checked against.
func EncodingJSON(v any) (s string, ok bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), true
}

// Text is the file at path, relative to the package's folder.
func Text(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchInputs names the environment variable that, set to a folder, has
// Bench write each benchmark's input there, so that another tool (wc -l)
// can be timed on the same bytes.
const BenchInputs = "PGSTUDY_BENCH_INPUTS"

// Bench readies b to parse in: its bytes for MB/s, allocations reported,
// cpu-MB/s (the bytes over the process's CPU time, which other work on a
// busy machine inflates much less than MB/s's wall time), and in written
// to $PGSTUDY_BENCH_INPUTS/<package>.<benchmark>.txt
// (psql.BenchmarkParse.txt) when that is set.
func Bench(b *testing.B, in []byte) {
	b.Helper()
	parsetest.Bench(b, len(in))
	if dir := os.Getenv(BenchInputs); dir != "" {
		wd, err := os.Getwd()
		if err != nil {
			b.Fatal(err)
		}
		name := filepath.Base(wd) + "." + strings.ReplaceAll(b.Name(), "/", "_") + ".txt"
		if err := os.WriteFile(filepath.Join(dir, name), in, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
