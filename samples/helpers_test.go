package samples

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fill sets every field of the struct v (row number i) to a value that
// differs per column and per row, exercising each type's edge cases: empty
// and unicode strings, negative and extreme numbers, nil and non-nil
// pointers (by parity of i), the zero time. text, when not nil, gives the
// value of string columns instead.
func fill(v reflect.Value, i int, text func(col string, i int) string) {
	t := v.Type()
	for f := range t.NumField() {
		col := t.Field(f).Tag.Get("pq")
		fv := v.Field(f)
		if fv.Kind() == reflect.Pointer {
			if i%2 == 1 {
				fv.SetZero()
				continue
			}
			fv.Set(reflect.New(fv.Type().Elem()))
			fv = fv.Elem()
		}
		switch {
		case fv.Type() == timeType:
			tm := time.Date(2025, 3, 4, 5, 6, 7, 123456000, time.UTC).Add(time.Duration(i*f) * time.Second)
			if i == 2 {
				tm = time.Time{}
			}
			fv.Set(reflect.ValueOf(tm))
		case fv.Kind() == reflect.String:
			if text != nil {
				fv.SetString(text(col, i))
			} else {
				switch i % 3 {
				case 0:
					fv.SetString(fmt.Sprintf("%s %d: naïve café ✓ 日本語 \x00tab\there\nnewline, not UTF-8: \xff\xfe", col, i))
				case 1:
					fv.SetString("")
				default:
					fv.SetString(fmt.Sprintf("%s-%d", col, i))
				}
			}
		case fv.Kind() == reflect.Bool:
			fv.SetBool(i%2 == 0)
		case fv.Kind() == reflect.Int32:
			vals := []int64{-1, 1 << 30, int64(f), -(1 << 31), 0}
			fv.SetInt(vals[i%len(vals)])
		case fv.Kind() == reflect.Int64:
			vals := []int64{-7, 1 << 62, int64(f) * 1000, -(1 << 63), 0}
			fv.SetInt(vals[i%len(vals)])
		case fv.Kind() == reflect.Float64:
			fv.SetFloat(float64(i) + 0.25)
		default:
			panic("fill: unhandled " + fv.Type().String())
		}
	}
}

// fillSlice makes n filled rows of table t.
func fillSlice(t *Table, n int, text func(col string, i int) string) reflect.Value {
	s := reflect.MakeSlice(reflect.SliceOf(t.Type), n, n)
	for i := range n {
		fill(s.Index(i), i, text)
	}
	return s
}

// setCol sets the field tagged col in every row of s, if there is one.
func setCol(s reflect.Value, col string, val any) {
	for i := range s.Len() {
		row := s.Index(i)
		for f := range row.NumField() {
			if row.Type().Field(f).Tag.Get("pq") == col {
				row.Field(f).Set(reflect.ValueOf(val).Convert(row.Field(f).Type()))
			}
		}
	}
}

// fullBatch returns a batch for run id with n rows in every table, filled
// by fill, and with the columns the writer owns already set to what the
// writer will write, so that what is read back must equal it exactly.
func fullBatch(captureID string, session int32, id int64, n int, text func(string, int) string) *Batch {
	b := &Batch{}
	bv := reflect.ValueOf(b).Elem()
	for name, fi := range batchFields {
		t := tableNamed(name)
		f := bv.Field(fi)
		rows := fillSlice(t, n, text)
		setCol(rows, "capture_id", captureID)
		setCol(rows, "run_id", id)
		if name == "runs" {
			setCol(rows, "session", session)
			f.Set(rows.Index(0))
		} else {
			f.Set(rows)
		}
	}
	return b
}

// sessionRows returns a capture row and n host rows for a session, with
// the columns the writer owns set as it will set them.
func sessionRows(captureID string, session int32, n int, text func(string, int) string) (Capture, []Host) {
	cs := fillSlice(tableNamed("capture"), 1, text)
	setCol(cs, "capture_id", captureID)
	setCol(cs, "session", session)
	setCol(cs, "format_version", int32(FormatVersion))
	hs := fillSlice(tableNamed("host"), n, text)
	setCol(hs, "capture_id", captureID)
	setCol(hs, "session", session)
	return cs.Index(0).Interface().(Capture), hs.Interface().([]Host)
}

// readAll reads every table of r into a map from table name to rows.
func readAll(t *testing.T, r *Reader) map[string]reflect.Value {
	t.Helper()
	got := map[string]reflect.Value{}
	for i := range Tables {
		tb := &Tables[i]
		out := reflect.New(reflect.SliceOf(tb.Type)).Elem()
		parts, err := r.parts(tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if err := r.readPart(tb, p, out, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		got[tb.Name] = out
	}
	return got
}

// strings walks every string and non-nil *string field of the rows in s.
func eachString(s reflect.Value, fn func(col, val string)) {
	for i := range s.Len() {
		row := s.Index(i)
		for f := range row.NumField() {
			col := row.Type().Field(f).Tag.Get("pq")
			fv := row.Field(f)
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.String {
				fn(col, fv.String())
			}
		}
	}
}

// mustCreate creates a capture in a fresh folder and writes session 1.
func mustCreate(t testing.TB, opt Options) (*Writer, string) {
	t.Helper()
	dir := t.TempDir()
	w, err := Create(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	c, hosts := sessionRows(w.CaptureID(), 1, 3, nil)
	if err := w.WriteSession(c, hosts); err != nil {
		t.Fatal(err)
	}
	return w, dir
}

func mustContain(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not contain %q", err, s)
		}
	}
}

// sameRows compares two results of readAll.
func sameRows(a, b map[string]reflect.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for name, va := range a {
		vb, ok := b[name]
		if !ok || !reflect.DeepEqual(va.Interface(), vb.Interface()) {
			return false
		}
	}
	return true
}
