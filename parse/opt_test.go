package parse_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// TestOptJSON: an Opt is its value in JSON, left out when absent under
// omitzero (as a nil pointer under omitempty), and reads back the same.
func TestOptJSON(t *testing.T) {
	type row struct {
		F parse.Opt[float64] `json:"f,omitzero"`
		N parse.Opt[int64]   `json:"n,omitzero"`
		Z parse.Opt[int64]   `json:"z"`
	}
	for _, tc := range []struct {
		in   row
		want string
	}{
		{row{}, `{"z":null}`},
		{row{F: parse.Some(0.0), N: parse.Some[int64](0), Z: parse.Some[int64](3)}, `{"f":0,"n":0,"z":3}`},
		{row{F: parse.Some(1e-7), N: parse.Some[int64](-12)}, `{"f":1e-7,"n":-12,"z":null}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Errorf("%+v: %s, %v; want %s", tc.in, b, err, tc.want)
		}
		var back row
		if err := json.Unmarshal(b, &back); err != nil || back != tc.in {
			t.Errorf("%s read back as %+v, %v", b, back, err)
		}
	}
	if p := parse.Some(2.5).Ptr(); p == nil || *p != 2.5 {
		t.Errorf("Ptr of 2.5: %v", p)
	}
	if p := (parse.Opt[int64]{}).Ptr(); p != nil {
		t.Errorf("Ptr of an absent figure: %v", *p)
	}
}

// TestSize: the sizes a reader tells without being read, what is left of
// an open file, and -1 for the others.
func TestSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := parse.Size(f); got != 10 {
		t.Errorf("file: %d", got)
	}
	f.Seek(4, io.SeekStart)
	if got := parse.Size(f); got != 6 {
		t.Errorf("file after 4 bytes: %d", got)
	}
	if got := parse.Size(strings.NewReader("abc")); got != 3 {
		t.Errorf("strings.Reader: %d", got)
	}
	if got := parse.Size(io.MultiReader(strings.NewReader("abc"))); got != -1 {
		t.Errorf("a reader that does not tell: %d", got)
	}
}
