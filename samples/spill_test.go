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
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// sliceBatch is the rows [from, to) of every table of b but runs (clipped
// to each table's length), as a batch for Spill.Write.
func sliceBatch(b *Batch, from, to int, skip ...string) *Batch {
	out := &Batch{Run: b.Run}
	bv, ov := reflect.ValueOf(b).Elem(), reflect.ValueOf(out).Elem()
	for name, fi := range batchFields {
		f := bv.Field(fi)
		if f.Kind() != reflect.Slice || slices.Contains(skip, name) {
			continue
		}
		lo, hi := min(from, f.Len()), min(to, f.Len())
		ov.Field(fi).Set(f.Slice(lo, hi))
	}
	return out
}

// sameCapture reads two captures of the same rows, made by two writers:
// their capture ids differ, and so do the bytes of parts written in
// several row groups, which run_facts' raw_parts sign.
func sameCapture(t *testing.T, a, b string) {
	t.Helper()
	norm := func(dir string) map[string]reflect.Value {
		all := readAll(t, mustOpen(t, dir))
		for _, rows := range all {
			setCol(rows, "capture_id", "")
			setCol(rows, "raw_parts", "")
		}
		return all
	}
	ra, rb := norm(a), norm(b)
	for name, a := range ra {
		b := rb[name]
		if a.Len() != b.Len() {
			t.Errorf("table %s: %d rows spilled, %d whole", name, b.Len(), a.Len())
			continue
		}
		for i := range a.Len() {
			if x, y := a.Index(i).Interface(), b.Index(i).Interface(); !reflect.DeepEqual(x, y) {
				t.Errorf("table %s, row %d differs:\n spilled %+v\n   whole %+v", name, i, y, x)
				break
			}
		}
	}
}

// rowGroups is the number of row groups of a part.
func rowGroups(t *testing.T, path string) int {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.NumRowGroups()
}

// TestSpillCommitsWhatCommitDoes writes one run whole, and the same run
// with most of its rows spilled in two writes before its commit: the
// captures read the same, row for row (values that are not UTF-8
// included: their raw_bytes rows number them within the whole part), the
// spilled parts are of three row groups, and the run's facts are signed
// with the parts as written. Before the commit nothing of the run is seen.
func TestSpillCommitsWhatCommitDoes(t *testing.T) {
	const n = 9
	whole, wholeDir := mustCreate(t, Options{Redact: func(s string) string { return strings.ReplaceAll(s, "café", "c***") }})
	if err := whole.Commit(fullBatch(whole.CaptureID(), 1, 1, n, nil)); err != nil {
		t.Fatal(err)
	}
	w, dir := mustCreate(t, Options{Redact: func(s string) string { return strings.ReplaceAll(s, "café", "c***") }})
	b := fullBatch(w.CaptureID(), 1, 1, n, nil)
	sp, err := w.Spill(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int{{0, 4}, {4, 7}} {
		if err := sp.Write(sliceBatch(b, r[0], r[1], unspilled...)); err != nil {
			t.Fatal(err)
		}
	}
	if got := readAll(t, mustOpen(t, dir)); got["diskstats"].Len() != 0 || got["runs"].Len() != 0 {
		t.Fatalf("before its commit, a reader sees %d diskstats rows and %d runs of the run", got["diskstats"].Len(), got["runs"].Len())
	}
	rest := sliceBatch(b, 7, n, unspilled...)
	rest.RunFacts = b.RunFacts
	if err := sp.Commit(rest); err != nil {
		t.Fatal(err)
	}
	sameCapture(t, wholeDir, dir)
	if got := readAll(t, mustOpen(t, dir)); got["diskstats"].Len() != n || got["raw_bytes"].Len() == 0 {
		t.Errorf("%d diskstats rows, %d raw_bytes rows", got["diskstats"].Len(), got["raw_bytes"].Len())
	}
	for _, table := range []string{"diskstats", "stats", "disk_facts", "outputs"} {
		if g := rowGroups(t, filepath.Join(dir, table, "r000001.parquet")); g != 3 {
			t.Errorf("%s: %d row groups, want 3 (two spilled, one at the commit)", table, g)
		}
	}
	r := mustOpen(t, dir)
	facts, err := Read[RunFact](r)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := r.RawParts("r000001.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range facts {
		if f.RawParts != sig {
			t.Errorf("run facts signed %q, the raw parts are %q", f.RawParts, sig)
		}
	}
	leftovers(t, dir)
}

// leftovers fails on a file of the capture that is not a part.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !isPart(d.Name()) {
			t.Errorf("%s left behind", p)
		}
		return err
	})
}

// TestSpillRefusals: what a spill cannot take or do is an error, and a
// discarded spill leaves nothing.
func TestSpillRefusals(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	if err := w.Commit(fullBatch(w.CaptureID(), 1, 1, 1, nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Spill(1); err == nil {
		t.Error("a spill of a run in the capture")
	}
	if _, err := w.Spill(0); err == nil {
		t.Error("a spill of run 0")
	}
	sp, err := w.Spill(2)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, sp.Write(&Batch{RunFacts: []RunFact{{}}}), "run_facts", "commit")
	// The failure sticks: the run cannot be committed whole.
	mustContain(t, sp.Write(&Batch{Diskstats: []Diskstats{{Text: "x"}}}), "run_facts")
	mustContain(t, sp.Commit(&Batch{Run: Run{RunID: 2}}), "run_facts")
	sp, err = w.Spill(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Write(&Batch{Diskstats: []Diskstats{{Text: "x"}}}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, sp.Commit(&Batch{Run: Run{RunID: 3}}), "commit of run 3 with the spill of run 2")
	mustContain(t, sp.Commit(&Batch{Run: Run{RunID: 2}}), "after its commit or discard")
	sp, _ = w.Spill(2)
	sp.Write(&Batch{Diskstats: []Diskstats{{Text: "x"}}})
	sp.Discard()
	mustContain(t, sp.Write(&Batch{Diskstats: []Diskstats{{Text: "x"}}}), "after its commit or discard")
	leftovers(t, dir)
	if runs, _ := Read[Run](mustOpen(t, dir)); len(runs) != 1 {
		t.Errorf("%d runs, want the one committed", len(runs))
	}
}

// TestSpillKilled kills a collector with SIGKILL while it spills runs and
// commits them: no row of the run in progress is read, its parts in
// progress are temp files, which Resume removes, and every run committed
// reads whole.
func TestSpillKilled(t *testing.T) {
	if os.Getenv("SAMPLES_SPILL_CHILD") != "" {
		spillChild()
		return
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSpillKilled$")
		cmd.Env = append(os.Environ(), "SAMPLES_SPILL_CHILD="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Killed in the middle of a run: after its second spill, or a
		// little after a commit (inside the next run's spills or commit).
		lines := 0
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if lines++; lines == 12+round {
				time.Sleep(time.Duration(round*3) * time.Millisecond)
				cmd.Process.Kill()
				break
			}
		}
		cmd.Wait()
		if lines < 12+round {
			t.Fatalf("round %d: the child printed %d lines", round, lines)
		}
		r := mustOpen(t, dir)
		runs, err := Read[Run](r)
		if err != nil {
			t.Fatal(err)
		}
		disk, err := Read[Diskstats](r)
		if err != nil {
			t.Fatal(err)
		}
		if len(disk) != 50*len(runs) {
			t.Errorf("round %d: a reader sees %d diskstats rows for %d runs committed (50 each)", round, len(disk), len(runs))
		}
		temps, _ := filepath.Glob(filepath.Join(dir, "diskstats", ".r*"+tempSuffix))
		if round == 0 && len(temps) != 1 {
			t.Errorf("killed after a spill, the run's diskstats in progress are %q, want one temp file", temps)
		}
		w, st, err := Resume(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if len(st.Done) != len(runs) || len(runs) < 2 {
			t.Errorf("round %d: %d runs read, %d done", round, len(runs), len(st.Done))
		}
		leftovers(t, dir)
	}
}

// spillChild collects into the folder named by the environment until it
// is killed: each run's diskstats in four spills of 10 and 10 more at its
// commit, a line printed after each spill and commit.
func spillChild() {
	dir := os.Getenv("SAMPLES_SPILL_CHILD")
	var w *Writer
	st := &State{Done: map[int64]bool{}}
	var err error
	if _, serr := os.Stat(filepath.Join(dir, "capture")); serr != nil {
		w, err = Create(dir, Options{})
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
	text := func(i int) []Diskstats {
		var out []Diskstats
		for j := range 10 {
			out = append(out, Diskstats{Seq: int32(i*10 + j), Text: diskstatsText(i*10+j, 4<<10)})
		}
		return out
	}
	for id := int64(1); ; id++ {
		if st.Done[id] {
			continue
		}
		sp, err := w.Spill(id)
		if err != nil {
			panic(err)
		}
		for i := range 4 {
			if err := sp.Write(&Batch{Diskstats: text(i)}); err != nil {
				panic(err)
			}
			fmt.Printf("spilled %d %d\n", id, i)
		}
		b := fullBatch(w.CaptureID(), w.Session(), id, 3, nil)
		b.Diskstats = text(4)
		if err := sp.Commit(b); err != nil {
			panic(err)
		}
		fmt.Printf("committed %d\n", id)
	}
}
