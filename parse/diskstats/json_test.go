package diskstats

import (
	"math"
	"math/bits"
	"os"
	"reflect"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// checkAppendJSON: d's AppendJSON, after other bytes, is what
// encoding/json writes.
func checkAppendJSON(t *testing.T, d Counters) {
	t.Helper()
	want, ok := golden.EncodingJSON(d)
	got, err := d.AppendJSON([]byte("x"))
	if !ok || err != nil || string(got) != "x"+want {
		t.Fatalf("AppendJSON:\n%s (%v)\nencoding/json (%v):\nx%s", got, err, ok, want)
	}
}

// TestAppendJSON: every device line of every fixture (20, 18 and 14
// fields) is written byte for byte as encoding/json writes it; FuzzParse
// checks the same of every line it accepts.
func TestAppendJSON(t *testing.T) {
	n := 0
	for _, file := range golden.Files(t, "", "*.txt") {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		snap, _, err := Parse(f, file)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range snap.Devices {
			checkAppendJSON(t, d)
			n++
		}
	}
	if n < 30 {
		t.Errorf("%d devices checked; want the fixtures' (30)", n)
	}
}

// fill sets every field of the struct v points to from the fuzzer's
// values, by reflection, so that a field added to Counters is checked
// without this test knowing it: strings to s, numbers to x turned by a
// field's position, bools (an Opt's Valid) by the bits of mask, structs
// field by field.
func fill(v reflect.Value, s string, x uint64, mask *uint64) {
	for k := range v.NumField() {
		fv := v.Field(k)
		x = bits.RotateLeft64(x, 7)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(s)
		case reflect.Bool:
			fv.SetBool(*mask&1 == 1)
			*mask = bits.RotateLeft64(*mask, -1)
		case reflect.Uint32, reflect.Uint64:
			fv.SetUint(x)
		case reflect.Int:
			fv.SetInt(int64(x))
		case reflect.Struct:
			fill(fv, s, x, mask)
		default:
			panic("fill: a field of kind " + fv.Kind().String())
		}
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("nvme0n1", uint64(1), uint64(0))
	f.Add("\"<a\\b>\u2028\xff", uint64(math.MaxUint64), ^uint64(0))
	f.Add("", uint64(0), uint64(0x5555555555555555))
	f.Add("sda1", uint64(math.MaxUint32), uint64(0xaaaaaaaaaaaaaaaa))
	f.Fuzz(func(t *testing.T, s string, x, mask uint64) {
		var d Counters
		fill(reflect.ValueOf(&d).Elem(), s, x, &mask)
		checkAppendJSON(t, d)
	})
}
