package vacuum

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// TestReadNoticesLarge: every notices fixture, with notices of other
// severities and codes and a message longer than a chunk of text, over
// and over (4 MiB, past the reader's buffer and the list's first
// sizing), read as encoding/json reads each line: from input of known
// size and through a reader that does not tell it.
func TestReadNoticesLarge(t *testing.T) {
	var one bytes.Buffer
	for _, f := range golden.Files(t, "verbose", "*.notices.jsonl") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		one.Write(b)
	}
	one.WriteString(`{"severity":"WARNING","code":"01000","message":"w","detail":"d","hint":"h","where":"x"}` + "\n")
	one.WriteString(`{"severity":"LOG","code":"XX000","message":"` + strings.Repeat("long ", 20000) + `"}` + "\n")
	in := bytes.Repeat(one.Bytes(), 4<<20/one.Len()+1)
	var want []Notice
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var nt Notice
		if err := json.Unmarshal(sc.Bytes(), &nt); err != nil {
			t.Fatal(err)
		}
		want = append(want, nt)
	}
	for name, r := range map[string]io.Reader{
		"known size":   bytes.NewReader(in),
		"unknown size": struct{ io.Reader }{bytes.NewReader(in)},
	} {
		got, err := ReadNotices(r, "n.jsonl")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d notices, want %d", name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: notice %d:\n%+.200v\nwant\n%+.200v", name, i+1, got[i], want[i])
			}
		}
	}
}
