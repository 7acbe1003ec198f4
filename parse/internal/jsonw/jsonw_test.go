package jsonw

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// reference is v as an encoding/json Encoder with SetEscapeHTML(false)
// writes it, without the newline; ok false where it fails.
func reference(t testing.TB, v any) (string, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), true
}

var stringCases = []string{
	"", "plain", `"quoted" \ back`, "<html> & 'x'", "tab\there\nnew\rret\bbs\fff", "\x00\x01\x1f\x7f",
	"é ü 日本", "\u2028 \u2029", "bad \xff \xc3 utf8 \xed\xa0\x80", "\xe2\x80", "ends in \xe2",
	`public."odd ""table"""`,
}

func TestAppendString(t *testing.T) {
	for _, s := range stringCases {
		checkString(t, s)
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, _ := reference(t, s)
	if got := string(AppendString([]byte("x"), s)); got != "x"+want {
		t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
	}
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
}

func TestAppendFloat(t *testing.T) {
	for _, f := range floatCases {
		checkFloat(t, f)
	}
}

func checkFloat(t *testing.T, f float64) {
	t.Helper()
	want, wantOK := reference(t, f)
	got, ok := AppendFloat([]byte("x"), f)
	if ok != wantOK || ok && string(got) != "x"+want {
		t.Errorf("AppendFloat(%v) = %s, %v, want %s, %v", f, got, ok, want, wantOK)
	}
}

func FuzzAppendFloat(f *testing.F) {
	for _, x := range floatCases {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) { checkFloat(t, math.Float64frombits(bits)) })
}

// TestEnc: an object with every kind of field, nested, as encoding/json
// writes the struct its tags describe; a NaN is an error.
func TestEnc(t *testing.T) {
	type inner struct {
		N string `json:"n"`
	}
	type rec struct {
		S  string   `json:"s"`
		OS string   `json:"os,omitempty"`
		OE string   `json:"oe,omitempty"`
		B  bool     `json:"b"`
		OB bool     `json:"ob,omitempty"`
		OF bool     `json:"of,omitempty"`
		I  int64    `json:"i"`
		U  uint64   `json:"u"`
		O  inner    `json:"o"`
		PI *int64   `json:"pi,omitempty"`
		NI *int64   `json:"ni,omitempty"`
		PF *float64 `json:"pf,omitempty"`
		NF *float64 `json:"nf,omitempty"`
		L  []inner  `json:"l,omitempty"`
		E  []inner  `json:"e,omitempty"`
	}
	i, f := int64(-7), 2.5e-7
	r := rec{S: "a\"b", OS: "<x>", B: false, OB: true, I: 3, U: math.MaxUint64, O: inner{"o"}, PI: &i, PF: &f, L: []inner{{"1"}, {"2"}}}
	want, _ := reference(t, r)
	var e Enc
	e.Open()
	e.String("s", r.S)
	e.OmitString("os", r.OS)
	e.OmitString("oe", r.OE)
	e.Bool("b", r.B)
	e.OmitBool("ob", r.OB)
	e.OmitBool("of", r.OF)
	e.Int("i", r.I)
	e.Uint("u", r.U)
	e.OpenObject("o")
	e.String("n", r.O.N)
	e.Close()
	e.OptInt("pi", r.PI)
	e.OptInt("ni", r.NI)
	e.OptFloat("pf", r.PF)
	e.OptFloat("nf", r.NF)
	e.OpenArray("l")
	for _, x := range r.L {
		e.Open()
		e.String("n", x.N)
		e.Close()
	}
	e.CloseArray()
	e.Close()
	if string(e.B) != want || e.Err != nil {
		t.Errorf("got %s (%v)\nwant %s", e.B, e.Err, want)
	}
	nan := math.NaN()
	e = Enc{}
	e.Open()
	e.OptFloat("f", &nan)
	e.Close()
	if e.Err != ErrUnsupported {
		t.Errorf("NaN: error %v, want ErrUnsupported", e.Err)
	}
}
