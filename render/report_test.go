package render

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
)

func sampleAnalysis(t testing.TB) *analyze.Analysis {
	t.Helper()
	a, err := analyze.Example(analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// hashes lists every file under dir with its SHA-256.
func hashes(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, fmt.Sprintf("%x  %s", sha256.Sum256(b), rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestReportSample writes the sample's report twice, from two analyses,
// and finds the same bytes in every file; report.md is compared with its
// golden file.
func TestReportSample(t *testing.T) {
	dir1, dir2 := t.TempDir(), t.TempDir()
	files, _, err := Report(dir1, nil, sampleAnalysis(t), ReportOptions{HTML: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Report(dir2, nil, sampleAnalysis(t), ReportOptions{HTML: true}); err != nil {
		t.Fatal(err)
	}
	h1, h2 := hashes(t, dir1), hashes(t, dir2)
	if !slices.Equal(h1, h2) {
		t.Errorf("two reports of one capture differ:\n%s\n---\n%s", strings.Join(h1, "\n"), strings.Join(h2, "\n"))
	}
	if len(h1) != len(files)+1 {
		t.Errorf("Report says it wrote %d files and its record; %d are there", len(files), len(h1))
	}
	md, err := os.ReadFile(filepath.Join(dir1, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/report/report.md", md)
	// Every figure report.md shows is there, as SVG and PNG.
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "![") {
			svg := line[strings.Index(line, "](")+2 : len(line)-1]
			for _, p := range []string{svg, strings.TrimSuffix(svg, ".svg") + ".png"} {
				if _, err := os.Stat(filepath.Join(dir1, p)); err != nil {
					t.Errorf("report.md shows %s: %v", p, err)
				}
			}
		}
	}
	for _, want := range []string{"## How we measured", "pg17: PostgreSQL 17.", "pg18: PostgreSQL 18.", "data checksums on",
		"before every timed statement: stop-all; drop-caches; start", "Disk vda", "## What the guards found",
		"data_checksums differs", "### Relative times", "| bitmap | 1.00 |", "![", "## Tables", "### Timings"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./render -update to accept):\n%s", path, lineDiff(string(want), string(got)))
	}
}
