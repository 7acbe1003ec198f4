package samples

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestTablesBuild(t *testing.T) {
	if len(Tables) != 23 {
		t.Fatalf("%d tables", len(Tables))
	}
	seen := map[string]bool{}
	for _, tb := range Tables {
		if seen[tb.Name] {
			t.Fatalf("table %s twice", tb.Name)
		}
		seen[tb.Name] = true
		if tb.Schema.NumFields() != tb.Type.NumField() {
			t.Errorf("%s: %d columns for %d fields", tb.Name, tb.Schema.NumFields(), tb.Type.NumField())
		}
		if tb.Schema.Field(0).Name != "capture_id" {
			t.Errorf("%s: first column %s", tb.Name, tb.Schema.Field(0).Name)
		}
		for i := range tb.Type.NumField() {
			sf := tb.Type.Field(i)
			af := tb.Schema.Field(i)
			if af.Name != sf.Tag.Get("pq") || af.Nullable != (sf.Type.Kind() == reflect.Pointer) {
				t.Errorf("%s: field %s became %v", tb.Name, sf.Name, af)
			}
		}
		md := tb.Schema.Metadata()
		if v, _ := md.GetValue(MetaFormatVersion); v != "1" {
			t.Errorf("%s: format version metadata %q", tb.Name, v)
		}
		if v, _ := md.GetValue(MetaTable); v != tb.Name {
			t.Errorf("%s: table metadata %q", tb.Name, v)
		}
		// raw_bytes is per run and written by the writer, not the caller.
		_, inBatch := batchFields[tb.Name]
		if inBatch != tb.perRun() && tb.Name != "raw_bytes" {
			t.Errorf("%s: in Batch %v, per run %v", tb.Name, inBatch, tb.perRun())
		}
	}
	if Tables[len(Tables)-1].Name != "runs" {
		t.Error("runs must be the last table")
	}
	if tb := tableNamed("runs"); tb.Schema.Field(tb.runID).Name != "run_id" || tb.session < 0 {
		t.Error("runs: run_id or session not found")
	}
	if tb := tableNamed("capture"); tb.formatVersion < 0 || tb.session < 0 || tb.perRun() {
		t.Error("capture: format_version or session not found")
	}
}

func TestNewTableRejects(t *testing.T) {
	type untagged struct {
		CaptureID string `pq:"capture_id"`
		X         int64
	}
	type badType struct {
		CaptureID string `pq:"capture_id"`
		X         int    `pq:"x"`
	}
	type named string
	type namedType struct {
		CaptureID string `pq:"capture_id"`
		X         named  `pq:"x"`
	}
	type noCaptureID struct {
		X int64 `pq:"x"`
	}
	type dup struct {
		CaptureID string `pq:"capture_id"`
		X         int64  `pq:"x"`
		Y         int64  `pq:"x"`
	}
	type slice struct {
		CaptureID string   `pq:"capture_id"`
		X         []string `pq:"x"`
	}
	for name, f := range map[string]func(){
		"untagged":      func() { newTable[untagged]("t") },
		"int":           func() { newTable[badType]("t") },
		"named":         func() { newTable[namedType]("t") },
		"no capture_id": func() { newTable[noCaptureID]("t") },
		"duplicate":     func() { newTable[dup]("t") },
		"slice":         func() { newTable[slice]("t") },
		"not a struct":  func() { newTable[int]("t") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestRoundTrip writes every table with every field set and reads back
// exactly the same rows, with no arrow memory leaked on either side.
// validUTF8Rows copies rows with every string made valid UTF-8 as the
// writer stores it, telling found of each value changed.
func validUTF8Rows(rows reflect.Value, found func(col string, row int, orig string)) reflect.Value {
	out := reflect.MakeSlice(rows.Type(), rows.Len(), rows.Len())
	reflect.Copy(out, rows)
	typ := rows.Type().Elem()
	for i := range out.Len() {
		for f := range typ.NumField() {
			col := typ.Field(f).Tag.Get("pq")
			fv := out.Index(i).Field(f)
			if fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.String {
				if s := fv.Elem().String(); !utf8.ValidString(s) {
					p := reflect.New(fv.Type().Elem())
					p.Elem().SetString(strings.ToValidUTF8(s, "\uFFFD"))
					fv.Set(p)
					found(col, i, s)
				}
			} else if fv.Kind() == reflect.String && col != "capture_id" {
				if s := fv.String(); !utf8.ValidString(s) {
					fv.SetString(strings.ToValidUTF8(s, "\uFFFD"))
					found(col, i, s)
				}
			}
		}
	}
	return out
}

// runStart is the index of the first row of run in rows.
func runStart(rows reflect.Value, run int64) int64 {
	for i := range rows.Len() {
		if rows.Index(i).FieldByName("RunID").Int() == run {
			return int64(i)
		}
	}
	return -1
}

func TestRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	dir := t.TempDir()
	w, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.mem = mem
	id := w.CaptureID()
	if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Fatalf("capture id %q", id)
	}
	c, hosts := sessionRows(id, 1, 5, nil)
	if err := w.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}

	// Run 1: 7 rows per table, one text of 5 MB, not very compressible.
	big := randomText(5 << 20)
	b1 := fullBatch(id, 1, 1, 7, nil)
	b1.Plans[3].Text = big
	b1.Outputs[0].Text = big[:1<<20]
	// Run 2: one row per table. Run 3: the run row alone.
	b2 := fullBatch(id, 1, 2, 1, nil)
	b3 := &Batch{Run: fullBatch(id, 1, 3, 1, nil).Run}
	for _, b := range []*Batch{b1, b2, b3} {
		if err := w.Commit(b); err != nil {
			t.Fatal(err)
		}
	}

	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.mem = mem
	if r.Dir() != dir {
		t.Errorf("Dir %q", r.Dir())
	}
	if caps, want := r.Captures(), validUTF8Rows(reflect.ValueOf([]Capture{c}), func(string, int, string) {}).Interface(); !reflect.DeepEqual(caps, want) {
		t.Errorf("captures:\n got %+v\nwant %+v", caps, c)
	}
	got := readAll(t, r)
	want := map[string]reflect.Value{
		"capture": reflect.ValueOf([]Capture{c}),
		"host":    reflect.ValueOf(hosts),
	}
	for name := range batchFields {
		rows := reflect.MakeSlice(reflect.SliceOf(tableNamed(name).Type), 0, 0)
		for _, b := range []*Batch{b1, b2, b3} {
			v, _ := b.rows(tableNamed(name))
			rows = reflect.AppendSlice(rows, v)
		}
		want[name] = rows
	}
	signedFacts(t, r, want["run_facts"])
	checkRawBytes(t, r, want)
	sameTables(t, got, want)
	spotCheck(t, r, dir, id, big)
}

// signedFacts sets, in the run_facts rows written, the raw_parts the writer
// gives them: the signature of the run's diskstats and stats parts, both
// written.
func signedFacts(t *testing.T, r *Reader, rows reflect.Value) {
	t.Helper()
	for i := range rows.Len() {
		row := rows.Index(i).Addr().Interface().(*RunFact)
		sig, err := r.RawParts(runPart(row.RunID))
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^diskstats \d+ crc32c [0-9a-f]{8}; stats \d+ crc32c [0-9a-f]{8}$`).MatchString(sig) {
			t.Errorf("run %d: raw parts %q, want both parts' sizes and checksums", row.RunID, sig)
		}
		row.RawParts = sig
	}
}

// spotCheck checks real values, not only equality with the input: the
// big text, run ids, capture ids and times, and the parts on disk.
func spotCheck(t *testing.T, r *Reader, dir, id, big string) {
	t.Helper()
	plans, err := Read[Plan](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 8 || plans[3].Text != big || plans[7].RunID != 2 || plans[0].CaptureID != id {
		t.Errorf("plans: %d rows", len(plans))
	}
	runs, err := Read[Run](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].RunID != 1 || runs[2].RunID != 3 || runs[0].BackendPID == nil ||
		runs[1].Session != 1 || !runs[0].StartedAt.Equal(time.Date(2025, 3, 4, 5, 6, 7, 123456000, time.UTC)) {
		t.Errorf("runs: %+v", runs)
	}
	for _, name := range []string{"r000001.parquet", "r000002.parquet", "r000003.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, "runs", name)); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "steps", "r000003.parquet")); !os.IsNotExist(err) {
		t.Errorf("empty table got a part: %v", err)
	}
}

// checkRawBytes replaces, in want, text that is not UTF-8 by what it reads
// back as (U+FFFD in its invalid bytes' place), and checks that its bytes
// are in raw_bytes, addressed by table, column, run and row of the run's
// part.
func checkRawBytes(t *testing.T, r *Reader, want map[string]reflect.Value) {
	t.Helper()
	wantRaw := map[string]string{}
	for name, rows := range want {
		want[name] = validUTF8Rows(rows, func(col string, row int, orig string) {
			run, first := int64(0), row // a session's table: run 0
			if f := rows.Index(row).FieldByName("RunID"); f.IsValid() {
				run = f.Int()
				first = row - int(runStart(rows, run))
			}
			wantRaw[fmt.Sprintf("%s.%s run %d row %d", name, col, run, first)] = orig
		})
	}
	raws, err := Read[RawBytes](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(raws) != len(wantRaw) || len(raws) == 0 {
		t.Errorf("%d raw_bytes rows, want %d", len(raws), len(wantRaw))
	}
	for _, raw := range raws {
		key := fmt.Sprintf("%s.%s run %d row %d", raw.Table, raw.Column, raw.RunID, raw.Row)
		b, err := base64.StdEncoding.DecodeString(raw.Base64)
		if orig, ok := wantRaw[key]; !ok || err != nil || string(b) != orig {
			t.Errorf("raw_bytes %s: %q (%v), want %q (%v)", key, b, err, orig, ok)
		}
	}
}

// sameTables compares every table read with the rows written.
func sameTables(t *testing.T, got, want map[string]reflect.Value) {
	t.Helper()
	for name, w := range want {
		g := got[name]
		if g.Len() != w.Len() {
			t.Errorf("%s: %d rows, want %d", name, g.Len(), w.Len())
			continue
		}
		for i := range w.Len() {
			if !reflect.DeepEqual(g.Index(i).Interface(), w.Index(i).Interface()) {
				t.Errorf("%s row %d:\n got %s\nwant %s", name, i, short(g.Index(i)), short(w.Index(i)))
			}
		}
	}
}

// TestWriterOwnsColumns checks that the writer overwrites capture_id,
// session, run_id and format_version whatever the caller put there.
func TestWriterOwnsColumns(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteSession(Capture{CaptureID: "bogus", Session: 9, FormatVersion: 99},
		[]Host{{CaptureID: "bogus", Session: 9, Name: "kernel.release"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(&Batch{
		Run:   Run{CaptureID: "bogus", RunID: 5, Session: 9},
		Steps: []Step{{CaptureID: "bogus", RunID: 77, Seq: 1}},
	}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Captures()[0]
	if c.CaptureID != w.CaptureID() || c.Session != 1 || c.FormatVersion != FormatVersion {
		t.Errorf("capture %+v", c)
	}
	hosts, _ := Read[Host](r)
	runs, _ := Read[Run](r)
	steps, _ := Read[Step](r)
	if hosts[0].CaptureID != w.CaptureID() || hosts[0].Session != 1 || hosts[0].Name != "kernel.release" {
		t.Errorf("host %+v", hosts[0])
	}
	if runs[0].CaptureID != w.CaptureID() || runs[0].Session != 1 || runs[0].RunID != 5 {
		t.Errorf("run %+v", runs[0])
	}
	if steps[0].CaptureID != w.CaptureID() || steps[0].RunID != 5 || steps[0].Seq != 1 {
		t.Errorf("step %+v", steps[0])
	}
}

// TestLargeText writes the sizes the collector meets: a 10 MB EXPLAIN and
// 600 diskstats snapshots of 5 KB in one run.
func TestLargeText(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	w, dir := mustCreate(t, Options{})
	w.mem = mem
	plan := randomText(10 << 20)
	b := &Batch{Run: Run{RunID: 1}, Plans: []Plan{{Kind: "explain", Format: "text", Text: plan}}}
	for i := range 600 {
		b.Diskstats = append(b.Diskstats, Diskstats{Seq: int32(i), Phase: "sample", Text: diskstatsText(i, 5<<10)})
	}
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.mem = mem
	plans, err := Read[Plan](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 1 || plans[0].Text != plan {
		t.Fatal("10 MB plan did not round-trip")
	}
	ds, err := Read[Diskstats](r)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 600 {
		t.Fatalf("%d diskstats", len(ds))
	}
	for i, d := range ds {
		if d.Seq != int32(i) || d.Text != diskstatsText(i, 5<<10) {
			t.Fatalf("diskstats %d differs", i)
		}
	}
}

// randomText is n bytes of printable text that compresses poorly.
func randomText(n int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789()->=:.,\n"
	var sb strings.Builder
	sb.Grow(n)
	for sb.Len() < n {
		sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return sb.String()
}

// short prints a row for a failure message, pointers followed, long
// strings cut.
func short(v reflect.Value) string {
	var parts []string
	for f := range v.NumField() {
		fv := v.Field(f)
		if fv.Kind() == reflect.Pointer && !fv.IsNil() {
			fv = fv.Elem()
		}
		s := fmt.Sprintf("%q", fmt.Sprint(fv.Interface()))
		if len(s) > 80 {
			s = s[:80] + "..."
		}
		parts = append(parts, v.Type().Field(f).Name+"="+s)
	}
	return strings.Join(parts, " ")
}
