package samples

// Decoding: an arrow column of a part into the fields of its row type,
// the inverse of encode.go.

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
