package outdir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeReport writes what a report folder holds.
func writeReport(text string) func(string) error {
	return func(tmp string) error {
		if err := os.MkdirAll(filepath.Join(tmp, "figures"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, "report.md"), []byte(text), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "figures", "a.svg"), []byte("<svg/>"), 0o644)
	}
}

func put(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReplace: a new folder, then the same folder again (the record says
// what was there), then refusals that leave every file as it was.
func TestReplace(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "post")
	files, notes, err := Replace(dir, Report, nil, writeReport("one"))
	if err != nil || len(notes) != 0 {
		t.Fatal(err, notes)
	}
	if !slices.Equal(files, []string{filepath.Join("figures", "a.svg"), "report.md"}) {
		t.Errorf("files %v", files)
	}
	if _, _, err := Replace(dir, Report, nil, writeReport("two")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "report.md")); got != "two" {
		t.Errorf("report.md %q after the second report", got)
	}
	if l := Leftovers(dir); len(l) != 0 {
		t.Errorf("left %v", l)
	}

	cases := []struct {
		name, want string
		plant      func()
		undo       func()
	}{
		{"a user's file at the top", "holds notes.txt, which pgstudy did not write",
			func() { put(t, filepath.Join(dir, "notes.txt"), "mine") }, func() { os.Remove(filepath.Join(dir, "notes.txt")) }},
		{"a user's file in a sub-folder", "holds figures/mine.svg, which pgstudy did not write",
			func() { put(t, filepath.Join(dir, "figures", "mine.svg"), "mine") }, func() { os.Remove(filepath.Join(dir, "figures", "mine.svg")) }},
		{"an edited report", "report.md was changed since pgstudy wrote it",
			func() { put(t, filepath.Join(dir, "report.md"), "two, edited") }, func() { put(t, filepath.Join(dir, "report.md"), "two") }},
		{"a capture inside", "holds cap/capture/part.parquet",
			func() {
				put(t, filepath.Join(dir, "cap", "capture", "part.parquet"), "x")
				os.MkdirAll(filepath.Join(dir, "cap", "runs"), 0o755)
			},
			func() { os.RemoveAll(filepath.Join(dir, "cap")) }},
		{"a symbolic link", "holds link, which pgstudy did not write",
			func() { os.Symlink("/etc/passwd", filepath.Join(dir, "link")) }, func() { os.Remove(filepath.Join(dir, "link")) }},
		{"a FIFO", "holds fifo, which pgstudy did not write",
			func() { mkfifo(filepath.Join(dir, "fifo")) }, func() { os.Remove(filepath.Join(dir, "fifo")) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.plant()
			defer c.undo()
			before := tree(t, root)
			_, _, err := Replace(dir, Report, nil, writeReport("three"))
			var r *refusal
			if !errors.As(err, &r) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want a refusal saying %q", err, c.want)
			}
			if after := tree(t, root); after != before {
				t.Errorf("the tree changed:\n%s\nto\n%s", before, after)
			}
		})
	}
	// A record that lists a path outside, or a file that is not there.
	for name, edit := range map[string]func(*record){
		"outside": func(r *record) { r.Files = append(r.Files, entry{Path: "../thesis.txt"}) },
		"missing": func(r *record) { r.Files = append(r.Files, entry{Path: "gone.svg", Size: 1}) },
	} {
		rec, err := readRecord(dir)
		if err != nil {
			t.Fatal(err)
		}
		orig, _ := os.ReadFile(filepath.Join(dir, recordName))
		edit(rec)
		b, _ := json.Marshal(rec)
		os.WriteFile(filepath.Join(dir, recordName), b, 0o644)
		if _, _, err := Replace(dir, Report, nil, writeReport("x")); err == nil {
			t.Errorf("a record with a file %s was taken", name)
		}
		os.WriteFile(filepath.Join(dir, recordName), orig, 0o644)
	}
	// Another kind of output.
	if _, _, err := Replace(dir, Analysis, nil, writeReport("x")); err == nil || !strings.Contains(err.Error(), "is a pgstudy report folder, not a analysis one") {
		t.Errorf("analysis over a report: %v", err)
	}
}

// TestRefusedPlaces: a file, a folder of someone else's files, a place
// inside a capture or an output, an output over or around its input.
func TestRefusedPlaces(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "notes.txt")
	put(t, file, "mine")
	other := filepath.Join(root, "d")
	put(t, filepath.Join(other, "budget.csv"), "1,2")
	capture := filepath.Join(root, "post", "figures")
	put(t, filepath.Join(capture, "capture", "p.parquet"), "x")
	put(t, filepath.Join(capture, "runs", "p.parquet"), "x")
	report := filepath.Join(root, "rep")
	if _, _, err := Replace(report, Report, nil, writeReport("r")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir string
		inputs    []string
		want      string
	}{
		{"a file", file, nil, "exists and is not a folder"},
		{"someone else's files", other, nil, "holds budget.csv and no record of what pgstudy wrote there"},
		{"inside a capture", filepath.Join(capture, "out"), nil, "is inside the capture"},
		{"inside an output", filepath.Join(report, "figures", "more"), nil, "is inside " + report},
		{"around its input", filepath.Join(root, "post"), []string{capture}, "holds " + capture + ", which is read"},
		{"its input", capture, []string{capture}, "which is read"},
		{"its input by another name", filepath.Join(root, "post", ".", "figures"), []string{capture}, "which is read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := tree(t, root)
			_, _, err := Replace(c.dir, Report, c.inputs, writeReport("x"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			if after := tree(t, root); after != before {
				t.Errorf("the tree changed:\n%s\nto\n%s", before, after)
			}
		})
	}
}

// TestEmptyName: an empty folder name (an unset variable in -o "$OUT") is
// refused, and the current folder, which it would have named, is left as
// it was (it was moved aside, with exit 0, when "" was taken for a
// folder that does not exist).
func TestEmptyName(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "thesis.txt"), "mine")
	t.Chdir(root)
	before := tree(t, root)
	_, _, err := Replace("", Report, nil, writeReport("x"))
	if err == nil || !strings.Contains(err.Error(), "is an empty name") {
		t.Fatalf("err %v, want a refusal of the empty name", err)
	}
	if after := tree(t, root); after != before {
		t.Errorf("the current folder changed:\n%s\nto\n%s", before, after)
	}
}

// TestCapturePlace: collect and import write a capture only into a new or
// empty folder, and resume only a capture.
func TestCapturePlace(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "notes.txt"), "x")
	put(t, filepath.Join(root, "full", "a"), "x")
	capture := filepath.Join(root, "cap")
	os.MkdirAll(filepath.Join(capture, "capture"), 0o755)
	os.MkdirAll(filepath.Join(capture, "runs"), 0o755)
	os.MkdirAll(filepath.Join(root, "empty"), 0o755)
	if err := os.Symlink("empty", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir    string
		resume bool
		want   string
	}{
		{"link", false, "is a symbolic link: pgstudy writes only into a real folder"},
		{"new", false, ""},
		{"empty", false, ""},
		{"cap", true, ""},
		{"notes.txt", false, "exists and is not a folder (it is a regular file)"},
		{"full", false, "holds a; name a new or empty folder"},
		{"cap", false, "is a capture already (carry it on with --resume)"},
		{"full", true, "is not a capture"},
		{"new", true, "does not exist"},
		{"cap/runs/inner", false, "is inside the capture"},
	} {
		err := CheckCapturePlace(filepath.Join(root, c.dir), c.resume, "carry it on with --resume")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s (resume %v): %v, want %q", c.dir, c.resume, err, c.want)
		}
	}
}

// TestLeftovers: a temporary sibling a killed pgstudy left is named, not
// removed.
func TestLeftovers(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "post")
	stale := filepath.Join(root, ".post.pgstudy-new-123")
	put(t, filepath.Join(stale, "keep"), "x")
	theirs := filepath.Join(root, ".post.new")
	put(t, filepath.Join(theirs, "keep"), "x")
	_, notes, err := Replace(dir, Report, nil, writeReport("r"))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], stale) {
		t.Errorf("notes %q", notes)
	}
	for _, p := range []string{stale, theirs} {
		if read(t, filepath.Join(p, "keep")) != "x" {
			t.Errorf("%s touched", p)
		}
	}
}

// TestWriteFails: a write that fails leaves the earlier folder as it was
// and no temporary folder.
func TestWriteFails(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "post")
	if _, _, err := Replace(dir, Report, nil, writeReport("r")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	_, _, err := Replace(dir, Report, nil, func(tmp string) error {
		writeReport("half")(tmp)
		return errors.New("disk full")
	})
	if err == nil || err.Error() != "disk full" {
		t.Fatal(err)
	}
	if after := tree(t, root); after != before {
		t.Errorf("the tree changed:\n%s\nto\n%s", before, after)
	}
}

// tree is every path under root with its content.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		b.WriteString(rel)
		if d.Type().IsRegular() {
			b.WriteString(" = " + read(t, path))
		} else if d.Type()&os.ModeSymlink != 0 {
			l, _ := os.Readlink(path)
			b.WriteString(" -> " + l)
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// TestLeftoverNotes: a previous output kept aside (it held a file pgstudy
// did not write) is not called a stopped pgstudy's temporary folder.
func TestLeftoverNotes(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "post")
	for _, name := range []string{".post.pgstudy-old-k3x9", ".post.pgstudy-importing-77a"} {
		if err := os.Mkdir(filepath.Join(parent, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	notes := LeftoverNotes(out)
	if len(notes) != 2 {
		t.Fatalf("notes %q", notes)
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{
		".post.pgstudy-old-k3x9 is a previous post that an earlier pgstudy kept, because it held files pgstudy did not write",
		".post.pgstudy-importing-77a is left from an earlier pgstudy that was stopped",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q in %q", want, notes)
		}
	}
}
