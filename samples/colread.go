package samples

// Decoding through the Parquet column readers: each column of a part is
// read a batch of rows at a time, straight into the fields of its row
// type. Reading through Arrow built a record of every column first (its
// buffers allocated, filled, then copied into the rows and released), and
// wrote each column over all the rows of a 64k-row record, far more than
// the CPU's cache holds: for the fact tables, millions of rows, that was
// most of an analysis's reading. A part with a column these readers do
// not take as Arrow would (of a type an older writer may have used) is
// still read through Arrow, so that a part reads to the same rows either
// way.

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// colBatch is how many rows each column fills in turn: a batch of the
// widest row type (a disk fact, about 250 bytes) stays in the CPU's
// cache while its columns are written.
const colBatch = 1024

// colPlan is how one column is read.
type colPlan struct {
	c        column
	leaf     int
	optional bool           // the Parquet column may hold nulls (definition levels)
	intern   bool           // every page is dictionary encoded: rows share their strings
	unit     arrow.TimeUnit // of a timestamp column
	// keep, for a text column read of some rows only (ReadPartWhere),
	// says whether a row's value is wanted, given its field.
	keep func(field unsafe.Pointer) bool
}

// textFilter is a text column decoded only for the rows keep accepts
// (ReadPartWhere); the other rows hold "" in it.
type textFilter struct {
	column string
	keep   func(field unsafe.Pointer) bool
}

// last moves the filtered column's plan last, so that keep sees every
// other column of a row read when it is asked, and gives it keep.
func (w *textFilter) last(plans []colPlan) []colPlan {
	if w == nil {
		return plans
	}
	i := slices.IndexFunc(plans, func(p colPlan) bool { return p.c.name == w.column })
	if i < 0 {
		return plans
	}
	p := plans[i]
	p.keep = w.keep
	return append(slices.Delete(slices.Clone(plans), i, i+1), p)
}

// clear empties the filtered column of the rows keep refuses, from row
// first on: the part was read through Arrow, every value decoded.
func (w *textFilter) clear(out reflect.Value, first int) {
	if w == nil {
		return
	}
	for i := first; i < out.Len(); i++ {
		row := out.Index(i)
		for k := range row.NumField() {
			if f := row.Type().Field(k); f.Tag.Get("pq") == w.column {
				if p := row.Field(k).Addr().UnsafePointer(); !w.keep(p) {
					*(*string)(p) = ""
				}
			}
		}
	}
}

// columnPlans plans the reading of the columns wanted through the column
// readers; false when one of them is of a type that Arrow reads
// otherwise, or reads to an error (an unsigned integer, a date), and the
// part must be read through Arrow.
func columnPlans(md *metadata.FileMetaData, leaves []int, wanted []column) ([]colPlan, bool) {
	plans := make([]colPlan, len(leaves))
	for k, leaf := range leaves {
		descr := md.Schema.Column(leaf)
		if descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() > 1 {
			return nil, false
		}
		p := colPlan{c: wanted[k], leaf: leaf, optional: descr.MaxDefinitionLevel() == 1}
		if !plainType(descr, &p) {
			return nil, false
		}
		p.intern = p.c.kind == kindString && dictionaryOnly(md, leaf)
		plans[k] = p
	}
	return plans, true
}

// plainType says whether the column's Parquet type is one that Arrow
// reads to the array decodeColumn takes for the field's kind, and sets a
// timestamp's unit.
func plainType(descr *schema.Column, p *colPlan) bool {
	lt := descr.LogicalType()
	none := lt == nil || lt.IsNone()
	switch descr.PhysicalType() {
	case parquet.Types.ByteArray:
		_, isString := lt.(schema.StringLogicalType)
		return p.c.kind == kindString && (none || isString)
	case parquet.Types.Boolean:
		return p.c.kind == kindBool && none
	case parquet.Types.Int32:
		it, isInt := lt.(schema.IntLogicalType)
		return (p.c.kind == kindInt32 || p.c.kind == kindInt64) && (none || isInt && it.BitWidth() == 32 && it.IsSigned())
	case parquet.Types.Int64:
		if ts, ok := lt.(schema.TimestampLogicalType); ok && p.c.kind == kindTime {
			units := map[schema.TimeUnitType]arrow.TimeUnit{schema.TimeUnitMillis: arrow.Millisecond,
				schema.TimeUnitMicros: arrow.Microsecond, schema.TimeUnitNanos: arrow.Nanosecond}
			u, known := units[ts.TimeUnit()]
			p.unit = u
			return known
		}
		it, isInt := lt.(schema.IntLogicalType)
		return p.c.kind == kindInt64 && (none || isInt && it.BitWidth() == 64 && it.IsSigned())
	case parquet.Types.Float, parquet.Types.Double:
		return p.c.kind == kindFloat64 && none
	}
	return false
}

// errDamaged marks what the Parquet reader said of a part it could not
// read as written.
type errDamaged struct{ err error }

func (e errDamaged) Error() string { return e.err.Error() }

// colBufs are the buffers a batch of one column is read into.
type colBufs struct {
	i64  []int64
	i32  []int32
	f64  []float64
	f32  []float32
	b    []bool
	ba   []parquet.ByteArray
	defs []int16
}

// colBufPool keeps the batch buffers between parts: a capture has
// hundreds of parts of each table.
var colBufPool = sync.Pool{New: func() any {
	return &colBufs{i64: make([]int64, colBatch), i32: make([]int32, colBatch), f64: make([]float64, colBatch),
		f32: make([]float32, colBatch), b: make([]bool, colBatch), ba: make([]parquet.ByteArray, colBatch),
		defs: make([]int16, colBatch)}
}}

// decodeColumns appends the rows of pf to out, a settable slice of the
// row type, row group by row group, a batch of rows at a time. An error of
// the Parquet reader is an errDamaged.
func decodeColumns(pf *file.Reader, plans []colPlan, out reflect.Value) error {
	bufs := colBufPool.Get().(*colBufs)
	defer colBufPool.Put(bufs)
	interned := make([]*interner, len(plans))
	growRows(out, pf.NumRows())
	for k := range plans {
		if plans[k].intern {
			interned[k] = &interner{all: map[string]string{}}
		}
	}
	for g := range pf.NumRowGroups() {
		if err := decodeRowGroup(pf.RowGroup(g), g, plans, bufs, interned, out); err != nil {
			return err
		}
	}
	return nil
}

// decodeRowGroup appends the rows of one row group to out.
func decodeRowGroup(rg *file.RowGroupReader, g int, plans []colPlan, bufs *colBufs, interned []*interner, out reflect.Value) error {
	readers := make([]file.ColumnChunkReader, 0, len(plans))
	// Closed, their pages go back to the allocator.
	defer func() {
		for _, cr := range readers {
			if c, ok := cr.(io.Closer); ok {
				c.Close()
			}
		}
	}()
	for _, p := range plans {
		cr, err := rg.Column(p.leaf)
		if err != nil {
			return errDamaged{err}
		}
		readers = append(readers, cr)
	}
	for done, rows := int64(0), rg.NumRows(); done < rows; {
		want := int(min(colBatch, rows-done))
		start := out.Len()
		growRows(out, int64(want))
		out.SetLen(start + want)
		for k := range plans {
			got, err := plans[k].read(readers[k], bufs, fieldsOf(out, start, plans[k].c), want, interned[k])
			if err != nil {
				return err
			}
			if got < want {
				return errDamaged{fmt.Errorf("column %s of row group %d ends at row %d of %d", plans[k].c.name, g, done+int64(got), rows)}
			}
		}
		done += int64(want)
	}
	return nil
}

// maxRowsAhead bounds the bytes of rows made ready before they are read:
// a part's footer says how many rows it holds, but a damaged one may say
// anything.
const maxRowsAhead = 64 << 20

// growRows makes room in out for n more rows, at once when they take less
// than maxRowsAhead, else by doubling as they are read.
func growRows(out reflect.Value, n int64) {
	free := int64(out.Cap() - out.Len())
	if n <= free {
		return
	}
	size := int64(max(out.Type().Elem().Size(), 1))
	if n > maxRowsAhead/size || n < 0 {
		n = max(maxRowsAhead/size, 1)
	}
	out.Grow(int(max(n, int64(out.Len()))))
}

// rowField addresses one field of consecutive rows.
type rowField struct {
	base   unsafe.Pointer // the field of the first row
	stride uintptr        // the size of a row
	row    int            // the index of the first row, for messages
}

// fieldsOf addresses field c of out[start:].
func fieldsOf(out reflect.Value, start int, c column) rowField {
	return rowField{base: out.Index(start).Field(c.field).Addr().UnsafePointer(), stride: out.Type().Elem().Size(), row: start}
}

// at is the field of row i.
func (f rowField) at(i int) unsafe.Pointer { return unsafe.Add(f.base, uintptr(i)*f.stride) }

// read reads want rows of the column into its fields and returns how many
// it read: fewer when the column ends first.
func (p *colPlan) read(cr file.ColumnChunkReader, b *colBufs, f rowField, want int, interned *interner) (int, error) {
	var defs []int16
	if p.optional {
		defs = b.defs[:want]
	}
	var lv int64
	var nv int
	var err error
	switch r := cr.(type) {
	case *file.ByteArrayColumnChunkReader:
		return p.readStrings(r, b, f, want, interned)
	case *file.Int64ColumnChunkReader:
		lv, nv, err = r.ReadBatch(int64(want), b.i64[:want], defs, nil)
		if err == nil && p.c.kind == kindTime {
			err = storeTimes(p, f, int(lv), b.i64[:nv], defs)
		} else if err == nil {
			err = storeSame(p, f, int(lv), b.i64[:nv], defs)
		}
	case *file.Int32ColumnChunkReader:
		lv, nv, err = r.ReadBatch(int64(want), b.i32[:want], defs, nil)
		if err == nil && p.c.kind == kindInt64 {
			err = store(p, f, int(lv), b.i32[:nv], defs, func(v int32) int64 { return int64(v) })
		} else if err == nil {
			err = storeSame(p, f, int(lv), b.i32[:nv], defs)
		}
	case *file.Float64ColumnChunkReader:
		lv, nv, err = r.ReadBatch(int64(want), b.f64[:want], defs, nil)
		if err == nil {
			err = storeSame(p, f, int(lv), b.f64[:nv], defs)
		}
	case *file.Float32ColumnChunkReader:
		lv, nv, err = r.ReadBatch(int64(want), b.f32[:want], defs, nil)
		if err == nil {
			err = store(p, f, int(lv), b.f32[:nv], defs, func(v float32) float64 { return float64(v) })
		}
	case *file.BooleanColumnChunkReader:
		lv, nv, err = r.ReadBatch(int64(want), b.b[:want], defs, nil)
		if err == nil {
			err = storeSame(p, f, int(lv), b.b[:nv], defs)
		}
	default:
		return 0, errDamaged{fmt.Errorf("column %s has physical type %s", p.c.name, cr.Type())}
	}
	if err != nil {
		return 0, err
	}
	return int(lv), readerErr(cr)
}

// readerErr is the error that ended a column early, as an errDamaged.
func readerErr(cr file.ColumnChunkReader) error {
	if err := cr.Err(); err != nil {
		return errDamaged{err}
	}
	return nil
}

func same[T any](v T) T { return v }

// storeSame is store of values that go into their fields as they are. A
// column without nulls, most of what a capture holds (the disk facts'
// counters, a million rows of each), is copied without a call a value:
// through store's conv it was a fifth of reading the disk facts. A
// nullable field's values still get a slice a batch, which they point to.
func storeSame[T any](p *colPlan, f rowField, n int, vals []T, defs []int16) error {
	if !allValued(defs, n) || defs != nil && len(vals) < n {
		return store(p, f, n, vals, defs, same[T])
	}
	if len(vals) < n {
		return errDamaged{fmt.Errorf("column %s: %d values for %d rows", p.c.name, len(vals), n)}
	}
	if p.c.nullable {
		ptrs := make([]T, n)
		copy(ptrs, vals)
		for i := range ptrs {
			*(**T)(f.at(i)) = &ptrs[i]
		}
		return nil
	}
	for i, v := range vals[:n] {
		*(*T)(f.at(i)) = v
	}
	return nil
}

// allValued says whether the first n rows of a batch all have a value:
// defs is nil (the column has no nulls) or sets each.
func allValued(defs []int16, n int) bool {
	if defs == nil {
		return true
	}
	if len(defs) < n {
		return false
	}
	for _, d := range defs[:n] {
		if d == 0 {
			return false
		}
	}
	return true
}

// storeTimes is storeSame of a timestamp column, whose values become
// times of their unit: timeFunc's conversions, a loop each.
func storeTimes(p *colPlan, f rowField, n int, vals []int64, defs []int16) error {
	if !allValued(defs, n) || defs != nil && len(vals) < n || p.c.nullable {
		return store(p, f, n, vals, defs, timeFunc(p.unit))
	}
	if len(vals) < n {
		return errDamaged{fmt.Errorf("column %s: %d values for %d rows", p.c.name, len(vals), n)}
	}
	set := func(i int, t time.Time) { *(*time.Time)(f.at(i)) = t }
	switch p.unit {
	case arrow.Second:
		for i, v := range vals[:n] {
			set(i, time.Unix(v, 0).UTC())
		}
	case arrow.Millisecond:
		for i, v := range vals[:n] {
			set(i, time.UnixMilli(v).UTC())
		}
	case arrow.Microsecond:
		for i, v := range vals[:n] {
			set(i, time.UnixMicro(v).UTC())
		}
	default:
		for i, v := range vals[:n] {
			set(i, time.Unix(0, v).UTC())
		}
	}
	return nil
}

// readStrings reads a text column page by page: the values the reader
// gives point into its page, and are copied before the next is read.
// A dictionary column's rows share one copy of each value (interned).
func (p *colPlan) readStrings(r *file.ByteArrayColumnChunkReader, b *colBufs, f rowField, want int, interned *interner) (int, error) {
	conv := func(v parquet.ByteArray) string { return string(v) }
	if interned != nil {
		conv = interned.get
	}
	got := 0
	for got < want && r.HasNext() {
		var defs []int16
		if p.optional {
			defs = b.defs[:want-got]
		}
		lv, nv, err := r.ReadBatchInPage(int64(want-got), b.ba[:want-got], defs, nil)
		if err != nil {
			return got, errDamaged{err}
		}
		g := rowField{base: f.at(got), stride: f.stride, row: f.row + got}
		if p.keep != nil {
			err = storeKept(p, g, int(lv), b.ba[:nv], defs, conv)
		} else {
			err = store(p, g, int(lv), b.ba[:nv], defs, conv)
		}
		if err != nil {
			return got, err
		}
		if lv == 0 {
			break
		}
		got += int(lv)
	}
	return got, readerErr(r)
}

// storeKept is store of a text column that is never null, read only for
// the rows p.keep accepts: the others are set to "", their values neither
// copied nor kept.
func storeKept(p *colPlan, f rowField, n int, vals []parquet.ByteArray, defs []int16, conv func(parquet.ByteArray) string) error {
	k := 0
	for i := range n {
		if defs != nil && defs[i] == 0 {
			return fmt.Errorf("column %s: row %d is null", p.c.name, f.row+i)
		}
		if k >= len(vals) {
			return errDamaged{fmt.Errorf("column %s: %d values for %d rows", p.c.name, len(vals), n)}
		}
		field := f.at(i)
		if p.keep(field) {
			*(*string)(field) = conv(vals[k])
		} else {
			*(*string)(field) = ""
		}
		k++
	}
	return nil
}

// interner gives one string for each distinct value of a dictionary
// column. The values of a dictionary page are the same few slices of its
// memory over and over, so a small table keyed by where a value lies
// finds most without hashing it; a value found there is compared all the
// same, so a page's memory used again for other text is never mistaken.
// A column of many distinct values (a WAL position a run) is not worth
// a map: past maxInterned values, the others are copied as they come.
type interner struct {
	recent [64]struct {
		at *byte
		s  string
	}
	all map[string]string
}

// maxInterned bounds the distinct values an interner keeps.
const maxInterned = 256

func (in *interner) get(v parquet.ByteArray) string {
	at := unsafe.SliceData(v)
	e := &in.recent[(uintptr(unsafe.Pointer(at))>>3^uintptr(len(v)))%uintptr(len(in.recent))]
	if e.at == at && e.s == string(v) {
		return e.s
	}
	s, ok := in.all[string(v)]
	if !ok {
		s = string(v)
		if len(in.all) < maxInterned {
			in.all[s] = s
		}
	}
	e.at, e.s = at, s
	return s
}

// store sets the field of the first n rows from vals, the non-null
// values in order; defs (nil for a column without nulls) says which rows
// have one. A nullable field points to its value (the values of a batch
// share one slice), or is nil; a null in a field that cannot be nil is an
// error.
func store[S, T any](p *colPlan, f rowField, n int, vals []S, defs []int16, conv func(S) T) error {
	if defs == nil {
		if len(vals) < n {
			return errDamaged{fmt.Errorf("column %s: %d values for %d rows", p.c.name, len(vals), n)}
		}
		if !p.c.nullable {
			for i := range n {
				*(*T)(f.at(i)) = conv(vals[i])
			}
			return nil
		}
		ptrs := make([]T, n)
		for i := range n {
			ptrs[i] = conv(vals[i])
			*(**T)(f.at(i)) = &ptrs[i]
		}
		return nil
	}
	var ptrs []T
	if p.c.nullable {
		ptrs = make([]T, len(vals))
	}
	k := 0
	for i := range n {
		if defs[i] == 0 {
			if !p.c.nullable {
				return fmt.Errorf("column %s: row %d is null", p.c.name, f.row+i)
			}
			*(**T)(f.at(i)) = nil
			continue
		}
		if k >= len(vals) {
			return errDamaged{fmt.Errorf("column %s: %d values for more rows", p.c.name, len(vals))}
		}
		if p.c.nullable {
			ptrs[k] = conv(vals[k])
			*(**T)(f.at(i)) = &ptrs[k]
		} else {
			*(*T)(f.at(i)) = conv(vals[k])
		}
		k++
	}
	return nil
}

// isDamaged unwraps what the Parquet reader said of a damaged part.
func isDamaged(err error) (error, bool) {
	var d errDamaged
	if errors.As(err, &d) {
		return d.err, true
	}
	return err, false
}
