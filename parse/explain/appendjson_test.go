package explain

import (
	"bytes"
	"os"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/internal/jsonw"
)

// checkAppendJSON checks that p.AppendJSON, and its record's, write what
// encoding/json writes, or fail where encoding/json fails.
func checkAppendJSON(t testing.TB, p *Plan) {
	t.Helper()
	checkAppend(t, p)
	checkAppend(t, NewRecord(p))
}

func checkAppend(t testing.TB, v interface {
	AppendJSON([]byte) ([]byte, error)
}) {
	t.Helper()
	want, ok := golden.EncodingJSON(v)
	got, err := v.AppendJSON([]byte("x"))
	switch {
	case !ok && err != jsonw.ErrUnsupported:
		t.Fatalf("encoding/json fails, AppendJSON gives %.200s, %v", got, err)
	case ok && err == jsonw.ErrUnsupported:
		// Left to encoding/json.
	case ok && (err != nil || string(got) != "x"+want):
		t.Fatalf("AppendJSON differs from encoding/json (%v):\n%s", err, golden.FirstDiff(string(got), "x"+want))
	}
}

// TestAppendJSON: the plan of every fixture, in both formats and as psql
// prints them aligned, and the plans of 200 copies the benchmarks read,
// are written byte for byte as encoding/json writes them.
func TestAppendJSON(t *testing.T) {
	files := golden.Files(t, "", "*")
	b := &testing.B{}
	inputs := map[string]string{
		"append200.json": string(appendJSONPlan(b, golden.Text(t, "testdata/pg18-parallel-seqscan-io.json"), 200)),
		"append200.txt":  string(appendTextPlan(golden.Text(t, "testdata/pg18-parallel-seqscan-io.txt"), 200)),
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = string(data)
		inputs[f+" aligned"] = psqlAligned(string(data), f[len(f)-5:] == ".json")
	}
	n := 0
	for name, in := range inputs {
		read := Text
		if bytes.HasPrefix(bytes.TrimLeft([]byte(in), " \t\r\n"), []byte("[")) || bytes.Contains([]byte(name), []byte(".json")) {
			read = JSON
		}
		p, _, err := read(bytes.NewReader([]byte(in)), name)
		if err != nil {
			continue // the fixtures of errors
		}
		t.Run(name, func(t *testing.T) { checkAppendJSON(t, p) })
		n++
	}
	if n < 100 {
		t.Errorf("only %d plans checked", n)
	}
	if got, err := (*Plan)(nil).AppendJSON(nil); string(got) != "null" || err != nil {
		t.Errorf("nil plan: %s, %v", got, err)
	}
}
