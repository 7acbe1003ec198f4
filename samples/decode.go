package samples

// Decoding: an arrow column of a part into the fields of its row type,
// the inverse of encode.go.

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// decodeColumn sets field c of rows[start:] from arr.
func decodeColumn(arr arrow.Array, c column, rows reflect.Value, start int) error {
	get, err := getter(arr, c.kind)
	if err != nil {
		return err
	}
	for i := range arr.Len() {
		f := rows.Index(start + i).Field(c.field)
		if arr.IsNull(i) {
			if !c.nullable {
				return fmt.Errorf("row %d is null", start+i)
			}
			f.SetZero()
			continue
		}
		if c.nullable {
			p := reflect.New(f.Type().Elem())
			f.Set(p)
			f = p.Elem()
		}
		get(i, f)
	}
	return nil
}

// getter returns a function that copies element i of arr into a field of
// kind k, accepting the arrow types a Parquet reader may give for it.
func getter(arr arrow.Array, k kind) (func(int, reflect.Value), error) {
	switch k {
	case kindString:
		// Clone: the arrow buffers are released after the batch.
		switch a := arr.(type) {
		case *array.String:
			return func(i int, f reflect.Value) { f.SetString(strings.Clone(a.Value(i))) }, nil
		case *array.LargeString:
			return func(i int, f reflect.Value) { f.SetString(strings.Clone(a.Value(i))) }, nil
		case *array.Binary:
			return func(i int, f reflect.Value) { f.SetString(string(a.Value(i))) }, nil
		case *array.LargeBinary:
			return func(i int, f reflect.Value) { f.SetString(string(a.Value(i))) }, nil
		}
	case kindBool:
		if a, ok := arr.(*array.Boolean); ok {
			return func(i int, f reflect.Value) { f.SetBool(a.Value(i)) }, nil
		}
	case kindInt32:
		if a, ok := arr.(*array.Int32); ok {
			return func(i int, f reflect.Value) { f.SetInt(int64(a.Value(i))) }, nil
		}
	case kindInt64:
		switch a := arr.(type) {
		case *array.Int64:
			return func(i int, f reflect.Value) { f.SetInt(a.Value(i)) }, nil
		case *array.Int32:
			return func(i int, f reflect.Value) { f.SetInt(int64(a.Value(i))) }, nil
		}
	case kindFloat64:
		switch a := arr.(type) {
		case *array.Float64:
			return func(i int, f reflect.Value) { f.SetFloat(a.Value(i)) }, nil
		case *array.Float32:
			return func(i int, f reflect.Value) { f.SetFloat(float64(a.Value(i))) }, nil
		}
	case kindTime:
		if a, ok := arr.(*array.Timestamp); ok {
			conv := timeFunc(a.DataType().(*arrow.TimestampType).Unit)
			return func(i int, f reflect.Value) { f.Set(reflect.ValueOf(conv(int64(a.Value(i))))) }, nil
		}
	}
	return nil, fmt.Errorf("unexpected type %s", arr.DataType())
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
