package samples

import (
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// TestColumnReadersAsArrow reads every table's part through the column
// readers and through Arrow, and wants the same rows: more rows than a
// batch, nulls, empty and invalid UTF-8 text, extreme numbers, the zero
// time. The column readers must take every part this pgstudy writes
// (else the speed they bring is lost without a sign).
func TestColumnReadersAsArrow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	w, dir := mustCreate(t, Options{})
	w.mem = mem
	b := fullBatch(w.CaptureID(), 1, 1, 2*colBatch+17, nil)
	for i := range b.Diskstats {
		b.Diskstats[i].Phase = []string{"before", "sample", "after"}[i%3] // a dictionary column
	}
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	for i := range Tables {
		tb := &Tables[i]
		if tb.Name == "capture" || tb.Name == "host" {
			continue
		}
		path := filepath.Join(dir, tb.Name, "r000001.parquet")
		if _, err := os.Stat(path); err != nil {
			continue // a table the batch does not write to
		}
		t.Run(tb.Name, func(t *testing.T) {
			arrow := readWith(t, path, tb, mem, false)
			// With the checked allocator, and with the page pool, whose
			// buffers go from one read to the next (three at once).
			cols := []reflect.Value{readWith(t, path, tb, mem, true), {}, {}, {}}
			var wg sync.WaitGroup
			for k := 1; k < len(cols); k++ {
				wg.Go(func() { cols[k] = readWith(t, path, tb, pagePool{}, true) })
			}
			wg.Wait()
			for k, c := range cols {
				if c.Len() == 0 || !reflect.DeepEqual(c.Interface(), arrow.Interface()) {
					t.Errorf("read %d: %d rows through the column readers, %d through Arrow, or they differ", k, c.Len(), arrow.Len())
				}
			}
		})
	}
}

// TestColumnReadersShareDictionary checks that a dictionary column's rows
// share their strings, as they did through Arrow: a capture's repeated
// phases and devices must not cost a string a row.
func TestColumnReadersShareDictionary(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	b := &Batch{Run: Run{RunID: 1}}
	for i := range 3 * colBatch {
		b.Diskstats = append(b.Diskstats, Diskstats{Seq: int32(i), Phase: []string{"before", "sample"}[i%2], Text: "x"})
	}
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	rows := readWith(t, filepath.Join(dir, "diskstats", "r000001.parquet"), tableNamed("diskstats"), memory.DefaultAllocator, true).
		Interface().([]Diskstats)
	if len(rows) != 3*colBatch {
		t.Fatalf("%d rows", len(rows))
	}
	for i := 2; i < len(rows); i++ {
		if unsafe.StringData(rows[i].Phase) != unsafe.StringData(rows[i-2].Phase) {
			t.Fatalf("rows %d and %d hold copies of %q, not one string", i-2, i, rows[i].Phase)
		}
	}
}

// readWith reads a part's rows through the column readers or Arrow.
func readWith(t *testing.T, path string, tb *Table, mem memory.Allocator, columns bool) reflect.Value {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false, file.WithReadProps(readProps(mem)))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	ignoreArrowSchema(md)
	leaves, wanted, err := pickColumns(md, tb, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := reflect.New(reflect.SliceOf(tb.Type)).Elem()
	if columns {
		plans, ok := columnPlans(md, leaves, wanted)
		if !ok {
			t.Fatalf("the column readers do not take a part of %s as this pgstudy writes it", tb.Name)
		}
		err = decodeColumns(pf, plans, out)
	} else {
		err = decodeArrow(pf, leaves, wanted, out, mem)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPlainType: the column readers take a column only where Arrow reads
// it to the array decodeColumn takes for the field; other parts are read
// through Arrow, which reads them as before (or refuses them as before).
func TestPlainType(t *testing.T) {
	tests := []struct {
		name    string
		phys    parquet.Type
		logical schema.LogicalType
		kind    kind
		want    bool
	}{
		{"text", parquet.Types.ByteArray, schema.StringLogicalType{}, kindString, true},
		{"bytes as text", parquet.Types.ByteArray, schema.NoLogicalType{}, kindString, true},
		{"JSON as text (Arrow: binary)", parquet.Types.ByteArray, schema.JSONLogicalType{}, kindString, false},
		{"bool", parquet.Types.Boolean, schema.NoLogicalType{}, kindBool, true},
		{"int32", parquet.Types.Int32, schema.NoLogicalType{}, kindInt32, true},
		{"int32 into int64", parquet.Types.Int32, schema.NewIntLogicalType(32, true), kindInt64, true},
		{"int16 (Arrow: int16, refused)", parquet.Types.Int32, schema.NewIntLogicalType(16, true), kindInt32, false},
		{"uint32 (Arrow: uint32, refused)", parquet.Types.Int32, schema.NewIntLogicalType(32, false), kindInt64, false},
		{"date (Arrow: date32, refused)", parquet.Types.Int32, schema.DateLogicalType{}, kindInt32, false},
		{"int64", parquet.Types.Int64, schema.NoLogicalType{}, kindInt64, true},
		{"uint64 (refused)", parquet.Types.Int64, schema.NewIntLogicalType(64, false), kindInt64, false},
		{"timestamp into int64 (refused)", parquet.Types.Int64, schema.NewTimestampLogicalType(true, schema.TimeUnitMicros), kindInt64, false},
		{"timestamp", parquet.Types.Int64, schema.NewTimestampLogicalType(true, schema.TimeUnitMicros), kindTime, true},
		{"local timestamp in ms", parquet.Types.Int64, schema.NewTimestampLogicalType(false, schema.TimeUnitMillis), kindTime, true},
		{"int64 into time (refused)", parquet.Types.Int64, schema.NoLogicalType{}, kindTime, false},
		{"float into float64", parquet.Types.Float, schema.NoLogicalType{}, kindFloat64, true},
		{"double", parquet.Types.Double, schema.NoLogicalType{}, kindFloat64, true},
		{"int96 (refused)", parquet.Types.Int96, schema.NoLogicalType{}, kindTime, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node, err := schema.NewPrimitiveNodeLogical("c", parquet.Repetitions.Optional, tt.logical, tt.phys, 0, -1)
			if err != nil {
				t.Fatal(err)
			}
			p := colPlan{c: column{name: "c", kind: tt.kind}}
			if got := plainType(schema.NewColumn(node, 1, 0), &p); got != tt.want {
				t.Errorf("plainType = %v, want %v", got, tt.want)
			}
		})
	}
}
