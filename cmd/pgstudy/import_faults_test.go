package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/outdir"
)

// importFolder writes n files of size bytes of text that does not
// compress (psql outputs, to an import), with their manifest.
func importFolder(t *testing.T, n, size int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	manifest := []string{"round,position,config,test,kind,path"}
	buf := make([]byte, size)
	for i := range n {
		for j := range buf {
			buf[j] = byte('a' + rng.IntN(26))
		}
		name := fmt.Sprintf("r%d.out", i+1)
		if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
			t.Fatal(err)
		}
		manifest = append(manifest, fmt.Sprintf("%d,,a,t,psql,%s", i+1, name))
	}
	m := filepath.Join(dir, "manifest.csv")
	os.WriteFile(m, []byte(strings.Join(manifest, "\n")+"\n"), 0o644)
	return m
}

// TestImportFaults: an import that fails on a full disk, or is killed,
// leaves no capture behind (not one that lacks runs); run again, it
// imports everything, and names (never removes) the temporary folders the
// killed imports left.
func TestImportFaults(t *testing.T) {
	t.Run("disk full", func(t *testing.T) {
		disk := smallDisk(t, "1m") // the files hold 2.5 MiB; Parquet's zstd makes them about 1.5
		manifest := importFolder(t, 40, 64<<10)
		out := filepath.Join(disk, "capture")
		code, stdout, stderr := runInProcess("import", manifest, "-o", out)
		if code != exitError || !strings.Contains(stderr, "no space left on device") || strings.Contains(stderr, "unknown error type") {
			t.Fatalf("import on a full disk: exit %d, want %d and \"no space left on device\":\n%s%s", code, exitError, stdout, stderr)
		}
		if entries, _ := os.ReadDir(disk); len(entries) != 0 {
			t.Errorf("a failed import left %v on the disk", entries)
		}
		t.Logf("disk full: %s", lastLine(stderr))
	})
	t.Run("kill -9", func(t *testing.T) {
		manifest := importFolder(t, 300, 128<<10)
		out := filepath.Join(t.TempDir(), "capture")
		// Each kill comes a moment after the import has made its temporary
		// folder (an event, not a time): while it writes the capture.
		for _, delay := range []time.Duration{0, 20 * time.Millisecond, 200 * time.Millisecond} {
			before := len(outdir.Leftovers(out))
			cmd := pgstudy("import", manifest, "-o", out)
			exited := start(t, cmd)
			for len(outdir.Leftovers(out)) == before {
				select {
				case <-exited:
					t.Fatalf("the import ended before it made its temporary folder")
				case <-time.After(time.Millisecond):
				}
			}
			time.Sleep(delay)
			cmd.Process.Kill()
			<-exited
			if _, err := os.Stat(out); err == nil {
				// It finished before the kill: then it is whole.
				checkImported(t, out, 300)
				os.RemoveAll(out)
				t.Logf("killed after %s: the import had finished", delay)
				continue
			}
			t.Logf("killed after %s: no capture", delay)
		}
		// Into an empty folder made beforehand, as users do.
		os.MkdirAll(out, 0o755)
		left := outdir.Leftovers(out)
		if len(left) == 0 {
			t.Fatal("no kill landed while the import wrote its capture")
		}
		code, _, stderr := runInProcess("import", manifest, "-o", out)
		if code != exitOK {
			t.Fatalf("import after the kills: exit %d: %s", code, stderr)
		}
		checkImported(t, out, 300)
		for _, l := range left {
			if _, err := os.Stat(l); err != nil || !strings.Contains(stderr, l+" is left from an earlier pgstudy that was stopped") {
				t.Errorf("the leftover %s of a killed import: %v; the import said:\n%s", l, err, stderr)
			}
		}
		entries, _ := os.ReadDir(filepath.Dir(out))
		if len(entries) != 1+len(left) {
			t.Errorf("beside the capture: %v; want it and the %d leftovers", entries, len(left))
		}
	})
}

// importWriting starts an import of 3,000 runs and returns once it has
// made its temporary folder (an event, not a time): while it writes.
func importWriting(t *testing.T) (manifest, out string, cmd *exec.Cmd, stderr *bytes.Buffer, exited chan error) {
	t.Helper()
	manifest = importFolder(t, 3000, 4<<10)
	out = filepath.Join(t.TempDir(), "capture")
	cmd = pgstudy("import", manifest, "-o", out)
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	exited = start(t, cmd)
	for len(outdir.Leftovers(out)) == 0 {
		select {
		case <-exited:
			t.Fatalf("the import ended before it made its temporary folder: %s", stderr.String())
		case <-time.After(time.Millisecond):
		}
	}
	return manifest, out, cmd, stderr, exited
}

// TestImportStops: an import that is interrupted (SIGINT once it made its
// temporary folder), or meets a FIFO put in a file's place after its
// checks, stops at once, exit non-zero, and leaves nothing: before, it
// ignored both signals and finished, and a FIFO hung it for good.
func TestImportStops(t *testing.T) {
	t.Run("SIGINT", func(t *testing.T) {
		_, out, cmd, stderr, exited := importWriting(t)
		cmd.Process.Signal(os.Interrupt)
		<-exited
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(stderr.String(), "nothing is left at") {
			t.Errorf("exit %d, want %d: %s", code, exitInterrupted, stderr.String())
		}
		if _, err := os.Stat(out); err == nil || len(outdir.Leftovers(out)) != 0 {
			t.Errorf("an interrupted import left %s or %v", out, outdir.Leftovers(out))
		}
	})
	t.Run("FIFO swapped in", func(t *testing.T) {
		manifest, out, cmd, stderr, exited := importWriting(t)
		dir := filepath.Dir(manifest)
		last := filepath.Join(dir, "r3000.out")
		os.Remove(last)
		if err := syscall.Mkfifo(last, 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatal("the import hung on a FIFO")
		}
		if code := cmd.ProcessState.ExitCode(); code != exitError || !strings.Contains(stderr.String(), "manifest line 3001: r3000.out is a FIFO") {
			t.Errorf("exit %d, want %d naming the FIFO: %s", code, exitError, stderr.String())
		}
		if _, err := os.Stat(out); err == nil || len(outdir.Leftovers(out)) != 0 {
			t.Errorf("the import left %s or %v", out, outdir.Leftovers(out))
		}
	})
}

// TestImportFileTooLarge: an imported file over 64 MiB is refused naming it
// and its manifest line (a 2 GiB one made the Parquet writer panic, a
// 300 MB one took 3 GB).
func TestImportFileTooLarge(t *testing.T) {
	manifest := importFolder(t, 3, 1<<10)
	big := filepath.Join(filepath.Dir(manifest), "r2.out")
	if err := os.Truncate(big, 65<<20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	code, _, stderr := runInProcess("import", manifest, "-o", out)
	if code != exitError || !strings.Contains(stderr, "manifest line 3: r2.out is larger than 64 MiB, the most pgstudy reads of an imported file") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused import left %s", out)
	}
}

// checkImported: the capture holds runs 1..n.
func checkImported(t *testing.T, dir string, n int) {
	t.Helper()
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if runs := mustRead[samples.Run](t, r); len(runs) != n {
		t.Errorf("%s: %d runs, want %d", dir, len(runs), n)
	}
}
