package samples

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteCalibrations: each call rewrites the session's part with every
// row so far, numbered in order; a value that is not UTF-8 keeps its bytes
// in the session's raw_bytes part beside the host's; a resumed session
// writes its own part; a part of a session that never counted is not read,
// and Resume removes it.
func TestWriteCalibrations(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteCalibrations([]Calibration{{Phase: "start"}}); err == nil {
		t.Fatal("WriteCalibrations before WriteSession: no error")
	}
	c, hosts := sessionRows(w.CaptureID(), 1, 2, func(col string, i int) string { return col })
	hosts[1].Value = "bad \xff host" // the session's own raw bytes, kept when calibrations are written
	if err := w.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}
	n := int64(1 << 30)
	row := func(phase, pattern, file string) Calibration {
		return Calibration{Phase: phase, Pattern: pattern, Device: "loop3", File: file, FileSize: 1 << 30,
			StartedAt: time.Unix(1700000000, 0).UTC(), ElapsedNs: 3e9, Bytes: &n, Requests: &n}
	}
	if err := w.WriteCalibrations([]Calibration{row("start", "write", "/data/f")}); err != nil {
		t.Fatal(err)
	}
	failed := row("start", "random", "/d\xe9ta/f")
	failed.Bytes, failed.Requests, failed.Error = nil, nil, "O_DIRECT read: EIO"
	if err := w.WriteCalibrations([]Calibration{row("start", "sequential", "/data/f"), failed}); err != nil {
		t.Fatal(err)
	}
	w.Close()

	r := mustOpen(t, dir)
	got, err := Read[Calibration](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d calibrations, want 3: %+v", len(got), got)
	}
	for i, g := range got {
		if g.Seq != int32(i+1) || g.Session != 1 || g.CaptureID != w.CaptureID() {
			t.Errorf("row %d: seq %d session %d capture %s", i, g.Seq, g.Session, g.CaptureID)
		}
	}
	if got[1].Pattern != "sequential" || *got[1].Bytes != n || got[2].Bytes != nil || got[2].Requests != nil || got[2].File != "/d\uFFFDta/f" {
		t.Errorf("rows: %+v %+v", got[1], got[2])
	}
	raws, err := Read[RawBytes](r)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]string{}
	for _, rb := range raws {
		b, _ := base64.StdEncoding.DecodeString(rb.Base64)
		kept[rb.Table+"."+rb.Column] = string(b)
		if rb.Table == "calibrations" && rb.Row != 2 {
			t.Errorf("calibrations raw bytes for row %d, want 2", rb.Row)
		}
	}
	if kept["calibrations.file"] != "/d\xe9ta/f" || kept["host.value"] != "bad \xff host" {
		t.Errorf("raw bytes: %q", kept)
	}
	resumeCalibrations(t, dir, row("start", "write", "/data/f"))
}

// resumeCalibrations resumes the capture in dir, which has 3 calibrations
// of session 1, and writes one more.
func resumeCalibrations(t *testing.T, dir string, row Calibration) {
	w2, st, err := Resume(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := sessionRows(st.CaptureID, 2, 0, func(col string, i int) string { return col })
	if err := w2.WriteSession(c2, nil); err != nil {
		t.Fatal(err)
	}
	if err := w2.WriteCalibrations([]Calibration{row}); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	// A third session's part whose capture part is not there: written
	// after it, so a copy's (calibrations/ sorts before capture/), not a
	// killed collector's: read as nothing, and refused by Resume (an
	// outside tester found it removed).
	leftover := filepath.Join(dir, "calibrations", "s003.parquet")
	data, _ := os.ReadFile(filepath.Join(dir, "calibrations", "s002.parquet"))
	if err := os.WriteFile(leftover, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Read[Calibration](mustOpen(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[3].Session != 2 || got[3].Seq != 1 {
		t.Fatalf("after a resume: %d rows, last %+v", len(got), got[len(got)-1])
	}
	if _, _, err := Resume(dir, Options{}); err == nil || !strings.Contains(err.Error(), "a part of sessions that its capture/ does not hold ("+leftover+")") {
		t.Errorf("Resume: %v; want a refusal naming %s", err, leftover)
	}
	if _, err := os.Stat(leftover); err != nil {
		t.Errorf("Resume removed %s: %v", leftover, err)
	}
}
