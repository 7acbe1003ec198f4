package samples

import (
	"fmt"
	"reflect"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// stamp holds the values the writer owns: whatever the caller put in these
// columns is replaced, so that every row of a part agrees with the capture,
// the session and the run it is filed under.
type stamp struct {
	captureID string
	session   int32
	runID     int64 // used when hasRunID
	hasRunID  bool
	keep      bool // the rows' own values are kept: a compaction moves rows, it does not file them
}

// record turns rows (a slice of t.Type) into one arrow record. Every string
// value goes through redact on its way in: this is the single point every
// row passes before it is encoded, so nothing that escapes it reaches disk.
func (t *Table) record(mem memory.Allocator, rows reflect.Value, st stamp, redact func(string) string) (arrow.Record, error) {
	if rows.Kind() != reflect.Slice || rows.Type().Elem() != t.Type {
		return nil, fmt.Errorf("samples: table %s: rows are %s, want []%s", t.Name, rows.Type(), t.Type)
	}
	if redact == nil {
		redact = func(s string) string { return s }
	}
	b := array.NewRecordBuilder(mem, t.Schema)
	defer b.Release()
	n := rows.Len()
	for ci, c := range t.cols {
		fb := b.Field(ci)
		fb.Reserve(n)
		if t.appendStamp(ci, fb, n, st, redact) {
			continue
		}
		appendColumn(fb, c, rows, redact)
	}
	return b.NewRecord(), nil
}

// appendStamp fills a column every row of a part shares (capture, session,
// format version, and the run when the part is one run's) and says
// whether ci was one.
func (t *Table) appendStamp(ci int, fb array.Builder, n int, st stamp, redact func(string) string) bool {
	if st.keep {
		return false
	}
	switch ci {
	case t.captureID:
		sb := fb.(*array.StringBuilder)
		v := redact(st.captureID)
		for range n {
			sb.Append(v)
		}
		return true
	case t.session:
		ib := fb.(*array.Int32Builder)
		for range n {
			ib.Append(st.session)
		}
		return true
	case t.formatVersion:
		ib := fb.(*array.Int32Builder)
		for range n {
			ib.Append(FormatVersion)
		}
		return true
	case t.runID:
		if st.hasRunID {
			ib := fb.(*array.Int64Builder)
			for range n {
				ib.Append(st.runID)
			}
			return true
		}
	}
	return false
}

// appendColumn appends field c of every row; strings pass through redact.
func appendColumn(fb array.Builder, c column, rows reflect.Value, redact func(string) string) {
	n := rows.Len()
	if c.kind == kindString {
		// Reserve the bytes too: a part may hold megabytes of text.
		var size int
		for i := range n {
			if f := rows.Index(i).Field(c.field); !c.nullable {
				size += f.Len()
			} else if !f.IsNil() {
				size += f.Elem().Len()
			}
		}
		fb.(*array.StringBuilder).ReserveData(size)
	}
	for i := range n {
		f := rows.Index(i).Field(c.field)
		if c.nullable {
			if f.IsNil() {
				fb.AppendNull()
				continue
			}
			f = f.Elem()
		}
		switch c.kind {
		case kindString:
			fb.(*array.StringBuilder).Append(redact(f.String()))
		case kindBool:
			fb.(*array.BooleanBuilder).Append(f.Bool())
		case kindInt32:
			fb.(*array.Int32Builder).Append(int32(f.Int()))
		case kindInt64:
			fb.(*array.Int64Builder).Append(f.Int())
		case kindFloat64:
			fb.(*array.Float64Builder).Append(f.Float())
		case kindTime:
			tm := f.Interface().(time.Time)
			fb.(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro()))
		}
	}
}
