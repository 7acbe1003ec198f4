package main

import (
	"fmt"
	"github.com/pgstudy/pgstudy/samples"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAnalyzeInterrupted: Ctrl-C (or SIGTERM) stops an analysis at once,
// while it computes a capture's facts, with exit 130 (143): no output
// folder, no facts stored, nothing of the capture changed.
func TestAnalyzeInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	gencapture(t, dir, "-runs", "15000", "-runs-per-part", "150", "-no-facts")
	before := countFiles(t, dir)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		out := filepath.Join(t.TempDir(), "out")
		p := startAnalysis(t, dir, "-o", out)
		for deadline := time.Now().Add(time.Minute); !strings.Contains(p.stderr.String(), "computing the facts"); {
			if time.Now().After(deadline) {
				t.Fatalf("the analysis did not start computing facts within a minute: %s", p.stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		signalled := time.Now()
		p.cmd.Process.Signal(sig)
		code, stderr := p.wait(t)
		if code != 128+int(sig) || !strings.Contains(stderr, "pgstudy: interrupted") {
			t.Fatalf("%v: exit %d, want %d and a word of it:\n%s", sig, code, 128+int(sig), stderr)
		}
		if d := time.Since(signalled); d > 2*time.Second || strings.Contains(stderr, "stored the facts") {
			t.Fatalf("%v: the analysis went on for %s after the signal:\n%s", sig, d, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: the output folder exists (%v)", sig, err)
		}
		if after := countFiles(t, dir); after != before {
			t.Errorf("%v: the capture holds %d files, %d before", sig, after, before)
		}
	}
}

// TestStoreFactsInterrupted: Ctrl-C while an analysis stores the facts it
// computed stops the store between two parts, each whole: no temporary
// file is left in the capture, the command exits 130 and says so, and
// the next analysis reads the parts stored and computes the others, to
// the same output.
func TestStoreFactsInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	gencapture(t, dir, "-runs", "3000", "-runs-per-part", "30", "-no-facts")
	raw := rawFiles(t, dir)
	p := startAnalysis(t, dir, "--format", "json")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) {
		if entries, _ := os.ReadDir(filepath.Join(dir, "disk_facts")); len(entries) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the analysis stored no facts within two minutes: %s", p.stderr.String())
		}
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	code, stderr := p.wait(t)
	if code != exitInterrupted || !strings.Contains(stderr, "interrupted while storing the facts computed from the raw text, after those of") {
		t.Fatalf("exit %d, want %d and a word of how far the store went:\n%s", code, exitInterrupted, stderr)
	}
	if got := rawFiles(t, dir); !reflect.DeepEqual(got, raw) { // and no temporary file
		t.Errorf("the raw capture changed")
	}
	code, first, stderr := analyzeProcess(t, dir)
	if code != 0 || !regexp.MustCompile(`computing the facts of \d+ runs \((\d|[1-9]\d) of its 100 parts\)`).MatchString(stderr) {
		t.Errorf("the next analysis: exit %d:\n%s", code, stderr)
	}
	if code, again, _ := analyzeProcess(t, dir); code != 0 || again != first {
		t.Errorf("the analysis once every fact is stored: exit %d, same output %v", code, again == first)
	}
}

// startAnalysis starts pgstudy analyze of dir as a process.
func startAnalysis(t *testing.T, dir string, args ...string) *collectProc {
	t.Helper()
	p := &collectProc{cmd: pgstudy(append([]string{"analyze", dir}, args...)...), stderr: &output{last: time.Now()}}
	p.cmd.Stderr = p.stderr
	p.exited = start(t, p.cmd)
	return p
}

// TestPublishStoresFacts: compact --fleet of a capture made without facts
// computes and stores them before it publishes, so that the fleet has
// them (an analysis never writes a fleet's partitions): the fleet's
// analysis reads them, and gives what the capture's does. The publish
// leaves no staging folder in the fleet.
func TestPublishStoresFacts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "capture")
	gencapture(t, dir, "-runs", "300", "-runs-per-part", "20", "-no-facts")
	fleet := filepath.Join(t.TempDir(), "fleet")
	cmd := pgstudy("compact", dir, "--fleet", fleet, "--host", "db1", "--study", "s")
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "computing the facts of 300 runs") || !strings.Contains(string(b), "stored the facts of 300 runs beside it") {
		t.Fatalf("compact --fleet: %v:\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(fleet, "run_facts", "host=db1", "study=s")); err != nil {
		t.Errorf("the fleet has no facts: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fleet, ".staging")); !os.IsNotExist(err) {
		t.Errorf("the publish left its staging folder (%v)", err)
	}
	code, byFleet, stderr := analyzeProcess(t, fleet)
	if code != 0 || strings.Contains(stderr, "computing the facts") {
		t.Errorf("the fleet's analysis: exit %d:\n%s", code, stderr)
	}
	_, byCapture, _ := analyzeProcess(t, dir)
	fromFleet, fromCapture := exportRows(t, byFleet), exportRows(t, byCapture)
	for _, table := range []string{"timings", "disk"} {
		for _, rows := range [][]map[string]any{fromFleet[table], fromCapture[table]} {
			for _, r := range rows {
				delete(r, "host") // db1 in the fleet, the recorded hostname in the capture
			}
		}
		if len(fromFleet[table]) == 0 || !reflect.DeepEqual(fromFleet[table], fromCapture[table]) {
			t.Errorf("the fleet's %s (%d rows) differ from the capture's (%d)", table, len(fromFleet[table]), len(fromCapture[table]))
		}
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
	for _, spare := range []int{1, 6} { // no fact part whole; some of four
		dir := filepath.Join(disk, fmt.Sprintf("capture-%d", spare))
		gencapture(t, dir, "-runs", "200", "-runs-per-part", "50", "-no-facts")
		raw := rawFiles(t, dir)
		limitInodes(t, disk, spare)
		code, first, stderr := analyzeProcess(t, dir)
		limitInodes(t, disk, -1)
		if code != 0 || !strings.Contains(stderr, "no space left on device") || strings.Contains(stderr, "unknown error type") || !strings.Contains(stderr, "the next analysis computes the others again") {
			t.Fatalf("%d spare inodes: exit %d:\n%s", spare, code, stderr)
		}
		if got := rawFiles(t, dir); !reflect.DeepEqual(got, raw) {
			t.Errorf("%d spare inodes: the raw capture changed:\n got %v\nwant %v", spare, got, raw)
		}
		code, second, stderr := analyzeProcess(t, dir)
		if code != 0 || second != first || !strings.Contains(stderr, "stored the facts of") {
			t.Fatalf("%d spare inodes, then room: exit %d, same output %v:\n%s", spare, code, second == first, stderr)
		}
		// Some parts' facts were stored whole (how many depends on the
		// files a part's facts take): those are read, the others computed.
		if spare == 6 && !regexp.MustCompile(`computing the facts of (50|100|150) runs \([123] of its 4 parts\)`).MatchString(stderr) {
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
		rel, _ := filepath.Rel(dir, path)
		if table, _, _ := strings.Cut(filepath.ToSlash(rel), "/"); !samples.IsDerived(table) {
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

// TestForeignRawPart: a raw part copied in from another capture (its
// facts then computed again, from some of its columns) is refused as a
// part of another capture, not read as this capture's run.
func TestForeignRawPart(t *testing.T) {
	base := t.TempDir()
	other := filepath.Join(base, "other")
	gencapture(t, other, "-runs", "20", "-seed", "2")
	for _, table := range []string{"diskstats", "stats"} {
		dir := filepath.Join(base, table)
		gencapture(t, dir, "-runs", "20", "-seed", "1")
		b, err := os.ReadFile(filepath.Join(other, table, "r000005.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, table, "r000005.parquet"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := analyzeProcess(t, dir)
		if code == 0 || !strings.Contains(stderr, table+"/r000005.parquet holds a row of the capture") || !strings.Contains(stderr, "a part of another capture") {
			t.Errorf("%s part of another capture: exit %d:\n%s", table, code, stderr)
		}
	}
}

// TestFleetReadWhilePublished: an analysis of a fleet waits for a publish
// under way to end, and a publish while a fleet is read is refused, so
// that no analysis reads some tables of one capture and some of another
// (an outside attack found such mixed analyses, with exit 0).
func TestFleetReadWhilePublished(t *testing.T) {
	base := t.TempDir()
	fleet := filepath.Join(base, "fleet")
	for _, seed := range []string{"1", "2"} {
		gencapture(t, filepath.Join(base, "c"+seed), "-runs", "200", "-runs-per-part", "5", "-seed", seed)
	}
	publish := func(seed string) *exec.Cmd {
		return pgstudy("compact", filepath.Join(base, "c"+seed), "--fleet", fleet, "--host", "h", "--study", "s")
	}
	if b, err := publish("1").CombinedOutput(); err != nil {
		t.Fatalf("publish: %v: %s", err, b)
	}
	_, want1, _ := analyzeProcess(t, fleet)
	if b, err := publish("2").CombinedOutput(); err != nil {
		t.Fatalf("publish: %v: %s", err, b)
	}
	_, want2, _ := analyzeProcess(t, fleet)
	if want1 == want2 {
		t.Fatal("the two captures analyse alike: the test cannot tell them apart")
	}
	stop := make(chan struct{})
	refused := make(chan int, 1)
	go func() {
		n := 0
		for i := 0; ; i++ {
			select {
			case <-stop:
				refused <- n
				return
			default:
			}
			if b, err := publish([]string{"1", "2"}[i%2]).CombinedOutput(); err != nil {
				if !strings.Contains(string(b), "in use by another pgstudy") {
					t.Errorf("publish: %v: %s", err, b)
				}
				n++
			}
		}
	}()
	for range 8 {
		code, got, stderr := analyzeProcess(t, fleet)
		if code != 0 || got != want1 && got != want2 {
			t.Errorf("an analysis during publishes: exit %d, one capture's analysis: %v\n%s", code, got == want1 || got == want2, stderr)
		}
	}
	close(stop)
	t.Logf("%d publishes refused while the fleet was read", <-refused)
}
