package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAnalyzeInterrupted: Ctrl-C stops an analysis at once, while it
// computes a capture's facts, with exit 130: no output folder, no facts
// stored, nothing of the capture changed.
func TestAnalyzeInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	gencapture(t, dir, "-runs", "15000", "-runs-per-part", "150", "-no-facts")
	before := countFiles(t, dir)
	out := filepath.Join(t.TempDir(), "out")
	p := &collectProc{cmd: pgstudy("analyze", dir, "-o", out), stderr: &output{last: time.Now()}}
	p.cmd.Stderr = p.stderr
	p.exited = start(t, p.cmd)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(p.stderr.String(), "computing the facts"); {
		if time.Now().After(deadline) {
			t.Fatalf("the analysis did not start computing facts within a minute: %s", p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	signalled := time.Now()
	p.cmd.Process.Signal(syscall.SIGINT)
	code, stderr := p.wait(t)
	if code != exitInterrupted || !strings.Contains(stderr, "pgstudy: interrupted") {
		t.Fatalf("exit %d, want %d and a word of it:\n%s", code, exitInterrupted, stderr)
	}
	if d := time.Since(signalled); d > 2*time.Second || strings.Contains(stderr, "stored the facts") {
		t.Fatalf("the analysis went on for %s after the signal:\n%s", d, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the output folder exists (%v)", err)
	}
	if after := countFiles(t, dir); after != before {
		t.Errorf("the capture holds %d files, %d before", after, before)
	}
}

// TestAnalyzeOutputRefusedFirst: an output folder inside the capture is
// refused before any facts are computed or stored.
func TestAnalyzeOutputRefusedFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	gencapture(t, dir, "-runs", "50", "-no-facts")
	before := countFiles(t, dir)
	cmd := pgstudy("analyze", dir, "-o", filepath.Join(dir, "out")) // a process: the notes go to its stderr
	b, err := cmd.CombinedOutput()
	code, stderr := cmd.ProcessState.ExitCode(), string(b)
	if err == nil || !strings.Contains(stderr, "is inside the capture") || strings.Contains(stderr, "computing the facts") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if after := countFiles(t, dir); after != before {
		t.Errorf("the capture holds %d files, %d before", after, before)
	}
}

// TestFactsDiskFull: when the capture's file system refuses a file while
// the facts are stored (a tmpfs out of inodes, a real ENOSPC: its bytes
// are plenty, so the headroom check lets the store start), the analysis
// still succeeds with its output whole, says how far the store went and
// why, leaves no temporary file and nothing of the raw capture changed;
// the next analysis computes only the parts whose facts were not stored,
// and every analysis says the same.
func TestFactsDiskFull(t *testing.T) {
	disk := smallDisk(t, "256m")
	for _, spare := range []int{1, 6} { // no fact part whole; two of four
		dir := filepath.Join(disk, fmt.Sprintf("capture-%d", spare))
		gencapture(t, dir, "-runs", "200", "-runs-per-part", "50", "-no-facts")
		raw := rawFiles(t, dir)
		limitInodes(t, disk, spare)
		code, first, stderr := analyzeProcess(t, dir)
		limitInodes(t, disk, -1)
		if code != 0 || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "the next analysis computes the others again") {
			t.Fatalf("%d spare inodes: exit %d:\n%s", spare, code, stderr)
		}
		if got := rawFiles(t, dir); !reflect.DeepEqual(got, raw) {
			t.Errorf("%d spare inodes: the raw capture changed:\n got %v\nwant %v", spare, got, raw)
		}
		code, second, stderr := analyzeProcess(t, dir)
		if code != 0 || second != first || !strings.Contains(stderr, "stored the facts of") {
			t.Fatalf("%d spare inodes, then room: exit %d, same output %v:\n%s", spare, code, second == first, stderr)
		}
		if spare == 6 && !strings.Contains(stderr, "computing the facts of 2 of its 4 parts") {
			t.Errorf("%d spare inodes, then room: the facts stored are not read:\n%s", spare, stderr)
		}
		code, third, stderr := analyzeProcess(t, dir)
		if code != 0 || third != first || strings.Contains(stderr, "computing the facts") {
			t.Errorf("the third analysis: exit %d, same output %v:\n%s", code, third == first, stderr)
		}
	}
	// A file system with less free than the headroom: nothing is tried.
	dir := filepath.Join(smallDisk(t, "16m"), "capture")
	gencapture(t, dir, "-runs", "200", "-runs-per-part", "50", "-no-facts")
	before := countFiles(t, dir)
	code, _, stderr := analyzeProcess(t, dir)
	if code != 0 || !strings.Contains(stderr, "pgstudy leaves 64 MiB free") || countFiles(t, dir) != before {
		t.Errorf("a 16 MiB file system: exit %d, %d files of %d:\n%s", code, countFiles(t, dir), before, stderr)
	}
}

// analyzeProcess runs analyze of dir as a process, whose notes go to
// its standard error, and returns its exit, its JSON and its notes.
func analyzeProcess(t *testing.T, dir string) (int, string, string) {
	t.Helper()
	var stdout, stderr strings.Builder
	cmd := pgstudy("analyze", dir, "--format", "json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// rawFiles lists the capture's files but its facts, with their sizes and
// times, and fails on a temporary file anywhere in it.
func rawFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(path, ".tmp") {
			t.Errorf("a temporary file is left: %s", path)
		}
		if rel, _ := filepath.Rel(dir, path); !strings.Contains(filepath.Dir(rel), "facts") {
			info, err := d.Info()
			if err != nil {
				return err
			}
			files[rel] = fmt.Sprint(info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// limitInodes lets the tmpfs at dir hold spare files more than it holds
// now, or, for spare < 0, plenty.
func limitInodes(t *testing.T, dir string, spare int) {
	t.Helper()
	n := uint64(1 << 20)
	if spare >= 0 {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		n = st.Files - st.Ffree + uint64(spare)
	}
	if out, err := exec.Command("mount", "-o", fmt.Sprintf("remount,nr_inodes=%d", n), dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s with %d inodes: %v: %s", dir, n, err, out)
	}
}
