package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestWritersNeverTouchUsersFiles runs every command that writes (collect,
// import, analyze -o, report, plot, init) over random trees of a user's
// files, captures and pgstudy outputs nested in each other, with outputs
// named anywhere in the tree, and checks after each that no byte of a
// user's file or of a capture changed, and that nothing of theirs went. A
// command may refuse or succeed; it may replace only an output it wrote.
func TestWritersNeverTouchUsersFiles(t *testing.T) {
	pg := pgtest.Start(t, 17)
	templates := t.TempDir()
	report := filepath.Join(templates, "report")
	if code, _, stderr := runInProcess("report", "-o", report, "--quiet"); code != exitOK {
		t.Fatalf("report: %s", stderr)
	}
	analysis := filepath.Join(templates, "analysis")
	if code, _, stderr := runInProcess("analyze", sampleCapture, "--format", "csv", "-o", analysis); code != exitOK {
		t.Fatalf("analyze: %s", stderr)
	}
	manifest := importFolder(t, 3, 512)
	study := quickStudy(t, pg, 1, "")

	rng := rand.New(rand.NewPCG(7, 8))
	const trees, perTree = 8, 12
	var ran, refused int
	for tree := range trees {
		root := t.TempDir()
		g := &treeGen{rng: rng, t: t, report: report, analysis: analysis}
		g.fill(root, 0)
		for range perTree {
			target := g.target(root)
			args := g.command(target, manifest, study)
			before := g.protected(root)
			code, _, stderr := runInProcess(args...)
			if code == exitOK {
				ran++
			} else {
				refused++
			}
			after := g.protected(root)
			for path := range after {
				if _, ok := before[path]; !ok && g.inCapture(path) {
					t.Errorf("tree %d: pgstudy %s wrote %s inside a capture (exit %d: %s)", tree, strings.Join(args, " "), path, code, lastLine(stderr))
				}
			}
			for path, sum := range before {
				if got, ok := after[path]; !ok {
					t.Errorf("tree %d: pgstudy %s removed %s (exit %d: %s)", tree, strings.Join(args, " "), path, code, lastLine(stderr))
				} else if got != sum {
					t.Errorf("tree %d: pgstudy %s changed %s (exit %d: %s)", tree, strings.Join(args, " "), path, code, lastLine(stderr))
				}
			}
			if strings.Contains(stderr, "panic") {
				t.Errorf("tree %d: pgstudy %s: %s", tree, strings.Join(args, " "), stderr)
			}
		}
	}
	t.Logf("%d commands over %d trees: %d wrote, %d refused", trees*perTree, trees, ran, refused)
	if ran < trees*perTree/10 || refused < trees*perTree/10 {
		t.Errorf("%d wrote and %d refused: the trees do not try both", ran, refused)
	}
}

// sampleCapture is the embedded sample's capture in the source tree.
const sampleCapture = "../../samples/example/capture"

// treeGen makes a random tree and remembers what in it is the user's.
type treeGen struct {
	rng              *rand.Rand
	t                *testing.T
	report, analysis string   // outputs pgstudy wrote, to copy in
	user             []string // files and folders of the user, and captures
	captures         []string
	dirs             []string
}

// userNames are names a user's files have, several of them names pgstudy
// writes too.
var userNames = []string{"notes.txt", "budget.csv", "report.md", "analysis.json", "analysis.md", "post.md",
	".post.new", ".post.old", ".capture.importing", "mine.svg", "study.yaml", "figures", "tables"}

func (g *treeGen) fill(dir string, depth int) {
	g.dirs = append(g.dirs, dir)
	for range 2 + g.rng.IntN(4) {
		name := userNames[g.rng.IntN(len(userNames))] + fmt.Sprint(g.rng.IntN(3))
		if g.rng.IntN(3) == 0 {
			name = strings.TrimRight(name, "012") // the very names pgstudy writes
		}
		path := filepath.Join(dir, name)
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		switch k := g.rng.IntN(10); {
		case k < 4:
			if err := os.WriteFile(path, []byte("the user's "+name), 0o644); err != nil {
				g.t.Fatal(err)
			}
		case k == 4:
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				g.t.Fatal(err)
			}
		case k == 5:
			g.copy(sampleCapture, path)
			g.captures = append(g.captures, path)
			if depth < 2 && g.rng.IntN(2) == 0 {
				g.fill(path, depth+1) // a user's files inside a capture
			}
			continue
		case k == 6:
			g.copy(g.report, path)
			if g.rng.IntN(2) == 0 {
				g.fill(filepath.Join(path, "figures"), depth+1) // a user's files in a report
			}
			continue
		case k == 7:
			g.copy(g.analysis, path)
			continue
		default:
			if depth < 3 {
				if err := os.Mkdir(path, 0o755); err != nil {
					g.t.Fatal(err)
				}
				g.fill(path, depth+1)
			}
			continue
		}
		g.user = append(g.user, path)
	}
}

// copy copies a folder.
func (g *treeGen) copy(from, to string) {
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		g.t.Fatal(err)
	}
}

// target is where a command writes: any file or folder of the tree, or a
// new name in any folder of it.
func (g *treeGen) target(root string) string {
	var all []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != root {
			all = append(all, p)
		}
		return nil
	})
	if len(all) == 0 || g.rng.IntN(3) == 0 {
		return filepath.Join(g.dirs[g.rng.IntN(len(g.dirs))], "out"+fmt.Sprint(g.rng.IntN(3)))
	}
	return all[g.rng.IntN(len(all))]
}

// command is a writing command with its output at target.
func (g *treeGen) command(target, manifest, study string) []string {
	input := sampleCapture
	if len(g.captures) > 0 && g.rng.IntN(4) > 0 {
		input = g.captures[g.rng.IntN(len(g.captures))]
	}
	switch g.rng.IntN(8) {
	case 0:
		return []string{"report", input, "-o", target, "--quiet"}
	case 1:
		return []string{"report", "-o", target, "--quiet"}
	case 2:
		return []string{"analyze", input, "--format", "csv", "-o", target}
	case 3:
		return []string{"analyze", input, "--format", "json", "-o", target}
	case 4:
		return []string{"plot", input, "-o", target, "--quiet"}
	case 5:
		return []string{"import", manifest, "-o", target}
	case 6:
		return []string{"init", target}
	default:
		resume := []string{}
		if g.rng.IntN(2) == 0 {
			resume = []string{"--resume"}
		}
		return append([]string{"collect", study, "-o", target, "--quiet"}, resume...)
	}
}

// inCapture reports whether path is inside one of the tree's captures.
func (g *treeGen) inCapture(path string) bool {
	for _, c := range g.captures {
		if strings.HasPrefix(path, c+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// protected is a hash of every file of the user and of every capture,
// under root, by path.
func (g *treeGen) protected(root string) map[string]string {
	sums := map[string]string{}
	for _, top := range append(slices.Clone(g.user), g.captures...) {
		filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			switch {
			case d.IsDir() && p != top:
				sums[p] = "folder"
			case d.Type()&fs.ModeNamedPipe != 0:
				sums[p] = "fifo"
			case d.Type().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					g.t.Fatal(err)
				}
				h := sha256.Sum256(b)
				sums[p] = hex.EncodeToString(h[:])
			}
			return nil
		})
	}
	return sums
}

// TestInitThroughHardLink: init --force over a name that is a hard link to
// a capture's part replaces the name, and the part keeps its bytes.
func TestInitThroughHardLink(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "r000001.parquet")
	os.WriteFile(part, []byte("a part"), 0o644)
	link := filepath.Join(dir, "study.yaml")
	if err := os.Link(part, link); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runInProcess("init", link); code != exitUsage || !strings.Contains(stderr, "exists; use --force") {
		t.Errorf("init over an existing name: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runInProcess("init", "--force", link); code != exitOK {
		t.Fatalf("init --force: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(part); string(b) != "a part" {
		t.Errorf("the other name of the file now holds %q", b)
	}
	if b, _ := os.ReadFile(link); !strings.Contains(string(b), "configs:") {
		t.Errorf("study.yaml holds %.40q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("init left %v", entries)
	}
}
