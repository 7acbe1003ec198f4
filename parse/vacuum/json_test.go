package vacuum

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/internal/jsonw"
)

func checkAppendJSON(t *testing.T, r *Record) {
	t.Helper()
	want, ok := golden.EncodingJSON(r)
	got, err := r.AppendJSON([]byte("x"))
	switch {
	case !ok && err != jsonw.ErrUnsupported:
		t.Errorf("encoding/json fails, AppendJSON gives %s, %v", got, err)
	case ok && (err != nil || string(got) != "x"+want):
		t.Errorf("AppendJSON:\n%s (%v)\nencoding/json:\nx%s", got, err, want)
	}
}

// TestAppendJSON: every record of every fixture's golden file (those of
// server logs in every format, VACUUM VERBOSE as psql prints it and as
// notices) is written byte for byte as encoding/json writes it.
func TestAppendJSON(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.golden.json")
	if err != nil || len(files) < 40 {
		t.Fatalf("%d golden files, %v", len(files), err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g goldenRecords
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range g.Records {
			checkAppendJSON(t, &g.Records[i])
			n++
		}
	}
	t.Logf("%d records of %d files", n, len(files))
}

// fill sets every field of the struct v points to from the fuzzer's
// values, by reflection, so that a field added to Record is checked
// without this test knowing it: strings to s, numbers to i or f, pointers
// and bools set or not by the bits of mask, slices of 0 to 2 elements.
func fill(v reflect.Value, s string, i int64, f float64, mask *uint64) {
	bit := func() bool { b := *mask&1 == 1; *mask = *mask>>1 | *mask<<63; return b }
	for k := range v.NumField() {
		fv := v.Field(k)
		switch fv.Kind() {
		case reflect.String:
			if bit() {
				fv.SetString(s)
			}
		case reflect.Bool:
			fv.SetBool(bit())
		case reflect.Int, reflect.Int64:
			fv.SetInt(i)
		case reflect.Pointer:
			if bit() {
				p := reflect.New(fv.Type().Elem())
				switch p.Elem().Kind() {
				case reflect.Int64:
					p.Elem().SetInt(i)
				case reflect.Float64:
					p.Elem().SetFloat(f)
				}
				fv.Set(p)
			}
		case reflect.Slice:
			n := int(*mask % 3)
			bit()
			sl := reflect.MakeSlice(fv.Type(), n, n)
			for j := range n {
				fill(sl.Index(j), s, i, f, mask)
			}
			fv.Set(sl)
		}
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("t", int64(1), 0.5, uint64(0))
	f.Add("\"<a\\b>\u2028\xff", int64(-1), 1e-7, ^uint64(0))
	f.Add("", int64(math.MaxInt64), math.NaN(), uint64(0x5555555555555555))
	f.Add("x", int64(0), math.Inf(-1), uint64(0xaaaaaaaaaaaaaaaa))
	f.Fuzz(func(t *testing.T, s string, i int64, x float64, mask uint64) {
		var r Record
		fill(reflect.ValueOf(&r).Elem(), s, i, x, &mask)
		checkAppendJSON(t, &r)
	})
}

// BenchmarkAppendJSON writes every record of the golden files (all
// sources, 420 records) into one reused buffer, as pgstudy parse writes
// its jsonl; the bytes are the JSON's.
func BenchmarkAppendJSON(b *testing.B) {
	files, err := filepath.Glob("testdata/*/*.golden.json")
	if err != nil || len(files) == 0 {
		b.Fatalf("%d golden files, %v", len(files), err)
	}
	var recs []Record
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var g goldenRecords
		if err := json.Unmarshal(data, &g); err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		recs = append(recs, g.Records...)
	}
	var out, buf []byte
	for i := range recs {
		if buf, err = recs[i].AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
		out = append(out, buf...)
	}
	golden.Bench(b, out)
	for b.Loop() {
		for i := range recs {
			buf, _ = recs[i].AppendJSON(buf[:0])
		}
	}
}
