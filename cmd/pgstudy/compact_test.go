package main

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/samples"
)

var (
	gencaptureOnce sync.Once
	gencaptureBin  string
	gencaptureErr  error
)

// gencapture writes a synthetic capture with analyze/internal/gencapture's
// command, built once.
func gencapture(t *testing.T, dir string, args ...string) {
	t.Helper()
	gencaptureOnce.Do(func() {
		bin, err := os.MkdirTemp("", "gencapture-")
		if err != nil {
			gencaptureErr = err
			return
		}
		gencaptureBin = filepath.Join(bin, "gencapture")
		out, err := exec.Command("go", "build", "-o", gencaptureBin, "../../analyze/internal/gencapture/cmd/gencapture").CombinedOutput()
		if err != nil {
			gencaptureErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if gencaptureErr != nil {
		t.Fatal(gencaptureErr)
	}
	if out, err := exec.Command(gencaptureBin, append(args, "-o", dir)...).CombinedOutput(); err != nil {
		t.Fatalf("gencapture %v: %v: %s", args, err, out)
	}
}

// analysisOf is what pgstudy says of a capture: analyze's JSON with every
// run (--detail) and check's findings.
func analysisOf(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := runInProcess(append([]string{"analyze", "--format", "json", "--detail"}, args...)...)
	if code != 0 {
		t.Fatalf("analyze %v: exit %d: %s", args, code, stderr)
	}
	_, check, _ := runInProcess(append([]string{"check"}, args...)...)
	all := out + "\n--- check\n" + check
	for _, a := range args {
		all = strings.ReplaceAll(all, a, "CAPTURE") // where a copy is
	}
	return all
}

// TestCompactSameAnalysis: the analysis and check's findings of a capture
// are byte for byte the same before and after compact, for the sample
// capture and a generated one with every run's settings, and the facts
// stay valid (the analysis does not compute them again).
func TestCompactSameAnalysis(t *testing.T) {
	gen := filepath.Join(t.TempDir(), "gen")
	gencapture(t, gen, "-runs", "300", "-samples", "3", "-settings")
	sample := filepath.Join(t.TempDir(), "sample")
	if err := os.CopyFS(sample, os.DirFS(sampleCapture)); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{sample, gen} {
		before := analysisOf(t, dir)
		files := countFiles(t, dir)
		code, _, stderr := runInProcess("compact", dir)
		if code != 0 || !strings.Contains(stderr, "compacted into") {
			t.Fatalf("compact %s: exit %d: %s", dir, code, stderr)
		}
		if after := countFiles(t, dir); after*10 > files {
			t.Errorf("%s: %d files, then %d", dir, files, after)
		}
		code, _, stderr = runInProcess("analyze", dir)
		if code != 0 || strings.Contains(stderr, "computed the facts") {
			t.Errorf("%s: the facts were computed again after compact: %s", dir, stderr)
		}
		if after := analysisOf(t, dir); after != before {
			t.Errorf("%s: the analysis differs after compact", dir)
		}
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	return n
}

// rowsDigest is a digest of every row of every table a reader counts, in
// order; a raw_bytes row's row number and a fact's signature, which
// compact changes, are left out. It returns the runs too.
func rowsDigest(t *testing.T, dir string) (string, int) {
	t.Helper()
	d, n, err := readDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d, n
}

// readDigest is rowsDigest with its error.
func readDigest(dir string) (string, int, error) {
	r, err := samples.Open(dir)
	if err != nil {
		return "", 0, err
	}
	h := sha256.New()
	runs, err := digestTable[samples.Run](r, h, nil)
	errs := []error{err}
	for _, table := range []func() error{
		func() error { _, err := digestTable[samples.Capture](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Host](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Server](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Setting](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Step](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Statement](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Output](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Notice](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Plan](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Diskstats](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Stat](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Probe](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Attachment](r, h, nil); return err },
		func() error { _, err := digestTable[samples.Calibration](r, h, nil); return err },
		func() error { _, err := digestTable[samples.DiskFact](r, h, nil); return err },
		func() error { _, err := digestTable[samples.IOFact](r, h, nil); return err },
		func() error { _, err := digestTable[samples.ViewFact](r, h, nil); return err },
		func() error { _, err := digestTable[samples.FactProblem](r, h, nil); return err },
		func() error { _, err := digestTable(r, h, func(f *samples.RunFact) { f.RawParts = "" }); return err },
		func() error { _, err := digestTable(r, h, func(b *samples.RawBytes) { b.Row = 0 }); return err },
	} {
		errs = append(errs, table())
	}
	return fmt.Sprintf("%x", h.Sum(nil)), runs, errors.Join(errs...)
}

func digestTable[T any](r *samples.Reader, h hash.Hash, clear func(*T)) (int, error) {
	rows, err := samples.Read[T](r)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(h, "%T %d\n", rows, len(rows))
	for i := range rows {
		if clear != nil {
			clear(&rows[i])
		}
		b, err := json.Marshal(rows[i]) // pointers as their values, floats exactly
		if err != nil {
			return 0, err
		}
		h.Write(append(b, '\n'))
	}
	return len(rows), nil
}

// TestCompactKilled kills a real pgstudy compact with SIGKILL at random
// moments, many times: after each kill the capture reads every row once,
// as before, whether the kill came before the new runs part, after it,
// or while the parts it replaced were being removed; compact run again
// finishes the work, and the analysis is the one of the capture before.
func TestCompactKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pgstudy many times")
	}
	orig := filepath.Join(t.TempDir(), "c")
	gencapture(t, orig, "-runs", "100", "-samples", "2")
	want, nruns := rowsDigest(t, orig)
	wantAnalysis := analysisOf(t, orig)
	// How long a whole compaction takes here, to kill within it.
	full := filepath.Join(t.TempDir(), "c")
	os.CopyFS(full, os.DirFS(orig))
	start := time.Now()
	if out, err := pgstudy("compact", full).CombinedOutput(); err != nil {
		t.Fatalf("compact: %v: %s", err, out)
	}
	span := time.Since(start)
	states := map[string]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 16
	for i := range trials {
		dir := filepath.Join(t.TempDir(), "c")
		if err := os.CopyFS(dir, os.DirFS(orig)); err != nil {
			t.Fatal(err)
		}
		cmd := pgstudy("compact", dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A quarter at random within the span; a quarter as soon as the
		// first new part (diskstats) is being written, before any is in
		// place; half a few milliseconds after the new runs part, among
		// the removals, which take little of the span.
		switch i % 4 {
		case 0:
			time.Sleep(time.Duration(rng.Int64N(int64(span))))
		case 1:
			waitFor(filepath.Join(dir, "diskstats", ".r*-*"), 2*span)
		default:
			waitFor(filepath.Join(dir, "runs", "r*-*.parquet"), 2*span)
			time.Sleep(time.Duration(rng.Int64N(int64(3 * time.Millisecond))))
		}
		cmd.Process.Kill()
		cmd.Wait()
		states[killState(dir)]++
		if got, n := rowsDigest(t, dir); got != want || n != nruns {
			t.Fatalf("trial %d (%s): after the kill the capture reads %d runs and other rows than before", i, killState(dir), n)
		}
		if out, err := pgstudy("compact", dir).CombinedOutput(); err != nil {
			t.Fatalf("trial %d: compact after the kill: %v: %s", i, err, out)
		}
		if got, _ := rowsDigest(t, dir); got != want || killState(dir) != "compacted" {
			t.Fatalf("trial %d: after compact again: %s, rows as before: %v", i, killState(dir), got == want)
		}
		if i%4 == 0 {
			if got := analysisOf(t, dir); got != wantAnalysis {
				t.Fatalf("trial %d: the analysis differs after a kill and compact again", i)
			}
		}
	}
	t.Logf("states after %d kills within %s: %v", trials, span.Round(time.Millisecond), states)
	if states["writing new parts"] == 0 && states["staging new parts"] == 0 || states["committed, removing replaced parts"] == 0 {
		t.Errorf("the kills did not fall both before and after the commit: %v", states)
	}
}

// TestCompactSignalled: SIGINT or SIGTERM at any moment of a compaction
// stops it between two groups, the group in progress done whole: exit 130
// (143), and every table folder as a query engine globbing *.parquet
// reads it, knowing nothing of which parts count, holds no run twice (no
// compacted part beside a part it replaces) and no temporary file; the
// capture reads as before.
func TestCompactSignalled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pgstudy many times")
	}
	orig := filepath.Join(t.TempDir(), "c")
	gencapture(t, orig, "-runs", "400", "-runs-per-part", "20", "-samples", "2")
	want, nruns := rowsDigest(t, orig)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 8 {
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}[i%2]
		dir := filepath.Join(t.TempDir(), "c")
		if err := os.CopyFS(dir, os.DirFS(orig)); err != nil {
			t.Fatal(err)
		}
		p := &collectProc{cmd: pgstudy("compact", dir), stderr: &output{last: time.Now()}}
		p.cmd.Stderr = p.stderr
		p.exited = start(t, p.cmd)
		if i%4 < 2 {
			waitFor(filepath.Join(dir, "diskstats", ".r*-*"), time.Minute) // a group being written
		} else {
			time.Sleep(time.Duration(rng.Int64N(int64(300 * time.Millisecond))))
		}
		p.cmd.Process.Signal(sig)
		code, stderr := p.wait(t)
		if code != 128+int(sig) && code != 0 { // 0: done before the signal came
			t.Fatalf("%v: exit %d:\n%s", sig, code, stderr)
		}
		if msg := sqlView(t, dir); msg != "" {
			t.Fatalf("%v after %s: %s", sig, killState(dir), msg)
		}
		if got, n := rowsDigest(t, dir); got != want || n != nruns {
			t.Fatalf("%v: the capture reads %d runs and other rows than before", sig, n)
		}
	}
}

// sqlView says what a query engine reading every *.parquet file of each
// table folder would count wrong: a compacted part beside a part of one
// of its runs (a run twice), a temporary file left; "" when nothing.
func sqlView(t *testing.T, dir string) string {
	t.Helper()
	tables, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		parts, _ := os.ReadDir(filepath.Join(dir, table.Name()))
		var ranges [][2]int
		var single []int
		for _, p := range parts {
			name := p.Name()
			if strings.HasPrefix(name, ".") {
				return fmt.Sprintf("%s/%s: a temporary file left", table.Name(), name)
			}
			var a, b int
			if n, _ := fmt.Sscanf(name, "r%d-%d.parquet", &a, &b); n == 2 {
				ranges = append(ranges, [2]int{a, b})
			} else if n, _ := fmt.Sscanf(name, "r%d.parquet", &a); n == 1 {
				single = append(single, a)
			}
		}
		for _, r := range ranges {
			for _, a := range single {
				if a >= r[0] && a <= r[1] {
					return fmt.Sprintf("%s: r%06d-%06d.parquet beside r%06d.parquet, which it replaces", table.Name(), r[0], r[1], a)
				}
			}
		}
	}
	return ""
}

// waitFor waits until a file matches pattern, for at most limit.
func waitFor(pattern string, limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return
		}
	}
}

// killState says where a compaction was when it was killed: the runs
// parts and what else the folders hold.
func killState(dir string) string {
	runs, _ := os.ReadDir(filepath.Join(dir, "runs"))
	disk, _ := os.ReadDir(filepath.Join(dir, "diskstats"))
	ranged := func(es []os.DirEntry) (n int) {
		for _, e := range es {
			if strings.Contains(e.Name(), "-") && !strings.HasPrefix(e.Name(), ".") {
				n++
			}
		}
		return n
	}
	temps := func(es []os.DirEntry) (n int) {
		for _, e := range es {
			if strings.HasPrefix(e.Name(), ".") {
				n++
			}
		}
		return n
	}
	switch {
	case len(runs) == 1 && len(disk) == 1 && ranged(runs) == 1:
		return "compacted"
	case ranged(runs) == 1:
		return "committed, removing replaced parts"
	case ranged(disk) > 0:
		return "writing new parts"
	case temps(disk) > 0 || temps(runs) > 0:
		return "staging new parts"
	case len(runs) > 1:
		return "not started"
	}
	return "unknown"
}

// TestCompactRefusesInUse: a capture a collect holds is refused with a
// message that says so, and exit 1.
func TestCompactRefusesInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	if err := os.CopyFS(dir, os.DirFS(sampleCapture)); err != nil {
		t.Fatal(err)
	}
	w, _, err := samples.Resume(dir, samples.Options{})
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runInProcess("compact", dir)
	w.Close()
	if code != 1 || !strings.Contains(stderr, "in use by another pgstudy") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, _, stderr = runInProcess("compact", filepath.Join(dir, "nothing"))
	if code != 1 || !strings.Contains(stderr, "no such folder") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if code, _, _ = runInProcess("compact", dir, "--host", "db1"); code != exitUsage {
		t.Errorf("--host without --fleet: exit %d", code)
	}
	if code, _, _ = runInProcess("compact", dir, "--fleet", t.TempDir(), "--host", "1db"); code != exitUsage {
		t.Errorf("a host named by a number: exit %d", code)
	}
}

// TestReadWhileCompacting reads a capture again and again while a real
// pgstudy compact rewrites it: each reading is every row once, as before,
// or an error that says the capture changed while it was read; never
// other rows.
func TestReadWhileCompacting(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pgstudy")
	}
	dir := filepath.Join(t.TempDir(), "c")
	gencapture(t, dir, "-runs", "100", "-samples", "2")
	want, _ := rowsDigest(t, dir)
	cmd := pgstudy("compact", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	same, changed := 0, 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("compact: %v", err)
			}
			running = false
		default:
		}
		got, _, err := readDigest(dir)
		switch {
		case err != nil && (strings.Contains(err.Error(), "changed while it was read") || strings.Contains(err.Error(), "was removed while the capture was read")):
			changed++
		case err != nil:
			t.Fatalf("a reading during compact: %v", err)
		case got != want:
			t.Fatal("a reading during compact gave other rows than the capture holds")
		default:
			same++
		}
	}
	t.Logf("%d readings as before, %d said the capture changed", same, changed)
	if same < 2 {
		t.Errorf("only %d whole readings", same)
	}
}

// TestCompactFleetInsideRefusedFirst: a fleet inside the capture (or
// reached through a link to it) is refused before the capture is
// compacted: its parts are as they were (it was compacted, then
// refused).
func TestCompactFleetInsideRefusedFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	if err := os.CopyFS(dir, os.DirFS(sampleCapture)); err != nil {
		t.Fatal(err)
	}
	before, err := filepath.Glob(filepath.Join(dir, "*", "*.parquet"))
	if err != nil || len(before) < 2 {
		t.Fatalf("%d parts, %v", len(before), err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, fleet := range []string{filepath.Join(dir, "fleet"), filepath.Join(link, "fleet")} {
		code, _, stderr := runInProcess("compact", dir, "--fleet", fleet, "--host", "db1", "--study", "s")
		if code != exitError || !strings.Contains(stderr, "are inside one another: keep them apart") {
			t.Errorf("--fleet %s: exit %d, %q; want the refusal", fleet, code, stderr)
		}
		after, _ := filepath.Glob(filepath.Join(dir, "*", "*.parquet"))
		if len(after) != len(before) {
			t.Errorf("--fleet %s: %d parts after, %d before: the capture was changed", fleet, len(after), len(before))
		}
		if _, err := os.Stat(fleet); !os.IsNotExist(err) {
			t.Errorf("--fleet %s: made (%v)", fleet, err)
		}
	}
}

// TestPublishDiskFull: a publish that runs out of room on the fleet's
// file system (the capture on another, so that its parts are copied)
// leaves the fleet as it was: no table of the partition published, no
// staging folder; it published a table at a time, and left six tables'
// partitions without their runs, which an analysis read as a host of no
// runs.
func TestPublishDiskFull(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	gencapture(t, dir, "-runs", "300", "-runs-per-part", "100")
	fleet := filepath.Join(smallDisk(t, "200k"), "fleet")
	code, _, stderr := runInProcess("compact", dir, "--fleet", fleet, "--host", "db1", "--study", "s1")
	if code != exitError || !strings.Contains(stderr, "no space left on device") {
		t.Fatalf("exit %d: %s; want no space left", code, stderr)
	}
	var left []string
	filepath.WalkDir(fleet, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() || strings.Contains(p, "host=") || strings.Contains(p, ".staging") {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("the fleet holds %q after the failed publish; want it as it was", left)
	}
}
