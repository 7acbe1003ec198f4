package samples

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestResume simulates a collector killed in the middle of run 3 (some of
// its parts written, a temp file half written, no runs part) and while
// starting session 2 (a host part without its capture part), then resumes.
func TestResume(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	id := w.CaptureID()
	for run := int64(1); run <= 2; run++ {
		if err := w.Commit(fullBatch(id, 1, run, 2, nil)); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	first := readAll(t, mustOpen(t, dir))

	orphans, temps := plantLeftovers(t, dir)
	// Nothing that reads parts may see a temp file.
	if _, err := Read[Statement](mustOpen(t, dir)); err != nil {
		t.Fatalf("reader saw a temp file: %v", err)
	}

	w2, st, err := Resume(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	for _, p := range append(orphans, temps...) {
		if exists(p) {
			t.Errorf("%s survived Resume", p)
		}
	}
	for _, p := range []string{"steps/r000001.parquet", "steps/r000002.parquet", "runs/r000002.parquet", "host/s001.parquet"} {
		if !exists(filepath.Join(dir, p)) {
			t.Errorf("Resume removed %s", p)
		}
	}
	if st.CaptureID != id || st.Sessions != 1 || !reflect.DeepEqual(st.Done, map[int64]bool{1: true, 2: true}) {
		t.Errorf("state %+v", st)
	}
	if !reflect.DeepEqual(st.Last, first["capture"].Index(0).Interface()) || st.Last.StudySHA256 == "" {
		t.Errorf("last capture %+v", st.Last)
	}
	if w2.CaptureID() != id || w2.Session() != 2 {
		t.Errorf("resumed writer: capture %s session %d", w2.CaptureID(), w2.Session())
	}
	// What was there reads the same.
	if again := readAll(t, mustOpen(t, dir)); !sameRows(again, first) {
		t.Error("Resume changed the committed rows")
	}

	appendSession2(t, w2, dir, id)

	_, st, err = Resume(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 2 || len(st.Done) != 3 || st.Last.Session != 2 {
		t.Errorf("second resume: %+v", st)
	}
}

// plantLeftovers leaves what a collector killed in the middle of run 3 and
// while starting session 2 leaves: parts of run 3 without its runs part, a
// host part without its capture part, and half-written temp files.
func plantLeftovers(t *testing.T, dir string) (orphans, temps []string) {
	t.Helper()
	orphans = []string{
		filepath.Join(dir, "steps", "r000003.parquet"),
		filepath.Join(dir, "diskstats", "r000003.parquet"),
		filepath.Join(dir, "host", "s002.parquet"),
	}
	copyFile(t, filepath.Join(dir, "steps", "r000001.parquet"), orphans[0])
	copyFile(t, filepath.Join(dir, "diskstats", "r000001.parquet"), orphans[1])
	copyFile(t, filepath.Join(dir, "host", "s001.parquet"), orphans[2])
	temps = []string{
		filepath.Join(dir, "statements", ".r000003-123.tmp"),
		filepath.Join(dir, "capture", ".s002-9.tmp"),
	}
	for _, p := range temps {
		if err := os.WriteFile(p, []byte("PAR1 half a part"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return orphans, temps
}

// appendSession2 writes session 2 through the resumed writer: a run
// already in the capture is refused, run 3 is added and reads back.
func appendSession2(t *testing.T, w2 *Writer, dir, id string) {
	t.Helper()
	c, hosts := sessionRows(id, 2, 1, nil)
	if err := w2.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}
	err := w2.Commit(fullBatch(id, 2, 2, 1, nil))
	mustContain(t, err, "run 2 is already in the capture")
	b3 := fullBatch(id, 2, 3, 1, nil)
	if err := w2.Commit(b3); err != nil {
		t.Fatal(err)
	}
	w2.Close()

	r := mustOpen(t, dir)
	if caps := r.Captures(); len(caps) != 2 || caps[1].Session != 2 || caps[1].CaptureID != id {
		t.Errorf("captures %+v", caps)
	}
	steps, err := Read[Step](r)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, s := range steps {
		ids = append(ids, s.RunID)
	}
	if !slices.Equal(ids, []int64{1, 1, 2, 2, 3}) || !reflect.DeepEqual(steps[4], validUTF8Rows(reflect.ValueOf(b3.Steps), func(string, int, string) {}).Index(0).Interface()) {
		t.Errorf("steps of runs %v", ids)
	}
	runs, _ := Read[Run](r)
	if len(runs) != 3 || runs[2].Session != 2 {
		t.Errorf("runs %+v", runs)
	}

}

func mustOpen(t *testing.T, dir string) *Reader {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCommitTwice(t *testing.T) {
	w, _ := mustCreate(t, Options{})
	if err := w.Commit(&Batch{Run: Run{RunID: 1}}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Commit(&Batch{Run: Run{RunID: 1}, Steps: []Step{{}}}), "run 1 is already in the capture")
	mustContain(t, w.Commit(&Batch{Run: Run{RunID: 0}}), "run ids start at 1")
}

func TestWriterOrder(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, w.Commit(&Batch{Run: Run{RunID: 1}}), "before WriteSession")
	if err := w.WriteSession(Capture{}, nil); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(dir, "host", "s001.parquet")) {
		t.Error("host part without hosts")
	}
	mustContain(t, w.WriteSession(Capture{}, nil), "already written")
	w.Close()
	mustContain(t, w.Commit(&Batch{Run: Run{RunID: 1}}), "closed")
}

func TestLock(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	_, _, err := Resume(dir, Options{})
	mustContain(t, err, dir, "in use")
	w.Close()
	w2, _, err := Resume(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
}

func TestCreateRefuses(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	w.Close()
	_, err := Create(dir, Options{})
	mustContain(t, err, dir, "already holds a capture", "--resume")

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Create(other, Options{})
	mustContain(t, err, other, "not empty", "notes.txt")

	// An empty folder, or one that does not exist yet, is fine.
	for _, d := range []string{t.TempDir(), filepath.Join(t.TempDir(), "a", "b")} {
		w, err := Create(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		for _, tb := range Tables {
			if fi, err := os.Stat(filepath.Join(d, tb.Name)); err != nil || !fi.IsDir() {
				t.Errorf("no folder %s", tb.Name)
			}
		}
	}
}

// TestCreateAfterInterruptedCreate: a Create killed before its first session
// counted leaves folders, a temp file and maybe a host part; Create again
// must work rather than leave the user stuck between Create and Resume.
func TestCreateAfterInterruptedCreate(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	leftovers := []string{filepath.Join(dir, "host", "s001.parquet"), filepath.Join(dir, "capture", ".s001-1.tmp")}
	for _, p := range leftovers {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = Resume(dir, Options{})
	mustContain(t, err, "not a pgstudy capture")
	w, err = Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, p := range leftovers {
		if exists(p) {
			t.Errorf("%s survived", p)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	_, err := Open(dir)
	mustContain(t, err, dir, "not a pgstudy capture")

	if err := os.Mkdir(filepath.Join(dir, "capture"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	mustContain(t, err, dir, "not a pgstudy capture")

	missing := filepath.Join(dir, "nope")
	_, err = Open(missing)
	mustContain(t, err, missing)

	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	_, err = Open(f)
	mustContain(t, err, f, "not a folder")

	_, _, err = Resume(dir, Options{})
	mustContain(t, err, dir, "not a pgstudy capture")
}

func TestPartNames(t *testing.T) {
	if runPart(1) != "r000001.parquet" || sessionPart(2) != "s002.parquet" {
		t.Error(runPart(1), sessionPart(2))
	}
	if n, ok := parsePart("r000042.parquet", 'r'); !ok || n != 42 {
		t.Error(n, ok)
	}
	for _, bad := range []string{"r.parquet", "s001.parquet", ".r000001-1.tmp", "r00x.parquet", "r1.parquet.tmp"} {
		if _, ok := parsePart(bad, 'r'); ok {
			t.Errorf("%s parsed", bad)
		}
	}
	tmp := tempPattern("r000001.parquet")
	if !isTemp(strings.Replace(tmp, "*", "123", 1)) || isPart(strings.Replace(tmp, "*", "123", 1)) {
		t.Errorf("temp pattern %s", tmp)
	}
	if m, _ := filepath.Match("*.parquet", strings.Replace(tmp, "*", "123", 1)); m {
		t.Errorf("temp name %s matches *.parquet", tmp)
	}
	// Run ids past the zero padding still sort numerically.
	var entries []os.DirEntry
	dir := t.TempDir()
	for _, n := range []string{runPart(1000000), runPart(999999), runPart(2)} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	entries, _ = os.ReadDir(dir)
	if got := partNames(entries); !slices.Equal(got, []string{"r000002.parquet", "r999999.parquet", "r1000000.parquet"}) {
		t.Errorf("order %v", got)
	}
}

// TestKill kills a collector with SIGKILL in the middle of its commits, then
// resumes: every run whose Commit returned is there and reads whole,
// nothing of the interrupted run is left, and the capture goes on.
func TestKill(t *testing.T) {
	if os.Getenv("SAMPLES_KILL_CHILD") != "" {
		killChild()
		return
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKill$")
		cmd.Env = append(os.Environ(), "SAMPLES_KILL_CHILD="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a few commits, at some point inside the next one.
		committed := map[int64]bool{}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			id, err := strconv.ParseInt(strings.TrimPrefix(sc.Text(), "committed "), 10, 64)
			if err != nil {
				continue
			}
			committed[id] = true
			if len(committed) == 3 {
				time.Sleep(time.Duration(round*7+3) * time.Millisecond)
				cmd.Process.Kill()
				break
			}
		}
		cmd.Wait()
		if len(committed) < 3 {
			t.Fatalf("round %d: child committed %d runs", round, len(committed))
		}

		w, st, err := Resume(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		for id := range committed {
			if !st.Done[id] {
				t.Errorf("round %d: run %d was committed but is not done", round, id)
			}
		}
		r := mustOpen(t, dir)
		got := readAll(t, r)
		if int32(len(r.Captures())) != st.Sessions || st.Sessions != int32(round+1) {
			t.Errorf("round %d: %d sessions", round, st.Sessions)
		}
		if got["runs"].Len() != len(st.Done) || got["diskstats"].Len() != 200*len(st.Done) {
			t.Errorf("round %d: %d runs, %d diskstats for %d done", round, got["runs"].Len(), got["diskstats"].Len(), len(st.Done))
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !isPart(d.Name()) {
				t.Errorf("round %d: %s left behind", round, p)
			}
			return err
		})
	}
}

// killChild collects into the folder named by the environment until it
// is killed, printing each run id once Commit has returned.
func killChild() {
	dir := os.Getenv("SAMPLES_KILL_CHILD")
	var w *Writer
	var st *State
	var err error
	if _, serr := os.Stat(filepath.Join(dir, "capture")); serr != nil {
		w, err = Create(dir, Options{})
		st = &State{Done: map[int64]bool{}}
	} else {
		w, st, err = Resume(dir, Options{})
	}
	if err != nil {
		panic(err)
	}
	c, hosts := sessionRows(w.CaptureID(), w.Session(), 2, nil)
	if err := w.WriteSession(c, hosts); err != nil {
		panic(err)
	}
	for id := int64(1); ; id++ {
		if st.Done[id] {
			continue
		}
		b := fullBatch(w.CaptureID(), w.Session(), id, 3, nil)
		b.Diskstats = nil
		for i := range 200 {
			b.Diskstats = append(b.Diskstats, Diskstats{Seq: int32(i), Text: diskstatsText(i+int(id), 4<<10)})
		}
		if err := w.Commit(b); err != nil {
			panic(err)
		}
		fmt.Printf("committed %d\n", id)
	}
}

// TestReaderSkipsUncommittedRun: parts of a run killed during its commit
// are whole files, but the run is not in the capture, so a reader must not
// see them, before any resume has removed them.
func TestReaderSkipsUncommittedRun(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	if err := w.Commit(fullBatch(w.CaptureID(), 1, 1, 2, nil)); err != nil {
		t.Fatal(err)
	}
	// Run 2 as a kill between its diskstats part and its runs part leaves it.
	for _, table := range []string{"diskstats", "notices"} {
		b, err := os.ReadFile(filepath.Join(dir, table, "r000001.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, table, "r000002.parquet"), b, 0o644)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := Read[Diskstats](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(disk) != 2 {
		t.Errorf("read %d diskstats rows, want the 2 of run 1 only", len(disk))
	}
}

// TestCommitMany writes runs 1-3 in one part and run 4 alone: every row
// reads back with its own run id, a resume finds all four runs done, and
// none can be committed again.
func TestCommitMany(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	id := w.CaptureID()
	var bs []*Batch
	for run := int64(1); run <= 3; run++ {
		bs = append(bs, fullBatch(id, 1, run, 2, nil))
	}
	if err := w.CommitMany(bs); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(fullBatch(id, 1, 4, 2, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.CommitMany([]*Batch{fullBatch(id, 1, 5, 2, nil), fullBatch(id, 1, 2, 2, nil)}); err == nil {
		t.Error("CommitMany took run 2 a second time")
	}
	w.Close()
	for _, p := range []string{"runs/r000001.parquet", "steps/r000001.parquet", "runs/r000004.parquet"} {
		if !exists(filepath.Join(dir, p)) {
			t.Errorf("%s is missing", p)
		}
	}
	if exists(filepath.Join(dir, "runs", "r000002.parquet")) || exists(filepath.Join(dir, "runs", "r000005.parquet")) {
		t.Error("a part per run was written for runs committed together, or for a refused batch")
	}
	r := mustOpen(t, dir)
	steps, err := Read[Step](r)
	if err != nil {
		t.Fatal(err)
	}
	perRun := map[int64]int{}
	for _, s := range steps {
		perRun[s.RunID]++
	}
	want := len(fullBatch(id, 1, 1, 2, nil).Steps)
	if len(perRun) != 4 || perRun[1] != want || perRun[2] != want || perRun[3] != want || perRun[4] != want {
		t.Errorf("steps per run %v, want %d for each of runs 1-4", perRun, want)
	}
	w2, st, err := Resume(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if !reflect.DeepEqual(st.Done, map[int64]bool{1: true, 2: true, 3: true, 4: true}) {
		t.Errorf("resume found %v done", st.Done)
	}
}

// TestResumeRawBytesOfSession: a session's raw_bytes part whose capture part
// was never written (a kill between the two) is a leftover Resume removes;
// one whose session is committed stays.
func TestResumeRawBytesOfSession(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, hosts := sessionRows(w.CaptureID(), 1, 1, nil) // with bytes that are not UTF-8
	if err := w.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}
	w.Close()
	kept := filepath.Join(dir, "raw_bytes", "s001.parquet")
	if _, err := os.Stat(kept); err != nil {
		t.Fatalf("session 1's raw_bytes part: %v", err)
	}
	// Session 2's raw_bytes part, as a kill after it and before its capture part leaves it.
	data, _ := os.ReadFile(kept)
	left := filepath.Join(dir, "raw_bytes", "s002.parquet")
	if err := os.WriteFile(left, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir)
	raws, err := Read[RawBytes](r)
	if err != nil || len(raws) == 0 {
		t.Fatalf("raw_bytes: %d rows, %v", len(raws), err)
	}
	for _, raw := range raws {
		if raw.RunID != 0 {
			t.Errorf("a session's raw row of run %d", raw.RunID)
		}
	}
	n := len(raws)
	w2, _, err := Resume(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("the uncommitted session's raw_bytes part is still there: %v", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the committed session's raw_bytes part is gone: %v", err)
	}
	if raws, _ := Read[RawBytes](mustOpen(t, dir)); len(raws) != n {
		t.Errorf("%d raw rows after Resume, want %d", len(raws), n)
	}
}
