package samples

// Decoding: an arrow column of a part into the fields of its row type,
// the inverse of encode.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// decodeColumn sets field c of rows[start:] from arr. The values are
// written through the field's address, a row's size apart: a reflect call
// per value was a third of reading a large capture. kindOf admits only the
// unnamed types written here (string, bool, int32, int64, float64,
// time.Time, or a pointer to one for a nullable column), so each store is
// of the field's own type.
func decodeColumn(arr arrow.Array, c column, rows reflect.Value, start int) error {
	n := arr.Len()
	if n == 0 {
		return nil
	}
	if !c.nullable && arr.NullN() > 0 {
		for i := range n {
			if arr.IsNull(i) {
				return fmt.Errorf("row %d is null", start+i)
			}
		}
	}
	f := fields{base: rows.Index(start).Field(c.field).Addr().UnsafePointer(), stride: rows.Type().Elem().Size(),
		arr: arr, nullable: c.nullable}
	switch c.kind {
	case kindString:
		if get := stringGetter(arr); get != nil {
			return fillRows(f, get)
		}
	case kindBool:
		if a, ok := arr.(*array.Boolean); ok {
			return fillRows(f, a.Value)
		}
	case kindInt32:
		if a, ok := arr.(*array.Int32); ok {
			return fillRows(f, a.Value)
		}
	case kindInt64:
		switch a := arr.(type) {
		case *array.Int64:
			return fillRows(f, a.Value)
		case *array.Int32:
			return fillRows(f, func(i int) int64 { return int64(a.Value(i)) })
		}
	case kindFloat64:
		switch a := arr.(type) {
		case *array.Float64:
			return fillRows(f, a.Value)
		case *array.Float32:
			return fillRows(f, func(i int) float64 { return float64(a.Value(i)) })
		}
	case kindTime:
		if a, ok := arr.(*array.Timestamp); ok {
			conv := timeFunc(a.DataType().(*arrow.TimestampType).Unit)
			return fillRows(f, func(i int) time.Time { return conv(int64(a.Value(i))) })
		}
	}
	return fmt.Errorf("unexpected type %s", arr.DataType())
}

// fields addresses one field of consecutive rows.
type fields struct {
	base     unsafe.Pointer // the field of the first row
	stride   uintptr        // the size of a row
	arr      arrow.Array
	nullable bool // the field is a pointer: nil for null
}

// fillRows stores get(i) in the field of row i, or a pointer to it in a
// nullable field; the values pointed to share one slice per column.
func fillRows[T any](f fields, get func(int) T) error {
	n := f.arr.Len()
	if !f.nullable {
		for i := range n {
			*(*T)(unsafe.Add(f.base, uintptr(i)*f.stride)) = get(i)
		}
		return nil
	}
	vals := make([]T, n-f.arr.NullN())
	k := 0
	for i := range n {
		p := (**T)(unsafe.Add(f.base, uintptr(i)*f.stride))
		if f.arr.IsNull(i) {
			*p = nil
			continue
		}
		vals[k] = get(i)
		*p = &vals[k]
		k++
	}
	return nil
}

// stringGetter reads a text column. The values are copied (the arrow
// buffers are released after the batch); a dictionary's values are copied
// once each, and the rows share them: a column of a few distinct values
// (a phase, a device, a capture id) costs no allocation per row.
func stringGetter(arr arrow.Array) func(int) string {
	switch a := arr.(type) {
	case *array.String:
		return func(i int) string { return strings.Clone(a.Value(i)) }
	case *array.LargeString:
		return func(i int) string { return strings.Clone(a.Value(i)) }
	case *array.Binary:
		return func(i int) string { return string(a.Value(i)) }
	case *array.LargeBinary:
		return func(i int) string { return string(a.Value(i)) }
	case *array.Dictionary:
		values := stringGetter(a.Dictionary())
		if values == nil {
			return nil
		}
		dict := make([]string, a.Dictionary().Len())
		for k := range dict {
			if a.Dictionary().IsValid(k) {
				dict[k] = values(k)
			}
		}
		return func(i int) string { return dict[a.GetValueIndex(i)] }
	}
	return nil
}

// arrowReadProps are the Arrow reader's properties for the leaves read:
// batches of up to 64k rows, text columns of few values as dictionaries.
func arrowReadProps(md *metadata.FileMetaData, leaves []int, wanted []column) pqarrow.ArrowReadProperties {
	props := pqarrow.ArrowReadProperties{BatchSize: min(64<<10, max(md.NumRows, 1))}
	for k, leaf := range leaves {
		if wanted[k].kind == kindString && dictionaryOnly(md, leaf) {
			props.SetReadDict(leaf, true)
		}
	}
	return props
}

// dictionaryOnly says whether every data page of a column is dictionary
// encoded, as the writer leaves a column of few distinct values: read as
// a dictionary, its rows share their strings (stringGetter). A column the
// writer fell back to plain pages for is read as plain text, which a
// dictionary would only slow.
func dictionaryOnly(md *metadata.FileMetaData, leaf int) bool {
	for g := range md.NumRowGroups() {
		cc, err := md.RowGroup(g).ColumnChunk(leaf)
		if err != nil || !cc.HasDictionaryPage() {
			return false
		}
		stats := cc.EncodingStats()
		if len(stats) == 0 {
			return false // a writer that does not say
		}
		for _, st := range stats {
			if st.PageType.String() != "DICTIONARY_PAGE" &&
				st.Encoding != parquet.Encodings.RLEDict && st.Encoding != parquet.Encodings.PlainDict {
				return false
			}
		}
	}
	return true
}

// timeFunc converts a timestamp of the given unit to a UTC time.Time.
func timeFunc(unit arrow.TimeUnit) func(int64) time.Time {
	switch unit {
	case arrow.Second:
		return func(v int64) time.Time { return time.Unix(v, 0).UTC() }
	case arrow.Millisecond:
		return func(v int64) time.Time { return time.UnixMilli(v).UTC() }
	case arrow.Microsecond:
		return func(v int64) time.Time { return time.UnixMicro(v).UTC() }
	default:
		return func(v int64) time.Time { return time.Unix(0, v).UTC() }
	}
}

// decodeArrow appends the rows of pf to out through Arrow records, for a
// part the column readers do not read (decodeColumns). An error of the
// Arrow reader is an errDamaged.
func decodeArrow(pf *file.Reader, leaves []int, wanted []column, out reflect.Value, mem memory.Allocator) error {
	fr, err := pqarrow.NewFileReader(pf, arrowReadProps(pf.MetaData(), leaves, wanted), mem)
	if err != nil {
		return errDamaged{err}
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		return errDamaged{err}
	}
	defer rr.Release()
	if err := appendRecords(rr, wanted, out); err != nil {
		return err
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return errDamaged{err}
	}
	return nil
}

// appendRecords decodes every record rr yields into out.
func appendRecords(rr pqarrow.RecordReader, wanted []column, out reflect.Value) error {
	for rr.Next() {
		rec := rr.Record()
		start, n := out.Len(), int(rec.NumRows())
		out.Grow(n)
		out.SetLen(start + n)
		for _, c := range wanted {
			idx := rec.Schema().FieldIndices(c.name)
			if len(idx) != 1 {
				return fmt.Errorf("column %s is missing", c.name)
			}
			if err := decodeColumn(rec.Column(idx[0]), c, out, start); err != nil {
				return fmt.Errorf("column %s: %w", c.name, err)
			}
		}
	}
	return nil
}
