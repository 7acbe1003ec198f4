package jsonw

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// counters is embedded in tree, as a plan's Buffers are in its nodes.
type counters struct {
	A *int64 `json:"a,omitempty"`
	B *bool  `json:"b,omitempty"`
}

// tree has the kinds of a plan's node: embedded structs, a *bool, a
// pointer to a struct, maps, and children through pointers to itself.
type tree struct {
	Name string `json:"name"`
	counters
	P     *bool             `json:"p"`
	Sub   *counters         `json:"sub,omitempty"`
	NSub  *counters         `json:"nsub"`
	M     map[string]string `json:"m,omitempty"`
	XM    map[string]string `json:"xm"`
	X     map[string]any    `json:"x,omitempty"`
	XX    map[string]any    `json:"xx"`
	Kids  []*tree           `json:"kids,omitempty"`
	XKids []*tree           `json:"xkids"`
}

// treeCases are trees with every kind of tree's fields set, nil and empty,
// and the values a JSON decoder puts in a map[string]any.
func treeCases() []*tree {
	i, yes, no := int64(-3), true, false
	return []*tree{
		{},
		{Name: "<a>", counters: counters{A: &i, B: &no}, P: &yes, Sub: &counters{B: &yes}, NSub: &counters{},
			M: map[string]string{"b": "2", "a": "\"1\"", "é": "x\u2028", "A": "<&>", "": ""}, XM: map[string]string{},
			X: map[string]any{"n": json.Number("1.50"), "z": json.Number(""), "s": "t\n", "f": 2.5e-9, "t": true,
				"nil": nil, "l": []any{"a", json.Number("-0"), []any{}, map[string]any{}, []any(nil), map[string]any(nil)},
				"m": map[string]any{"y": false, "x": []any{map[string]any{"k": "v"}}}},
			XX:    map[string]any{},
			Kids:  []*tree{{Name: "kid", Kids: []*tree{{Name: "grandkid", XKids: []*tree{}}}}, nil, {P: &no}},
			XKids: []*tree{nil}},
		{M: map[string]string{}, X: map[string]any{}, Kids: []*tree{}},
		large(),
	}
}

// large is a tree whose JSON is 4 MB, grown past room's 1 MiB.
func large() *tree {
	t := &tree{Name: "large"}
	for i := range 40000 {
		t.Kids = append(t.Kids, &tree{Name: strconv.Itoa(i), X: map[string]any{"n": json.Number(strconv.Itoa(i))}})
	}
	return t
}

// TestStructTree: trees are written as encoding/json writes them.
func TestStructTree(t *testing.T) {
	s, err := NewStruct[tree]()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range treeCases() {
		want, _ := golden.EncodingJSON(c)
		got, err := s.Append([]byte("x"), c)
		if string(got) != "x"+want || err != nil {
			t.Errorf("got %s (%v)\nwant x%s", got, err, want)
		}
	}
}

// TestStructTreeRefused: what jsonw leaves to encoding/json is
// ErrUnsupported: a value encoding/json refuses too (an invalid number, a
// cycle), or one of a type jsonw does not know in a map[string]any, or a
// tree deeper than maxDepth (which encoding/json writes).
func TestStructTreeRefused(t *testing.T) {
	s, err := NewStruct[tree]()
	if err != nil {
		t.Fatal(err)
	}
	cycle := &tree{Name: "loop"}
	cycle.Kids = []*tree{cycle}
	deep := &tree{}
	for range maxDepth {
		deep = &tree{Kids: []*tree{deep}}
	}
	for name, c := range map[string]struct {
		t             *tree
		encodingFails bool
	}{
		"invalid number": {&tree{X: map[string]any{"n": json.Number("1.")}}, true},
		"int in a map":   {&tree{XX: map[string]any{"i": 1}}, false},
		"cycle":          {cycle, true},
		"deep":           {deep, false},
	} {
		if _, err := s.Append(nil, c.t); err != ErrUnsupported {
			t.Errorf("%s: error %v, want ErrUnsupported", name, err)
		}
		if _, ok := golden.EncodingJSON(c.t); ok == c.encodingFails {
			t.Errorf("%s: encoding/json writes it: %v", name, ok)
		}
	}
}

// FuzzNumber: a json.Number is written, or refused, as encoding/json
// writes or refuses it.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "1e5", "1E+05", "-1.25e-3", "", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x1", "1.5e3.2", "NaN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := enc{}
		e.number(s)
		want, ok := golden.EncodingJSON(json.Number(s))
		if (e.err == nil) != ok || ok && string(e.b) != want {
			t.Errorf("number(%q) = %s, %v; encoding/json: %s, %v", s, e.b, e.err, want, ok)
		}
	})
}
