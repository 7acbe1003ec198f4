package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportAndPlot renders the embedded sample, as the README's first
// command does.
func TestReportAndPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	code, _, stderr := runInProcess("report", "-o", dir)
	if code != 0 || !strings.Contains(stderr, "figure 1/") || !strings.Contains(stderr, "open "+filepath.Join(dir, "report.md")) {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "## How we measured") {
		t.Fatalf("report.md: %v", err)
	}
	for _, p := range []string{"figures/ratios.svg", "figures/ratios.png", "figures/times-bitmap.png", "tables/timings.csv", "tables/runs.csv"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	if code, _, stderr := runInProcess("report", "-o", dir, "--quiet"); code != 0 || stderr != "" {
		t.Errorf("report --quiet: exit %d, %q", code, stderr)
	}

	figs := filepath.Join(t.TempDir(), "figs")
	code, out, stderr := runInProcess("plot", "-o", figs, "--quiet")
	if code != 0 || stderr != "" || !strings.Contains(out, filepath.Join(figs, "reads-bitmap")+".svg  Each dot is one run of bitmap") {
		t.Errorf("plot: exit %d\n%s\n%s", code, out, stderr)
	}
	entries, _ := os.ReadDir(figs)
	if len(entries) != 2*strings.Count(out, "\n")+1 {
		t.Errorf("plot wrote %d files for %d figures (and the record of what it wrote)", len(entries), strings.Count(out, "\n"))
	}

	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"plot"}, exitUsage, "plot needs -o DIR"},
		{[]string{"report", filepath.Join(dir, "missing"), "-o", dir}, exitError, "missing"},
		{[]string{"report", "--baseline", "pg16", "-o", dir}, exitUsage, `baseline "pg16" is not a configuration`},
	} {
		code, _, stderr := runInProcess(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("pgstudy %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.err)
		}
	}
}
