package samples

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestReadPartInto: the rows read into a caller's slice are those ReadPart
// reads, in its room when they fit, with every field the part does not
// fill zero whatever the slice held before.
func TestReadPartInto(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	b := fullBatch(w.CaptureID(), 1, 1, 300, nil)
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(&Batch{Run: Run{RunID: 2}}); err != nil { // a run without disk facts
		t.Fatal(err)
	}
	r := mustOpen(t, dir)
	want, err := ReadPart[DiskFact](r, "r000001.parquet")
	if err != nil {
		t.Fatal(err)
	}
	stale := func(n int) []DiskFact { // rows full of another part's values
		rows := fillSlice(tableNamed("disk_facts"), n, func(string, int) string { return "stale" }).Interface().([]DiskFact)
		return rows[:n/2]
	}
	tests := []struct {
		name    string
		rows    []DiskFact
		columns []string
		inPlace bool // the rows fit the room given
	}{
		{"nil", nil, nil, false},
		{"room enough", stale(400), nil, true},
		{"room short", stale(100), nil, false},
		{"some columns", stale(400), []string{"run_id", "device"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadPartInto(r, "r000001.parquet", tt.rows, tt.columns...)
			if err != nil {
				t.Fatal(err)
			}
			exp := want
			if tt.columns != nil {
				exp = make([]DiskFact, len(want))
				for i := range want {
					// and the capture id, which checks that the part is of the capture
					exp[i] = DiskFact{CaptureID: want[i].CaptureID, RunID: want[i].RunID, Device: want[i].Device}
				}
			}
			if !reflect.DeepEqual(got, exp) {
				t.Errorf("the rows differ from ReadPart's")
			}
			if same := cap(tt.rows) > 0 && unsafe.SliceData(got) == unsafe.SliceData(tt.rows); same != tt.inPlace {
				t.Errorf("read in the room given: %v, want %v", same, tt.inPlace)
			}
		})
	}
	if got, err := ReadPartInto(r, "r000002.parquet", want); err != nil || len(got) != 0 {
		t.Errorf("a part the table lacks: %d rows, %v", len(got), err)
	}
}

// TestReadPartWhere: a text column read for some rows only holds the
// value in the rows kept and "" in the others, whatever the room given
// held, and the other columns are read as ReadPart reads them; through
// the column readers (every batch, the filtered column decoded after the
// columns the filter reads, even one after it in the table) and through
// Arrow alike. A column that is not text, or may be null, is
// refused.
func TestReadPartWhere(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	b := &Batch{Run: Run{RunID: 1}}
	for i := range 3*colBatch + 5 {
		b.Statements = append(b.Statements, Statement{Seq: int32(i), Phase: []string{"stats", "timed", "set"}[i%3],
			SQL: fmt.Sprintf("select %d", i), Error: fmt.Sprint(i)})
	}
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir)
	all, err := ReadPart[Statement](r, "r000001.parquet")
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(all)
	for i := range want {
		if want[i].Phase == "stats" {
			want[i].SQL = ""
		}
	}
	keep := func(s *Statement) bool { return s.Phase != "stats" }
	stale := make([]Statement, len(all))
	for i := range stale {
		stale[i] = Statement{Phase: "stale", SQL: "stale", Error: "stale"}
	}
	got, err := ReadPartWhere(r, "r000001.parquet", stale[:0], "sql", keep)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the rows kept differ from ReadPart's, or the others hold SQL (%v)", err)
	}
	some, err := ReadPartWhere(r, "r000001.parquet", stale[:0], "sql", keep, "sql", "run_id", "phase")
	if err != nil || len(some) != len(want) || some[1].SQL != want[1].SQL || some[0].SQL != "" || some[1].Error != "" {
		t.Errorf("with columns named: %d rows, %+v, %v", len(some), some[:2], err)
	}
	// A filter on a column that comes after the text in the table.
	even := func(s *Statement) bool { n, err := strconv.Atoi(s.Error); return err == nil && n%2 == 0 }
	byError, err := ReadPartWhere(r, "r000001.parquet", stale[:0], "sql", even)
	for i := range byError {
		if w := fmt.Sprintf("select %d", i); byError[i].SQL != w && i%2 == 0 || byError[i].SQL != "" && i%2 == 1 {
			t.Fatalf("filtered by the error's column, row %d holds %q (%v)", i, byError[i].SQL, err)
		}
	}
	// Through Arrow, as a part the column readers do not take is read.
	tb := tableNamed("statements")
	pf, err := file.OpenParquetFile(filepath.Join(dir, "statements", "r000001.parquet"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	leaves, wanted, err := pickColumns(pf.MetaData(), tb, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := reflect.New(reflect.SliceOf(tb.Type)).Elem()
	if err := decodeArrow(pf, leaves, wanted, out, memory.DefaultAllocator); err != nil {
		t.Fatal(err)
	}
	off := tb.Type.Field(tb.cols[slices.IndexFunc(tb.cols, func(c column) bool { return c.name == "sql" })].field).Offset
	(&textFilter{column: "sql", keep: func(f unsafe.Pointer) bool { return keep((*Statement)(unsafe.Add(f, -off))) }}).clear(out, 0)
	if !reflect.DeepEqual(out.Interface(), want) {
		t.Error("through Arrow, the rows differ")
	}
	for _, col := range []string{"seq", "nothing"} {
		if _, err := ReadPartWhere(r, "r000001.parquet", nil, col, keep); err == nil {
			t.Errorf("ReadPartWhere of column %s: no error", col)
		}
	}
}
