package samples

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Schema metadata keys written into every part, so that a part read on its
// own (by pgstudy or any Parquet tool) says what it is.
const (
	MetaFormatVersion = "pgstudy.format_version"
	MetaTable         = "pgstudy.table"
)

// Table is one table of the capture format: a row type and the folder its
// parts live in. Its arrow schema is derived once from the struct, so the Go
// type is the single definition of the columns.
type Table struct {
	Name   string        // folder name inside a capture
	Type   reflect.Type  // the row struct
	Schema *arrow.Schema // one column per tagged field, in field order

	cols []column
	// Index in cols of the columns the writer fills itself; -1 when absent.
	captureID, runID, session, formatVersion int
}

// kind is one of the Go types a column may have.
type kind int

const (
	kindString kind = iota
	kindBool
	kindInt32
	kindInt64
	kindFloat64
	kindTime
)

// column maps one struct field to one arrow/Parquet column.
type column struct {
	name     string
	field    int // struct field index
	kind     kind
	nullable bool // the field is a pointer
}

var timeType = reflect.TypeFor[time.Time]()

// timestampType is how every time.Time is stored: microseconds, UTC. A time
// zone makes the Parquet logical type adjusted-to-UTC.
var timestampType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// newTable builds the Table of row type T. It panics on a field without a
// `pq` tag or of an unsupported type: that is a mistake in this package,
// and failing when the program starts beats writing a capture that cannot
// be read back.
func newTable[T any](name string) Table {
	typ := reflect.TypeFor[T]()
	if typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("samples: table %s: %s is not a struct", name, typ))
	}
	t := Table{Name: name, Type: typ, captureID: -1, runID: -1, session: -1, formatVersion: -1}
	fields := make([]arrow.Field, 0, typ.NumField())
	seen := map[string]bool{}
	for i := range typ.NumField() {
		sf := typ.Field(i)
		tag := sf.Tag.Get("pq")
		if tag == "" || tag == "-" {
			panic(fmt.Sprintf("samples: table %s: field %s.%s has no pq tag", name, typ.Name(), sf.Name))
		}
		if seen[tag] {
			panic(fmt.Sprintf("samples: table %s: column %q appears twice", name, tag))
		}
		seen[tag] = true
		if !sf.IsExported() {
			panic(fmt.Sprintf("samples: table %s: field %s.%s is not exported", name, typ.Name(), sf.Name))
		}
		ft, nullable := sf.Type, false
		if ft.Kind() == reflect.Pointer {
			ft, nullable = ft.Elem(), true
		}
		k, dt, ok := kindOf(ft)
		if !ok {
			panic(fmt.Sprintf("samples: table %s: field %s.%s has unsupported type %s", name, typ.Name(), sf.Name, sf.Type))
		}
		c := column{name: tag, field: i, kind: k, nullable: nullable}
		idx := len(t.cols)
		switch {
		case tag == "capture_id" && k == kindString && !nullable:
			t.captureID = idx
		case tag == "run_id" && k == kindInt64 && !nullable:
			t.runID = idx
		case tag == "session" && k == kindInt32 && !nullable:
			t.session = idx
		case tag == "format_version" && k == kindInt32 && !nullable:
			t.formatVersion = idx
		}
		t.cols = append(t.cols, c)
		fields = append(fields, arrow.Field{Name: tag, Type: dt, Nullable: nullable})
	}
	if t.captureID != 0 {
		panic(fmt.Sprintf("samples: table %s: the first column must be capture_id", name))
	}
	md := arrow.NewMetadata(
		[]string{MetaFormatVersion, MetaTable},
		[]string{strconv.Itoa(FormatVersion), name},
	)
	t.Schema = arrow.NewSchema(fields, &md)
	return t
}

func kindOf(t reflect.Type) (kind, arrow.DataType, bool) {
	if t == timeType {
		return kindTime, timestampType, true
	}
	if t.PkgPath() != "" {
		// A named type (say, type Phase string) would read back as its
		// underlying type only by accident; keep the format plain.
		return 0, nil, false
	}
	switch t.Kind() {
	case reflect.String:
		return kindString, arrow.BinaryTypes.String, true
	case reflect.Bool:
		return kindBool, arrow.FixedWidthTypes.Boolean, true
	case reflect.Int32:
		return kindInt32, arrow.PrimitiveTypes.Int32, true
	case reflect.Int64:
		return kindInt64, arrow.PrimitiveTypes.Int64, true
	case reflect.Float64:
		return kindFloat64, arrow.PrimitiveTypes.Float64, true
	}
	return 0, nil, false
}

// tableOf finds the table whose row type is typ.
func tableOf(typ reflect.Type) (*Table, error) {
	for i := range Tables {
		if Tables[i].Type == typ {
			return &Tables[i], nil
		}
	}
	return nil, fmt.Errorf("samples: %s is not a capture table row type", typ)
}

// tableNamed finds the table called name, or nil.
func tableNamed(name string) *Table {
	for i := range Tables {
		if Tables[i].Name == name {
			return &Tables[i]
		}
	}
	return nil
}

// Columns returns the column names of t, in order.
func (t *Table) Columns() []string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	return names
}

// perRun reports whether t's parts are named after runs (r000001.parquet)
// rather than sessions (s001.parquet).
func (t *Table) perRun() bool { return t.runID >= 0 }

// ofSession reports whether t's parts are a session's, committed by the
// session's capture part (host, calibrations).
func (t *Table) ofSession() bool { return !t.perRun() && t.Name != "capture" }
