package jsonw

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

var stringCases = []string{
	"", "plain", `"quoted" \ back`, "<html> & 'x'", "tab\there\nnew\rret\bbs\fff", "\x00\x01\x1f\x7f",
	"é ü 日本", "\u2028 \u2029", "bad \xff \xc3 utf8 \xed\xa0\x80", "\xe2\x80", "ends in \xe2",
	`public."odd ""table"""`,
	"a run of plain text longer than eight bytes, then \"quotes\", \\, \x01 and é, then more plain text",
	"12345678\n2345678\t", "1234567\xff12345678",
}

// TestPlain: plain finds each byte JSON escapes, or that is not ASCII,
// wherever it is among plain ones.
func TestPlain(t *testing.T) {
	for c := range 256 {
		want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		for at := range 8 {
			w := []byte("abcdefgh")
			w[at] = byte(c)
			if got := plain(binary.LittleEndian.Uint64(w)); got != want {
				t.Errorf("plain(%q) = %v", w, got)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range stringCases {
		checkString(t, s)
	}
}

// checkAppend checks what an append function gave for v after "x" (ok
// false where it refused v) against encoding/json's writing of v.
func checkAppend[T any](t *testing.T, name string, v T, got []byte, ok bool) {
	t.Helper()
	want, wantOK := golden.EncodingJSON(v)
	if ok != wantOK || ok && string(got) != "x"+want {
		t.Errorf("%s(%#v) = %s, %v, want x%s, %v", name, v, got, ok, want, wantOK)
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	checkAppend(t, "AppendString", s, AppendString([]byte("x"), s), true)
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(checkString)
}

var floatCases = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 1.25, 123.456, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.5e21, -2e-300,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 33333.33, 465.148, 1e100, 1e-100,
	math.NaN(), math.Inf(1), math.Inf(-1),
	// decimals of up to three places, and near them
	0.3, 0.1 + 0.2, 12.345, -465.148, 1.005, 0.001, 0.0015, 0.000999, 100, 2.5, 1e15 - 1, 1e15 - 0.5, 1e15,
	999999999999.999, 123456789012.345, 99.99, 0.07, 1234567.891, 5e-324, 0.1 * 3, 1.1 * 1.1,
}

func TestAppendFloat(t *testing.T) {
	for _, f := range floatCases {
		checkFloat(t, f)
	}
}

func checkFloat(t *testing.T, f float64) {
	t.Helper()
	got, ok := AppendFloat([]byte("x"), f)
	checkAppend(t, "AppendFloat", f, got, ok)
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range floatCases {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) { checkFloat(t, math.Float64frombits(bits)) })
}

// checkDecimal checks n/10^k for k of 0 to 5, and the floats next to it.
func checkDecimal(t *testing.T, n int64, ulps int) {
	t.Helper()
	for k := range 6 {
		x := float64(n) / math.Pow10(k)
		for range ulps {
			checkFloat(t, x)
			x = math.Nextafter(x, math.Inf(1))
		}
		checkFloat(t, x)
	}
}

// TestAppendFloatDecimals: the decimals of a few places appendDecimal
// writes (and those of more places, and their neighbours, which it must
// leave to strconv), which random bits seldom are.
func TestAppendFloatDecimals(t *testing.T) {
	for n := int64(-2000); n <= 20000; n++ {
		checkDecimal(t, n, 1)
	}
	for n := int64(1); n < 1e17; n = n*7 + 3 {
		checkDecimal(t, n, 2)
		checkDecimal(t, -n+1, 2)
	}
}

func FuzzAppendFloatDecimal(f *testing.F) {
	f.Add(int64(12345), uint8(1))
	f.Add(int64(999999999999999), uint8(0))
	f.Fuzz(func(t *testing.T, n int64, ulps uint8) { checkDecimal(t, n, int(ulps%4)) })
}

type inner struct {
	N string `json:"n"`
}

// group is a parse.Opt's value: numbers only (see TestNewStructRefuses).
type group struct {
	C uint64 `json:"c"`
	Z uint32 `json:"z,omitempty"`
	B bool   `json:"b"`
}

// rec has a field of every kind a Struct writes, with and without
// omitempty (and omitzero on a parse.Opt).
type rec struct {
	S  string `json:"s"`
	OS string `json:"os,omitempty"`
	OE string `json:"oe,omitempty"`
	B  bool   `json:"b"`
	OB bool   `json:"ob,omitempty"`
	OF bool   `json:"of,omitempty"`
	I  int64  `json:"i"`
	N  int    `json:"n,omitempty"`
	OI int64  `json:"oi,omitempty"`
	U  uint32 `json:"u"`
	OU uint32 `json:"ou,omitempty"`
	W  uint64 `json:"w"`
	OW uint64 `json:"ow,omitempty"`
	// A struct is an object, which omitempty never leaves out; an Opt
	// is null when not Valid, and left out then for omitzero only.
	O  inner            `json:"o"`
	OO inner            `json:"oo,omitempty"`
	G  parse.Opt[group] `json:"g,omitzero"`
	NG parse.Opt[group] `json:"ng"`
	EG parse.Opt[group] `json:"eg,omitempty"`
	PI *int64           `json:"pi,omitempty"`
	NI *int64           `json:"ni,omitempty"`
	PF *float64         `json:"pf,omitempty"`
	NF *float64         `json:"nf,omitempty"`
	L  []inner          `json:"l,omitempty"`
	E  []inner          `json:"e,omitempty"`
	// Without omitempty: null for nil, [] for empty.
	XI *int64   `json:"xi"`
	XF *float64 `json:"xf"`
	XL []inner  `json:"xl"`
	XE []inner  `json:"xe"`
	// Pointers to structs, strings in slices and maps.
	P   *inner            `json:"p,omitempty"`
	XP  *inner            `json:"xp"`
	IP  *int              `json:"ip,omitempty"`
	XIP *int              `json:"xip"`
	SS  []string          `json:"ss,omitempty"`
	XS  []string          `json:"xs"`
	S2  [][]string        `json:"s2,omitempty"`
	XS2 [][]string        `json:"xs2"`
	M   map[string]string `json:"m,omitempty"`
	XM  map[string]string `json:"xm"`
	// Floats, Opts of numbers.
	F    float64            `json:"f"`
	OFl  float64            `json:"ofl,omitempty"`
	OF64 parse.Opt[float64] `json:"of64,omitzero"`
	NF64 parse.Opt[float64] `json:"nf64"`
	OI64 parse.Opt[int64]   `json:"oi64,omitzero"`
	NI64 parse.Opt[int64]   `json:"ni64"`
	OBo  parse.Opt[bool]    `json:"obo,omitzero"`
	NBo  parse.Opt[bool]    `json:"nbo"`
	// Left out as encoding/json leaves them out.
	Skip string `json:"-"`
	priv string
	Bare int64
}

// TestStruct: objects with every kind of field, nested, as encoding/json
// writes the struct its tags describe; a NaN is an error.
func TestStruct(t *testing.T) {
	s, err := NewStruct[rec]()
	if err != nil {
		t.Fatal(err)
	}
	i, f, n := int64(-7), 2.5e-7, 42
	for _, r := range []rec{
		{P: &inner{"<p>"}, IP: &n, SS: []string{"a", "<b>\n"}, XS: []string{}, S2: [][]string{{"x", ""}, nil, {}},
			XS2: [][]string{}, M: map[string]string{"z": "1", "a": "\"2\"", "é": "", "A": "<"}, XM: map[string]string{}},
		{XP: &inner{}, XIP: &n, M: map[string]string{}, SS: []string{}, S2: [][]string{}},
		{S: "a\"b", OS: "<x>", B: false, OB: true, I: 3, PI: &i, PF: &f, L: []inner{{"1"}, {"2"}}},
		{N: -1, OI: 1 << 40, E: []inner{}, XI: &i, XF: &f, XE: []inner{}, XL: []inner{{"\n"}}, Skip: "x", priv: "y", Bare: 9},
		{U: math.MaxUint32, OU: 1, W: math.MaxUint64, OW: 2, O: inner{"<o>"}, G: parse.Some(group{C: 3, B: true}),
			NG: parse.Some(group{Z: 1}), EG: parse.Some(group{})},
		{F: 1.5, OFl: -1e-9, OF64: parse.Some(0.0), NF64: parse.Some(1e21),
			OI64: parse.Some[int64](0), NI64: parse.Some[int64](math.MinInt64), OBo: parse.Some(false), NBo: parse.Some(true)},
		{OBo: parse.Some(true), NBo: parse.Some(false)},
		{F: math.Copysign(0, -1), OFl: math.Copysign(0, -1), NF64: parse.Some(math.Copysign(0, -1))},
		{},
	} {
		want, _ := golden.EncodingJSON(r)
		got, err := s.Append([]byte("x"), &r)
		if string(got) != "x"+want || err != nil {
			t.Errorf("got %s (%v)\nwant x%s", got, err, want)
		}
	}
	nan := math.NaN()
	for _, r := range []rec{{NF: &nan}, {F: math.Inf(1)}, {OF64: parse.Some(nan)}} {
		if _, err := s.Append(nil, &r); err != ErrUnsupported {
			t.Errorf("NaN: error %v, want ErrUnsupported", err)
		}
		if _, ok := golden.EncodingJSON(r); ok {
			t.Errorf("encoding/json wrote %+v", r)
		}
	}
}

// long has keys (`,"name":`) one byte shorter than those copied as a
// block, as long, and one longer, and an object under a longer one.
type long struct {
	A int64  `json:"key_33_xxxxxxxxxxxxxxxxxxxxxx"`
	B uint64 `json:"key_31_xxxxxxxxxxxxxxxxxxxx"`
	C string `json:"key_32_xxxxxxxxxxxxxxxxxxxxx"`
	D inner  `json:"an_object_under_a_key_longer_than_thirty_two_bytes"`
}

// TestStructRoom: a record is the same whatever room the buffer has
// after the bytes already in it, none to more than it needs, and whatever
// the length of its keys.
func TestStructRoom(t *testing.T) {
	s, err := NewStruct[rec]()
	if err != nil {
		t.Fatal(err)
	}
	i, f := int64(-7), 2.5e-7
	r := rec{S: "a\"b", OS: "<x>", OB: true, I: math.MinInt64, U: 7, W: math.MaxUint64, PI: &i, PF: &f,
		L: []inner{{"1"}, {"2"}}, F: 1.5, SS: []string{"é", ""}}
	want, _ := golden.EncodingJSON(r)
	sl, err := NewStruct[long]()
	if err != nil {
		t.Fatal(err)
	}
	l := long{A: -1, B: 12345678901234567890, C: "c", D: inner{"d"}}
	wantLong, _ := golden.EncodingJSON(l)
	for room := range len(want) + 8 {
		b := make([]byte, 3, 3+room)
		copy(b, "abc")
		if got, err := s.Append(b, &r); string(got) != "abc"+want || err != nil {
			t.Errorf("room %d: got %s (%v)\nwant abc%s", room, got, err, want)
		}
		if got, err := sl.Append(b[:3], &l); string(got) != "abc"+wantLong || err != nil {
			t.Errorf("room %d: got %s (%v)\nwant abc%s", room, got, err, wantLong)
		}
	}
}

// ownString and ownInt are of kinds a Struct writes, but encoding/json
// writes them through their methods.
type (
	ownString string
	ownInt    int64
	ownFloat  float64
)

func (ownFloat) MarshalJSON() ([]byte, error) { return []byte(`"own"`), nil }

func (ownString) MarshalJSON() ([]byte, error) { return []byte(`"own"`), nil }
func (*ownInt) MarshalText() ([]byte, error)   { return []byte("own"), nil }

// TestNewStructRefuses: a type a Struct would not write as encoding/json
// does is refused, naming the field.
func TestNewStructRefuses(t *testing.T) {
	for name, f := range map[string]func() error{
		"map":     func() error { _, err := NewStruct[struct{ M map[string]int }](); return err },
		"numbers": func() error { _, err := NewStruct[struct{ N []int64 }](); return err },
		"bytes":   func() error { _, err := NewStruct[struct{ B []byte }](); return err },
		"strings in Opt": func() error {
			_, err := NewStruct[struct {
				G parse.Opt[struct{ S []string }] `json:"g"`
			}]()
			return err
		},
		"float32":              func() error { _, err := NewStruct[struct{ F float32 }](); return err },
		"pointer to a pointer": func() error { _, err := NewStruct[struct{ P **inner }](); return err },
		"option": func() error {
			_, err := NewStruct[struct {
				I int64 `json:"i,string"`
			}]()
			return err
		},
		"key": func() error {
			_, err := NewStruct[struct {
				I int64 `json:"a-b"`
			}]()
			return err
		},
		"embedded pointer": func() error { _, err := NewStruct[struct{ *inner }](); return err },
		"embedded with a tag": func() error {
			_, err := NewStruct[struct {
				inner `json:"in"`
			}]()
			return err
		},
		"embedded name twice": func() error {
			_, err := NewStruct[struct {
				inner
				N string `json:"n"`
			}]()
			return err
		},
		"map of ints": func() error { _, err := NewStruct[struct{ M map[string]int }](); return err },
		"map in Opt": func() error {
			_, err := NewStruct[struct {
				G parse.Opt[struct{ M map[string]any }]
			}]()
			return err
		},
		"slice of *int64": func() error { _, err := NewStruct[struct{ L []*int64 }](); return err },
		"duplicate": func() error { // made at run time: vet refuses it written out
			dup := reflect.StructOf([]reflect.StructField{
				{Name: "A", Type: reflect.TypeFor[int64](), Tag: `json:"a"`},
				{Name: "B", Type: reflect.TypeFor[int64](), Tag: `json:"a"`},
			})
			_, err := newPlanner().of(dup, false)
			return err
		},
		// Opt's MarshalJSON calls json.Marshal, which escapes HTML.
		"string in Opt": func() error {
			_, err := NewStruct[struct {
				G parse.Opt[inner] `json:"g"`
			}]()
			return err
		},
		"Opt of an int":   func() error { _, err := NewStruct[struct{ G parse.Opt[int] }](); return err },
		"Opt of a string": func() error { _, err := NewStruct[struct{ G parse.Opt[string] }](); return err },
		"Opt of a named float": func() error {
			_, err := NewStruct[struct{ G parse.Opt[ownFloat] }]()
			return err
		},
		"omitzero": func() error {
			_, err := NewStruct[struct {
				I int64 `json:"i,omitzero"`
			}]()
			return err
		},
		"MarshalJSON": func() error { _, err := NewStruct[struct{ T []time.Time }](); return err },
		"own string":  func() error { _, err := NewStruct[struct{ S ownString }](); return err },
		"own int":     func() error { _, err := NewStruct[struct{ I ownInt }](); return err },
		"not struct":  func() error { _, err := NewStruct[int](); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
