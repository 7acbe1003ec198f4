package main

import (
	"bufio"
	"bytes"
	"encoding/json"
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
		var want bytes.Buffer
		if err := json.Indent(&want, compact, "", "  "); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		in := &indenter{w: w}
		// Byte by byte, so that no state depends on how writes are split.
		for i := range compact {
			in.Write(compact[i : i+1])
		}
		w.Flush()
		if got.String() != want.String() {
			t.Errorf("%s:\n got %s\nwant %s", compact, got.String(), want.String())
		}
	}
}
