package samples

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readCommitted reads every table of r as a reader counts it: the
// committed parts, in order.
func readCommitted(t *testing.T, r *Reader) map[string]reflect.Value {
	t.Helper()
	got := map[string]reflect.Value{}
	for i := range Tables {
		tb := &Tables[i]
		out := reflect.New(reflect.SliceOf(tb.Type)).Elem()
		parts, err := r.committedParts(tb)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if err := r.readPart(tb, p, out, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		got[tb.Name] = out
	}
	return got
}

// checkRawAddressing checks that every raw_bytes row of a run names the
// row of its table, in the part of the same name, whose value is its
// bytes made valid: the addressing a reader follows.
func checkRawAddressing(t *testing.T, r *Reader) int {
	t.Helper()
	parts, err := r.Parts("raw_bytes")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range parts {
		raws, err := ReadPart[RawBytes](r, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range raws {
			tb := tableNamed(raw.Table)
			rows := reflect.New(reflect.SliceOf(tb.Type)).Elem()
			if err := r.readPart(tb, p, rows, nil, nil); err != nil {
				t.Fatal(err)
			}
			b, _ := base64.StdEncoding.DecodeString(raw.Base64)
			ci := slices.IndexFunc(tb.cols, func(c column) bool { return c.name == raw.Column })
			f := rows.Index(int(raw.Row)).Field(tb.cols[ci].field)
			if f.Kind() == reflect.Pointer {
				f = f.Elem()
			}
			if want := strings.ToValidUTF8(string(b), "\uFFFD"); f.String() != want {
				t.Fatalf("%s: raw row of %s.%s row %d: the row holds %q, want %q", p, raw.Table, raw.Column, raw.Row, f.String(), want)
			}
			n++
		}
	}
	return n
}

// compactable writes a capture of runs 1 to 12 (some committed one by
// one, some together), with values that are not UTF-8 (raw_bytes rows)
// and signed facts, and runs 14 and 15 after a hole.
func compactable(t *testing.T) string {
	t.Helper()
	w, dir := mustCreate(t, Options{})
	id := w.CaptureID()
	commit := func(ids ...int64) {
		var bs []*Batch
		for _, run := range ids {
			bs = append(bs, fullBatch(id, 1, run, 3, nil))
		}
		if err := w.CommitMany(bs); err != nil {
			t.Fatal(err)
		}
	}
	for run := int64(1); run <= 5; run++ {
		commit(run)
	}
	commit(6, 7, 8, 9)
	commit(10)
	commit(11)
	commit(12)
	commit(14)
	commit(15)
	w.Close()
	return dir
}

// TestCompact: the rows every table reads are the same before and after,
// in order; raw_bytes rows still address their value; facts stay signed
// with their raw parts; runs across a hole are not put in one part.
func TestCompact(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  func(parts []*plannedPart) int64
		groups int
	}{
		{"one part per table", func([]*plannedPart) int64 { return 0 }, 2}, // runs 1-12, and 14-15 past the hole
		{"several parts", func(parts []*plannedPart) int64 {
			var most int64
			for _, p := range parts {
				for _, n := range p.bytes {
					most = max(most, n)
				}
			}
			return 3 * most // about three runs a part
		}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := compactable(t)
			r := mustOpen(t, dir)
			before := readCommitted(t, r)
			rawBefore := checkRawAddressing(t, r)
			parts, err := planParts(dir, r)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := Compact(dir, CompactOptions{PartBytes: tc.limit(parts)})
			if err != nil {
				t.Fatal(err)
			}
			r = mustOpen(t, dir)
			after := readCommitted(t, r)
			sameAfterCompact(t, before, after)
			if rawAfter := checkRawAddressing(t, mustOpen(t, dir)); rawAfter != rawBefore || rawAfter == 0 {
				t.Errorf("%d raw rows address their values, %d before", rawAfter, rawBefore)
			}
			runsParts, _ := r.Parts("runs")
			if len(runsParts) != tc.groups || sum.Groups == 0 || sum.FilesAfter >= sum.FilesBefore {
				t.Errorf("runs parts %v, summary %+v", runsParts, sum)
			}
			for _, p := range runsParts {
				if strings.Contains(p, "000013") || strings.HasPrefix(p, "r000012-") {
					t.Errorf("%s holds runs across the hole at run 13", p)
				}
				facts, err := ReadPart[RunFact](r, p)
				if err != nil {
					t.Fatal(err)
				}
				sig, _ := r.RawParts(p)
				for _, f := range facts {
					if f.RawParts != sig {
						t.Errorf("%s: run %d's facts are signed %q, its raw parts are %q", p, f.RunID, f.RawParts, sig)
					}
				}
			}
			if sum.FactsKept == 0 || sum.FactsStale != 0 {
				t.Errorf("facts kept %d, stale %d", sum.FactsKept, sum.FactsStale)
			}
			// Only parts remain, every one counted.
			entries, _ := os.ReadDir(filepath.Join(dir, "diskstats"))
			if len(entries) != tc.groups {
				t.Errorf("diskstats holds %d files, want %d", len(entries), tc.groups)
			}
			again, err := Compact(dir, CompactOptions{PartBytes: tc.limit(parts)})
			if tc.groups == 2 && (err != nil || again.Groups != 0 || again.FilesAfter != sum.FilesAfter) {
				t.Errorf("compacted twice: %+v, %v", again, err)
			}
		})
	}
}

// TestCompactStop: Stop, asked before each group, ends the compaction
// between two groups: the groups done are compacted, the others' parts
// are as they were, every row reads as before, and a second compaction
// finishes the work.
func TestCompactStop(t *testing.T) {
	dir := compactable(t)
	r := mustOpen(t, dir)
	before := readCommitted(t, r)
	parts, err := planParts(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	var most int64
	for _, p := range parts {
		for _, n := range p.bytes {
			most = max(most, n)
		}
	}
	asked := 0
	sum, err := Compact(dir, CompactOptions{PartBytes: 3 * most, Stop: func() bool { asked++; return asked > 1 }})
	if err != nil || !sum.Stopped || sum.Groups != 1 {
		t.Fatalf("summary %+v, %v; want stopped after one group", sum, err)
	}
	sameAfterCompact(t, before, readCommitted(t, mustOpen(t, dir)))
	runsParts, _ := mustOpen(t, dir).Parts("runs")
	if len(runsParts) < 3 || !strings.Contains(runsParts[0], "-") || strings.Contains(runsParts[len(runsParts)-1], "-") {
		t.Errorf("runs parts after one group: %v", runsParts)
	}
	again, err := Compact(dir, CompactOptions{PartBytes: 3 * most})
	if err != nil || again.Stopped || again.Groups != 3 {
		t.Errorf("the second compaction: %+v, %v; want the 3 other groups", again, err)
	}
	sameAfterCompact(t, before, readCommitted(t, mustOpen(t, dir)))
}

// TestCompactThenResume: a compacted capture resumes; its runs are done,
// a run within a compacted part's range is refused, later runs commit,
// and a second compaction takes them in with the compacted part.
func TestCompactThenResume(t *testing.T) {
	dir := compactable(t)
	if _, err := Compact(dir, CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	w, st, err := Resume(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if len(st.Done) != 14 || !st.Done[12] || st.Done[13] || !st.Done[15] {
		t.Errorf("done after compact: %v", st.Done)
	}
	c, hosts := sessionRows(st.CaptureID, w.Session(), 1, nil)
	if err := w.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(fullBatch(st.CaptureID, w.Session(), 16, 2, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(fullBatch(st.CaptureID, w.Session(), 13, 2, nil)); err != nil {
		t.Fatalf("run 13 lies between two compacted parts, not in one: %v", err)
	}
	sum, err := w.Compact(CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runsParts, _ := mustOpen(t, dir).Parts("runs")
	if !slices.Equal(runsParts, []string{"r000001-000016.parquet"}) || sum.Groups != 1 {
		t.Errorf("runs parts after the second compaction: %v (%+v)", runsParts, sum)
	}
	err = w.Commit(fullBatch(st.CaptureID, w.Session(), 17, 2, nil))
	if err != nil {
		t.Fatal(err)
	}
	// A run id inside a compacted range would be replaced at once.
	w.compacted = append(w.compacted, partRange{first: 20, last: 30})
	mustContain(t, w.Commit(fullBatch(st.CaptureID, w.Session(), 25, 2, nil)), "run 25 lies within the compacted part r000020-000030.parquet")
	runs, err := Read[Run](mustOpen(t, dir))
	if err != nil || len(runs) != 17 {
		t.Errorf("%d runs after resume and compaction: %v", len(runs), err)
	}
}

// TestCompactRefuses: a capture in use, or holding files compact does
// not know, is refused with nothing changed.
func TestCompactRefuses(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	if err := w.Commit(fullBatch(w.CaptureID(), 1, 1, 2, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(fullBatch(w.CaptureID(), 1, 2, 2, nil)); err != nil {
		t.Fatal(err)
	}
	_, err := Compact(dir, CompactOptions{})
	mustContain(t, err, "in use by another pgstudy")
	w.Close()

	steps := filepath.Join(dir, "steps", "r000002.parquet")
	for _, tc := range []struct {
		name, want string
		plant      func() func()
	}{
		{"a note in a table", "not a part pgstudy writes", func() func() {
			p := filepath.Join(dir, "runs", "notes.txt")
			os.WriteFile(p, []byte("x"), 0o644)
			return func() { os.Remove(p) }
		}},
		{"a table of a newer pgstudy", "no table this pgstudy knows", func() func() {
			p := filepath.Join(dir, "cpu_facts")
			os.MkdirAll(p, 0o755)
			data, _ := os.ReadFile(steps)
			os.WriteFile(filepath.Join(p, "r000001.parquet"), data, 0o644)
			return func() { os.RemoveAll(p) }
		}},
		{"a part of another table", "part of table steps found in folder plans", func() func() {
			p := filepath.Join(dir, "plans", "r000002.parquet")
			old, _ := os.ReadFile(p)
			data, _ := os.ReadFile(steps)
			os.WriteFile(p, data, 0o644)
			return func() { os.WriteFile(p, old, 0o644) }
		}},
		{"an unknown column", "column pq_extra that this pgstudy does not know", func() func() {
			p := filepath.Join(dir, "steps", "r000001.parquet")
			old, _ := os.ReadFile(p)
			writeWithExtraColumn(t, p)
			return func() { os.WriteFile(p, old, 0o644) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			undo := tc.plant()
			defer undo()
			before := snapshot(t, dir)
			_, err := Compact(dir, CompactOptions{})
			mustContain(t, err, tc.want, "nothing was changed")
			if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
				t.Errorf("the capture changed:\n%v\n%v", before, after)
			}
		})
	}
}

// snapshot is every file of dir with its size and time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			m[p] = fmt.Sprint(info.ModTime().Format(time.RFC3339Nano), " ", info.Size())
		}
		return err
	})
	return m
}

// TestLiveRunParts: which runs parts count.
func TestLiveRunParts(t *testing.T) {
	names := []string{"r000001.parquet", "r000002.parquet", "r000001-000002.parquet", "r000003.parquet",
		"r000001-000004.parquet", "r000005.parquet", "r000006-000009.parquet", "r000010.parquet"}
	slices.SortFunc(names, comparePartNames)
	live, replaced, err := liveRunParts(names)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"r000001-000004.parquet", "r000005.parquet", "r000006-000009.parquet", "r000010.parquet"}; !slices.Equal(live, want) {
		t.Errorf("live %v, want %v", live, want)
	}
	if len(replaced) != 4 {
		t.Errorf("replaced %v", replaced)
	}
	_, _, err = liveRunParts([]string{"r000001-000005.parquet", "r000004-000008.parquet"})
	mustContain(t, err, "overlap")
	for _, bad := range []string{"r000002-000001.parquet", "r000001-000001.parquet", "r1-2.parquet", "r000001-.parquet", "r000000.parquet"} {
		if _, ok := parseRunPart(bad); ok {
			t.Errorf("%s parsed", bad)
		}
	}
	if p, ok := parseRunPart("r000003-1000000.parquet"); !ok || p.first != 3 || p.last != 1000000 {
		t.Errorf("%+v %v", p, ok)
	}
}

// writeWithExtraColumn rewrites the steps part at p with one more column,
// as a later pgstudy of the same format might write it.
func writeWithExtraColumn(t *testing.T, p string) {
	t.Helper()
	tb := tableNamed("steps")
	r := &Reader{fsys: os.DirFS(filepath.Dir(filepath.Dir(p))), root: ".", dir: "x", join: filepath.Join, mem: memory.DefaultAllocator}
	rows := reflect.New(reflect.SliceOf(tb.Type)).Elem()
	if err := r.readPart(tb, filepath.Base(p), rows, nil, nil); err != nil {
		t.Fatal(err)
	}
	rec, err := tb.record(memory.DefaultAllocator, rows, stamp{keep: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for range rows.Len() {
		b.Append("x")
	}
	md := tb.Schema.Metadata()
	schema := arrow.NewSchema(append(slices.Clone(tb.Schema.Fields()), arrow.Field{Name: "pq_extra", Type: arrow.BinaryTypes.String}), &md)
	rec2 := array.NewRecord(schema, append(slices.Clone(rec.Columns()), b.NewArray()), rec.NumRows())
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec2); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

// sameAfterCompact compares what a reader reads before and after compact:
// the same rows in order, but for facts' signatures (checked apart) and
// raw_bytes' row numbers, some of which must have moved.
func sameAfterCompact(t *testing.T, before, after map[string]reflect.Value) {
	t.Helper()
	// Facts differ in their signature only (checked below).
	fb, fa := before["run_facts"].Interface().([]RunFact), after["run_facts"].Interface().([]RunFact)
	for i := range min(len(fb), len(fa)) {
		fa[i].RawParts = fb[i].RawParts
	}
	// raw_bytes rows differ in their row numbers only.
	for _, name := range []string{"raw_bytes"} {
		a, b := before[name].Interface().([]RawBytes), after[name].Interface().([]RawBytes)
		if len(a) != len(b) {
			t.Fatalf("raw_bytes: %d rows, then %d", len(a), len(b))
		}
		moved := 0
		for i := range a {
			if a[i].Row != b[i].Row {
				moved++
			}
			b[i].Row = a[i].Row
		}
		if moved == 0 {
			t.Error("no raw_bytes row was moved: the test does not merge parts with them")
		}
	}
	if !sameRows(before, after) {
		for name := range before {
			if !reflect.DeepEqual(before[name].Interface(), after[name].Interface()) {
				t.Errorf("table %s differs after compact (%d rows, then %d)", name, before[name].Len(), after[name].Len())
			}
		}
	}
}

// TestCompactStaleFacts: facts signed with raw parts other than their
// part's (computed before a raw part was replaced) are not signed with the
// merged parts: they stay stale, for the analysis to compute again, and
// the summary says how many parts' facts were.
func TestCompactStaleFacts(t *testing.T) {
	dir := compactable(t)
	r := mustOpen(t, dir)
	d, err := r.OpenDerived()
	if err != nil {
		t.Fatal(err)
	}
	facts, err := ReadPart[RunFact](r, "r000002.parquet")
	if err != nil || len(facts) == 0 {
		t.Fatalf("%d facts: %v", len(facts), err)
	}
	for i := range facts {
		facts[i].RawParts = "diskstats 1 00000000; stats none"
	}
	if err := WriteDerived(d, r, "r000002.parquet", facts); err != nil {
		t.Fatal(err)
	}
	d.Close()
	sum, err := Compact(dir, CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FactsStale != 1 || sum.FactsKept != 10 {
		t.Errorf("facts kept %d, stale %d; want 10 and 1", sum.FactsKept, sum.FactsStale)
	}
	r = mustOpen(t, dir)
	sig, _ := r.RawParts("r000001-000012.parquet")
	all, err := ReadPart[RunFact](r, "r000001-000012.parquet")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if stale := f.RunID == 2; (f.RawParts == sig) == stale {
			t.Errorf("run %d: facts signed %q (the part's %q)", f.RunID, f.RawParts, sig)
		}
	}
}

// TestCompactRefusesLinksAndInnerCaptures: a part that is a symbolic link
// and a capture inside the capture are each refused, named for what they
// are, with nothing changed.
func TestCompactRefusesLinksAndInnerCaptures(t *testing.T) {
	dir := compactable(t)
	inner := filepath.Join(dir, "inner")
	if err := os.CopyFS(inner, os.DirFS(compactable(t))); err != nil {
		t.Fatal(err)
	}
	if _, err := Compact(dir, CompactOptions{}); err == nil || !strings.Contains(err.Error(), "holds another capture, inner") {
		t.Errorf("a capture inside: %v", err)
	}
	if err := os.RemoveAll(inner); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "runs", "r000015.parquet")
	moved := filepath.Join(t.TempDir(), "r000015.parquet")
	if err := os.Rename(part, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, part); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "diskstats"))
	if _, err := Compact(dir, CompactOptions{}); err == nil || !strings.Contains(err.Error(), "r000015.parquet is a symbolic link") {
		t.Errorf("a linked part: %v", err)
	}
	if after, _ := os.ReadDir(filepath.Join(dir, "diskstats")); len(after) != len(entries) {
		t.Errorf("diskstats holds %d files, %d before", len(after), len(entries))
	}
}
