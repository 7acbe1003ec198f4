package main

import (
	"path/filepath"
	"slices"
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
	batches := map[int64]*samples.Batch{}
	batch := func(id int64) *samples.Batch {
		if batches[id] == nil {
			batches[id] = &samples.Batch{}
		}
		return batches[id]
	}
	for _, run := range mustRead[samples.Run](t, r) {
		batch(run.RunID).Run = run
	}
	into(t, r, batch, func(b *samples.Batch) *[]samples.Server { return &b.Servers }, func(x *samples.Server) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Setting { return &b.Settings }, func(x *samples.Setting) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Step { return &b.Steps }, func(x *samples.Step) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Statement { return &b.Statements }, func(x *samples.Statement) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Output { return &b.Outputs }, func(x *samples.Output) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Notice { return &b.Notices }, func(x *samples.Notice) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Plan { return &b.Plans }, func(x *samples.Plan) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Diskstats { return &b.Diskstats }, func(x *samples.Diskstats) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Stat { return &b.Stats }, func(x *samples.Stat) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Probe { return &b.Probes }, func(x *samples.Probe) int64 { return x.RunID })
	into(t, r, batch, func(b *samples.Batch) *[]samples.Attachment { return &b.Attachments }, func(x *samples.Attachment) int64 { return x.RunID })
	c := mustRead[samples.Capture](t, r)[0]
	c.StudyYAML = edit(c.StudyYAML)
	w, err := samples.Create(dir, samples.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSession(c, mustRead[samples.Host](t, r)); err != nil {
		t.Fatal(err)
	}
	var bs []*samples.Batch
	for _, id := range slices.Sorted(mapsKeys(batches)) {
		bs = append(bs, batches[id])
	}
	if err := w.CommitMany(bs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
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
