package main

import (
	"github.com/pgstudy/pgstudy/parse"

	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// TestImportLatin1: psql output in LATIN1 (real PostgreSQL 15 output with
// client_encoding LATIN1, parse/internal/foreign/testdata) imports into a capture
// DuckDB reads whole: the text with U+FFFD in place of the invalid bytes,
// the file's bytes exactly in raw_bytes, the user told, and the run's time
// still read. Before, the part held the bytes as they were and DuckDB
// refused it ("Invalid string encoding found in Parquet file").
func TestImportLatin1(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("../../parse/internal/foreign/testdata/pg15-latin1.psql.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "caf\xe9 cr\xe8me") {
		t.Fatal("the fixture is not the LATIN1 output it should be: run its capture.sh")
	}
	os.WriteFile(filepath.Join(dir, "run.txt"), raw, 0o644)
	os.WriteFile(filepath.Join(dir, "m.csv"), []byte("round,position,config,test,kind,path\n1,1,a,dish,psql,run.txt\n"), 0o644)
	out := filepath.Join(dir, "capture")
	code, _, stderr := runInProcess("import", filepath.Join(dir, "m.csv"), "-o", out)
	if code != exitOK {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "run 1: outputs.text held bytes that are not UTF-8") {
		t.Errorf("the user is not told of the bytes: %s", stderr)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	outs := mustRead[samples.Output](t, r)
	if len(outs) != 1 || !strings.Contains(outs[0].Text, "caf\uFFFD cr\uFFFDme") || outs[0].Text != strings.ToValidUTF8(string(raw), "\uFFFD") {
		t.Errorf("outputs: %+v", outs)
	}
	raws := mustRead[samples.RawBytes](t, r)
	var found bool
	for _, rb := range raws {
		b, err := base64.StdEncoding.DecodeString(rb.Base64)
		if rb.Table == "outputs" && rb.Column == "text" && rb.RunID == 1 && rb.Row == 0 && err == nil && string(b) == string(raw) {
			found = true
		}
	}
	if !found {
		t.Errorf("raw_bytes does not hold the file's bytes: %+v", raws)
	}
	duck := pgtest.DuckDBCounts(t, out, "outputs", "raw_bytes", "capture", "runs", "steps", "statements")
	if duck["outputs"] != 1 || duck["raw_bytes"] != len(raws) || duck["runs"] != 1 {
		t.Errorf("DuckDB read %v", duck)
	}
	code, stdout, stderr := runInProcess("analyze", out, "--format", "csv", "--table", "timings")
	if code != exitOK || !strings.Contains(stdout, "dish") {
		t.Errorf("analyze: exit %d: %s\n%s", code, stderr, stdout)
	}
	// raw_bytes is checked as every table is: a copy of its part is refused.
	part := filepath.Join(out, "raw_bytes", "r000001.parquet")
	data, _ := os.ReadFile(part)
	os.WriteFile(filepath.Join(out, "raw_bytes", "r000001 (1).parquet"), data, 0o644)
	if code, _, stderr := runInProcess("check", out); code == exitOK || !strings.Contains(stderr, "r000001 (1).parquet is not a part pgstudy writes") {
		t.Errorf("check with a copied raw_bytes part: exit %d: %s", code, stderr)
	}
}

// TestTerminalSafe: what pgstudy prints of a user's file cannot drive the
// terminal (an attacker's manifest path cleared the screen).
func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"m.csv:2: \x1b[2Jx\a.txt: no such file": `m.csv:2: \x1b[2Jx\x07.txt: no such file`,
		"line one\nline\ttwo, café":             "line one\nline\ttwo, café",
		"csi \u009b31m":                         `csi \x9b31m`,
	} {
		if got := terminalSafe(in); got != want {
			t.Errorf("terminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOneLine: a warning stays one line of standard error whatever its
// file's name holds (a newline split it in two).
func TestOneLine(t *testing.T) {
	in := parse.Warning{Source: "a\nb.txt", Line: 1, Msg: "not a line", Text: "x\x1b"}
	if got, want := oneLine(in.String()), `a\nb.txt:1: not a line: "x\x1b"`; got != want {
		t.Errorf("oneLine = %q, want %q", got, want)
	}
}
