package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/samples"
)

// writeStudyCapture copies the sample capture to dir with its study's
// text rewritten by edit.
func writeStudyCapture(t *testing.T, dir string, edit func(string) string) {
	t.Helper()
	r, err := samples.Example()
	if err != nil {
		t.Fatal(err)
	}
	c := mustRead[samples.Capture](t, r)[0]
	c.StudyYAML = edit(c.StudyYAML)
	writeCapture(t, dir, c, mustRead[samples.Host](t, r), sampleBatches(t, r, rowEdits{}))
}

// TestStoredStudy: a capture whose study does not decode stops analyze,
// check and report with an error that names the capture, the study's line
// and what was expected; one whose study has keys this version does not
// know is analysed, with a finding that names them.
func TestStoredStudy(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	writeStudyCapture(t, bad, func(y string) string { return strings.Replace(y, "  rounds: 6\n", "  rounds: [6]\n", 1) })
	for _, args := range [][]string{{"analyze", bad}, {"check", bad}, {"report", bad, "-o", filepath.Join(dir, "report")}} {
		code, _, stderr := runInProcess(args...)
		want := bad + ": the study it recorded does not decode"
		if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, "study.yaml:41:11: expected a whole number, found a list") {
			t.Errorf("pgstudy %s: exit %d, stderr %q; want an error with %q", args[0], code, stderr, want)
		}
	}
	newer := filepath.Join(dir, "newer")
	writeStudyCapture(t, newer, func(y string) string { return y + "warmup_rounds: 1\n" })
	code, out, stderr := runInProcess("check", newer)
	if code == exitUsage || !strings.Contains(out+stderr, `unknown key "warmup_rounds"`) {
		t.Errorf("check: exit %d, no finding of the key ignored:\n%s%s", code, out, stderr)
	}
}
