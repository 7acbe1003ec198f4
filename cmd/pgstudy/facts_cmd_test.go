package main

import (
	"os"
	"path/filepath"
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
