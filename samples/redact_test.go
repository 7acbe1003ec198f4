package samples

import (
	"bytes"
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedact plants a secret in every string column of every table and
// checks that it is nowhere: not in any value read back, and (without
// compression, so that a plain search means something) not in any byte of
// any file of the capture.
func TestRedact(t *testing.T) {
	const secret = "hunter2-Pa55w0rd"
	redact := func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") }
	text := func(col string, i int) string { return col + " password=" + secret + " end" }

	for _, comp := range []Compression{CompressionNone, CompressionZstd} {
		dir := t.TempDir()
		w, err := Create(dir, Options{Redact: redact, Compression: comp})
		if err != nil {
			t.Fatal(err)
		}
		c, hosts := sessionRows(w.CaptureID(), 1, 3, text)
		if err := w.WriteSession(c, hosts); err != nil {
			t.Fatal(err)
		}
		writeCalibrationRows(t, w, text)
		for run := int64(1); run <= 2; run++ {
			if err := w.Commit(fullBatch(w.CaptureID(), 1, run, 4, text)); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()

		got := readAll(t, mustOpen(t, dir))
		for _, tb := range Tables {
			if tb.Name == "raw_bytes" {
				continue // the writer's own rows: see TestRedactRawBytes
			}
			rows := got[tb.Name]
			if rows.Len() == 0 {
				t.Errorf("%s: no rows", tb.Name)
			}
			planted := map[string]bool{}
			eachString(rows, func(col, val string) {
				if strings.Contains(val, secret) {
					t.Errorf("%s.%s holds the secret: %q", tb.Name, col, val)
				}
				if strings.Contains(val, "[redacted]") {
					planted[col] = true
				}
			})
			// Every string column but capture_id and raw_parts (which the
			// writer sets) had the secret planted; each must show that it
			// went through Redact.
			for _, c := range tb.cols {
				if c.kind == kindString && c.name != "capture_id" && c.name != "raw_parts" && !planted[c.name] {
					t.Errorf("%s.%s: no redacted value read back", tb.Name, c.name)
				}
			}
		}

		if comp != CompressionNone {
			continue
		}
		var files int
		err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the secret", path)
			}
			if hasText(filepath.Base(filepath.Dir(path))) && !bytes.Contains(data, []byte("[redacted]")) {
				t.Errorf("%s: no redacted text in an uncompressed part", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if files != 3+2*(len(Tables)-4) { // the session's capture, host and calibrations; each run's others
			t.Errorf("%d files", files)
		}
	}
}

// hasText says whether a table has a string column besides capture_id
// and raw_parts, which the writer sets (run_facts has none: nothing of it
// can hold a secret).
func hasText(table string) bool {
	for _, c := range tableNamed(table).cols {
		if c.kind == kindString && c.name != "capture_id" && c.name != "raw_parts" {
			return true
		}
	}
	return false
}

// TestRedactControl shows the search in TestRedact would find the secret if
// it were written: without Redact it is in the uncompressed files.
func TestRedactControl(t *testing.T) {
	const secret = "hunter2-Pa55w0rd"
	w, dir := mustCreate(t, Options{Compression: CompressionNone})
	if err := w.Commit(&Batch{Run: Run{RunID: 1, Error: "password=" + secret}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs", "r000001.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(secret)) {
		t.Fatal("an unredacted secret is not visible in an uncompressed part")
	}
}

// TestRedactRawBytes: the original bytes of a value that is not UTF-8 are
// redacted before they are kept.
func TestRedactRawBytes(t *testing.T) {
	const secret = "hunter2-s3cr3t"
	dir := t.TempDir()
	var notes []string
	w, err := Create(dir, Options{Redact: func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") },
		Compression: CompressionNone, Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	c, hosts := sessionRows(w.CaptureID(), 1, 1, nil)
	if err := w.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}
	b := &Batch{Run: Run{RunID: 1, Status: "ok"}, Outputs: []Output{{Text: "caf\xe9 " + secret}, {Text: "fine"}, {Text: "\xff"}}}
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b.Outputs[0].Text != "caf\xe9 "+secret {
		t.Errorf("the caller's row was changed: %q", b.Outputs[0].Text)
	}
	r := mustOpen(t, dir)
	all, err := Read[RawBytes](r)
	if err != nil {
		t.Fatal(err)
	}
	var raws []RawBytes // the run's; sessionRows plants bytes in the session's too
	for _, raw := range all {
		if raw.RunID == 1 {
			raws = append(raws, raw)
		}
	}
	if len(all) == len(raws) || all[0].RunID != 0 {
		t.Errorf("no raw_bytes rows of the session: %+v", all)
	}
	if len(raws) != 2 || raws[0].Row != 0 || raws[1].Row != 2 || raws[0].Table != "outputs" || raws[0].Column != "text" || raws[0].RunID != 1 {
		t.Fatalf("raw_bytes %+v", raws)
	}
	orig, _ := base64.StdEncoding.DecodeString(raws[0].Base64)
	if string(orig) != "caf\xe9 [redacted]" {
		t.Errorf("raw bytes %q", orig)
	}
	outs, _ := Read[Output](r)
	if outs[0].Text != "caf\uFFFD [redacted]" || outs[2].Text != "\uFFFD" {
		t.Errorf("outputs %q %q", outs[0].Text, outs[2].Text)
	}
	var runNotes []string
	for _, n := range notes {
		if strings.HasPrefix(n, "run ") {
			runNotes = append(runNotes, n)
		}
	}
	if len(runNotes) != 1 || !strings.Contains(runNotes[0], "run 1: outputs.text held bytes that are not UTF-8") || !strings.Contains(runNotes[0], "raw_bytes") {
		t.Errorf("notes %q", notes)
	}
}

// writeCalibrationRows writes a session's calibrations twice, the second
// call writing the session's part again.
func writeCalibrationRows(t *testing.T, w *Writer, text func(string, int) string) {
	t.Helper()
	cals := fillSlice(tableNamed("calibrations"), 3, text).Interface().([]Calibration)
	for _, rows := range [][]Calibration{cals[:1], cals[1:]} {
		if err := w.WriteCalibrations(rows); err != nil {
			t.Fatal(err)
		}
	}
}
