package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestIndenterMatchesIndent: the streaming indenter writes what
// encoding/json's Indent writes, for values with empty and nested
// containers and strings holding JSON's structural characters and escapes.
func TestIndenterMatchesIndent(t *testing.T) {
	values := []any{
		nil, 1.5, "a", []any{}, map[string]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{1, "x", nil, true}},
		[]any{map[string]any{"s": `{"[,:]"} \" \\ \n` + "\t\u2028é"}, []any{[]any{}}},
	}
	for _, v := range values {
		compact, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		checkIndenter(t, compact)
	}
}

// checkIndenter compares the indenter with json.Indent on compact, written
// whole, byte by byte (so that no state depends on how writes are split)
// and in two parts at each cut.
func checkIndenter(t *testing.T, compact []byte) {
	t.Helper()
	var want bytes.Buffer
	if err := json.Indent(&want, compact, "", "  "); err != nil {
		t.Fatal(err)
	}
	indent := func(parts ...[]byte) string {
		var got bytes.Buffer
		w := &recordOut{w: &got}
		in := &indenter{w: w}
		for _, p := range parts {
			in.Write(p)
		}
		w.flush()
		return got.String()
	}
	check := func(how string, got string) {
		if got != want.String() {
			t.Errorf("%s, %s:\n got %s\nwant %s", compact, how, got, want.String())
		}
	}
	check("whole", indent(compact))
	var bytewise [][]byte
	for i := range compact {
		bytewise = append(bytewise, compact[i:i+1])
	}
	check("byte by byte", indent(bytewise...))
	for i := range compact {
		check(fmt.Sprintf("cut at %d", i), indent(compact[:i], compact[i:]))
	}
}

func FuzzIndenter(f *testing.F) {
	f.Add(`{"a":[1,{"b":"x\\\"y"}],"c":{},"d":[],"e":-1.5e-7,"f":true}`)
	f.Fuzz(func(t *testing.T, s string) {
		var compact bytes.Buffer
		if json.Compact(&compact, []byte(s)) != nil {
			return
		}
		checkIndenter(t, compact.Bytes())
	})
}
