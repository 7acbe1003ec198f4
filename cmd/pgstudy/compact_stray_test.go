package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// strayCapture is a generated capture of 40 runs, a maker of copies of
// it, and the check that compact refuses a copy naming part, with
// nothing changed.
func strayCapture(t *testing.T) (orig string, copyOf func() string, refused func(name, dir, part string)) {
	orig = filepath.Join(t.TempDir(), "c")
	gencapture(t, orig, "-runs", "40", "-samples", "2")
	copyOf = func() string {
		dir := filepath.Join(t.TempDir(), "c")
		if err := os.CopyFS(dir, os.DirFS(orig)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	refused = func(name, dir, part string) {
		t.Helper()
		compactRefused(t, name, dir, part)
	}
	return orig, copyOf, refused
}

// TestCompactRefusesStrayParts: parts of runs that runs/ does not hold,
// where no interruption of pgstudy's leaves them (a copy cut short in
// the order rsync copies, runs/ only half there; a part put back into a
// compacted capture), are refused with nothing changed, not removed as
// leftovers; so is a capture missing a part its facts say was there.
func TestCompactRefusesStrayParts(t *testing.T) {
	orig, copyOf, refused := strayCapture(t)
	// A copy cut short: runs/ holds runs 1-20 only.
	cut := copyOf()
	for r := 21; r <= 40; r++ {
		if err := os.Remove(filepath.Join(cut, "runs", fmt.Sprintf("r%06d.parquet", r))); err != nil {
			t.Fatal(err)
		}
	}
	refused("runs/ cut short", cut, "r000021.parquet")

	// A part lost in a copy (diskstats of run 20), or a copy cut short
	// after runs/ (diskstats of runs 21-40 not there yet): compacting
	// would make the loss for good, as those rows could no longer be
	// merged in. The facts stored with each run say the part was there.
	lost := copyOf()
	os.Remove(filepath.Join(lost, "diskstats", "r000020.parquet"))
	lostPart(t, lost, filepath.Join("diskstats", "r000020.parquet"))
	late := copyOf()
	for r := 21; r <= 40; r++ {
		os.Remove(filepath.Join(late, "diskstats", fmt.Sprintf("r%06d.parquet", r)))
	}
	lostPart(t, late, filepath.Join("diskstats", "r000021.parquet"))

	// A part put back beside the compacted one that holds its run.
	back := copyOf()
	if code, _, stderr := runInProcess("compact", back); code != 0 {
		t.Fatalf("compact: exit %d: %s", code, stderr)
	}
	putBack(t, orig, back, []string{"diskstats"}, 20, 20)
	refused("a part put back", back, filepath.Join("diskstats", "r000020.parquet"))
}

// lostPart: compact refuses dir, naming its missing part, with nothing
// changed.
func lostPart(t *testing.T, dir, part string) {
	t.Helper()
	compactRefused(t, part, dir, part+" is missing, though the facts stored with its runs say it was there")
}

// compactRefused: compact refuses dir, its message saying each of wants
// and that nothing was changed, and the files are as many as before.
func compactRefused(t *testing.T, name, dir string, wants ...string) {
	t.Helper()
	before := countFiles(t, dir)
	code, _, stderr := runInProcess("compact", dir)
	ok := code == exitError && strings.Contains(stderr, "nothing was changed")
	for _, w := range wants {
		ok = ok && strings.Contains(stderr, w)
	}
	if !ok {
		t.Errorf("%s: exit %d, %q; want a refusal saying %q", name, code, stderr, wants)
	}
	if after := countFiles(t, dir); after != before {
		t.Errorf("%s: %d files before, %d after the refusal", name, before, after)
	}
}

// TestCompactRefusesCopiesOfCompacted: a compacted capture copied in
// part (rsync copies runs/ after the other tables: a group's runs part
// not there yet, or no runs/ at all), or with a runs part of one run put
// back beside the compacted one, is refused with nothing changed: no
// compaction marked those parts as its own (found by an outside tester:
// 11, then 55 files of a copy deleted with exit 0).
func TestCompactRefusesCopiesOfCompacted(t *testing.T) {
	orig, copyOf, refused := strayCapture(t)
	perRun := copyOf()
	if code, _, stderr := runInProcess("compact", orig); code != 0 {
		t.Fatalf("compact: exit %d: %s", code, stderr)
	}
	groups, err := filepath.Glob(filepath.Join(orig, "runs", "r*-*.parquet"))
	if err != nil || len(groups) != 1 {
		t.Fatalf("compacted runs parts %v (%v), want one", groups, err)
	}
	group := filepath.Base(groups[0])

	cut := copyOf()
	if err := os.Remove(filepath.Join(cut, "runs", group)); err != nil {
		t.Fatal(err)
	}
	refused("a group's runs part not copied yet", cut, filepath.Join("disk_facts", group))

	none := copyOf()
	if err := os.RemoveAll(filepath.Join(none, "runs")); err != nil {
		t.Fatal(err)
	}
	refused("no runs/ copied yet", none, group)

	back := copyOf()
	putBack(t, perRun, back, []string{"runs"}, 5, 5)
	refused("a runs part put back", back, filepath.Join("runs", "r000005.parquet"))
}

// TestCompactRunInProgress: the parts of the run after the last committed
// (a run in progress) are removed as leftovers; those of a run further on,
// with a whole run missing before it, are a copy's, and refused.
func TestCompactRunInProgress(t *testing.T) {
	_, copyOf, refused := strayCapture(t)
	// A copy that lost a whole run (39) and runs/ of run 40: run 40's
	// parts are not those of the run in progress, which would be 39.
	gap := copyOf()
	tables, err := os.ReadDir(gap)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		os.Remove(filepath.Join(gap, table.Name(), "r000039.parquet")) // where the table has one
	}
	if err := os.Remove(filepath.Join(gap, "runs", "r000040.parquet")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(gap, "diskstats", "r000039.parquet")); !os.IsNotExist(err) {
		t.Fatalf("run 39's diskstats part: %v", err)
	}
	refused("a whole run lost before the last", gap, filepath.Join("disk_facts", "r000040.parquet"))

	// A run in progress, right after the last committed: its parts are a
	// leftover, removed.
	prog := copyOf()
	if err := os.Remove(filepath.Join(prog, "runs", "r000040.parquet")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runInProcess("compact", prog); code != 0 || !strings.Contains(stdout+stderr, "leftover") {
		t.Errorf("a run in progress: exit %d, %q %q; want its parts removed as leftovers", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(prog, "diskstats", "r000040.parquet")); !os.IsNotExist(err) {
		t.Errorf("a run in progress: its diskstats part %v; want it removed", err)
	}
}

// putBack copies the parts of runs first to last of tables from the
// capture from into the capture to, as a copy finished late does.
func putBack(t *testing.T, from, to string, tables []string, first, last int) {
	t.Helper()
	for r := first; r <= last; r++ {
		for _, table := range tables {
			name := fmt.Sprintf("r%06d.parquet", r)
			b, err := os.ReadFile(filepath.Join(from, table, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, table, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCompactDiskFull: a compaction that runs out of room in its first
// group says it changed nothing, and the capture's files are as they
// were (an outside tester's disk-full refusal did not say so).
func TestCompactDiskFull(t *testing.T) {
	orig := filepath.Join(t.TempDir(), "c")
	gencapture(t, orig, "-runs", "100", "-samples", "4")
	var blocks int64
	filepath.WalkDir(orig, func(p string, d fs.DirEntry, err error) error {
		if info, err2 := d.Info(); err == nil && err2 == nil {
			blocks += (info.Size() + 4095) / 4096
		}
		return nil
	})
	dir := filepath.Join(smallDisk(t, fmt.Sprintf("%dk", 4*blocks+64)), "c")
	if err := os.CopyFS(dir, os.DirFS(orig)); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	code, _, stderr := runInProcess("compact", dir)
	if code != exitError || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "; nothing was changed") {
		t.Errorf("exit %d, %q; want no space left, and nothing changed", code, stderr)
	}
	if treeHash(t, dir) != before {
		t.Error("the capture changed")
	}
}

// TestCompactImportInProgress: in a capture whose parts hold 100 runs
// each (an import's), the part after the last run committed, runs 301-400
// without its runs part, is an import in progress: removed (an outside
// tester found it refused, the last run taken for 201, the last part's
// first).
func TestCompactImportInProgress(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	gencapture(t, dir, "-runs", "400", "-runs-per-part", "100", "-samples", "2")
	if err := os.Remove(filepath.Join(dir, "runs", "r000301.parquet")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("compact", dir)
	if code != 0 || !strings.Contains(stdout+stderr, "leftover files") {
		t.Errorf("exit %d, %q %q; want the part in progress removed", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "diskstats", "r000301.parquet")); !os.IsNotExist(err) {
		t.Errorf("its diskstats part: %v; want it removed", err)
	}
}
