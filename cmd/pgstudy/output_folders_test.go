package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFolders: report and analyze -o replace their folder whole. A
// second report leaves no figure of the first that it does not have; a
// folder holding someone else's file is refused untouched; a full disk
// leaves nothing behind, and an earlier report as it was.
func TestOutputFolders(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report")
	if code, _, stderr := runInProcess("report", "-o", report, "--quiet"); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	before, _ := filepath.Glob(filepath.Join(report, "figures", "*-bitmap.svg"))
	if len(before) == 0 {
		t.Fatal("the sample's report has no figure of the bitmap test")
	}
	if code, _, stderr := runInProcess("report", "-o", report, "--quiet", "--exclude", "test=bitmap"); code != exitOK {
		t.Fatalf("report without bitmap: exit %d: %s", code, stderr)
	}
	if after, _ := filepath.Glob(filepath.Join(report, "figures", "*-bitmap.*")); len(after) != 0 {
		t.Errorf("figures of an excluded test left from the report before: %v", after)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("beside the report: %v", entries)
	}

	// Someone else's folder.
	mine := filepath.Join(dir, "mine")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "post.md"), []byte("my post\n"), 0o644)
	for _, args := range [][]string{{"report", "-o", mine}, {"analyze", "../../samples/example/capture", "-o", mine}} {
		code, _, stderr := runInProcess(args...)
		if code == exitOK || !strings.Contains(stderr, "holds post.md and no record of what pgstudy wrote there") {
			t.Errorf("%s into a folder of someone else's: exit %d: %s", args[0], code, stderr)
		}
		if entries, _ := os.ReadDir(mine); len(entries) != 1 {
			t.Errorf("%s changed a folder it refused: %v", args[0], entries)
		}
	}

	// A full disk: room for one report (about 1.2 MiB, its SVGs' texts as
	// outlines) and not two. The second fails, leaves nothing
	// half-written, and the first as it was.
	disk := smallDisk(t, "1800k")
	small := filepath.Join(disk, "report")
	if code, _, stderr := runInProcess("report", "-o", small, "--quiet"); code != exitOK {
		t.Fatalf("first report on the small disk: exit %d: %s", code, stderr)
	}
	first := treeHash(t, small)
	code, _, stderr := runInProcess("report", "-o", small, "--quiet")
	if code != exitError || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("report on a full disk: exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(disk); len(entries) != 1 {
		t.Errorf("a report that failed left %v", entries)
	}
	if treeHash(t, small) != first {
		t.Error("a report that failed changed the report before it")
	}
	t.Logf("report on a full disk: %s", lastLine(stderr))
}

// treeHash is a hash of every file's path and bytes under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		n++
		return err
	})
	if err != nil || n == 0 {
		t.Fatalf("hash %s: %v (%d files)", dir, err, n)
	}
	return hex.EncodeToString(h.Sum(nil))
}
