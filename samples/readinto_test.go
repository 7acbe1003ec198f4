package samples

import (
	"reflect"
	"testing"
	"unsafe"
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
