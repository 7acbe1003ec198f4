package explain

import (
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// TestJudgeStart: an input larger than judgedBytes whose first line is
// not a plan's is refused after its first judgedBytes, with the error of
// the whole input; a plan that large, read from a pipe, gives what it
// gives read from memory; a JSON plan, and a plan of another first line
// than a node's (psql's header), are not judged wrongly.
func TestJudgeStart(t *testing.T) {
	notPlan := strings.Repeat(strings.Repeat("a", 99)+"\n", 3<<20/100)
	in := &parsetest.Counter{R: strings.NewReader(notPlan)}
	_, _, err := Parse(in, "x")
	_, _, want := Parse(strings.NewReader(notPlan), "x")
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("error %v; want %v", err, want)
	}
	if in.N > judgedBytes {
		t.Errorf("read %d KiB before refusing; want %d", in.N>>10, judgedBytes>>10)
	}
	var big strings.Builder
	big.WriteString("Append  (cost=0.00..100.00 rows=2000 width=4) (actual time=0.01..5.00 rows=2000 loops=1)\n")
	for range 2000 {
		big.WriteString("  ->  Seq Scan on t  (cost=0.00..1.00 rows=1 width=4) (actual time=0.001..0.002 rows=1 loops=1)\n")
	}
	for name, text := range map[string]string{
		"text":        big.String(),
		"psql header": "                QUERY PLAN\n---------------------------\n" + big.String() + "(2001 rows)\n",
	} {
		if len(text) <= judgedBytes {
			t.Fatalf("%s: %d bytes; the test needs more than %d", name, len(text), judgedBytes)
		}
		got, warns, err := Parse(&parsetest.Counter{R: strings.NewReader(text)}, "p")
		want, wantWarns, wantErr := Parse(strings.NewReader(text), "p")
		if jsonString(got) != jsonString(want) || jsonString(warns) != jsonString(wantWarns) || jsonString(err) != jsonString(wantErr) || err != nil {
			t.Errorf("%s through a pipe: %.200s, %v, %v; want %.200s", name, jsonString(got), warns, err, jsonString(want))
		}
	}
}

// TestByteOrderMark: a plan after a UTF-8 byte order mark, as some
// editors write, is the plan without it (JSON's was refused).
func TestByteOrderMark(t *testing.T) {
	for _, f := range []string{"testdata/pg13-parallel-seqscan-io.json", "testdata/pg13-parallel-seqscan-io.txt"} {
		raw := golden.Text(t, f)
		got, _, err := Parse(strings.NewReader("\ufeff"+raw), f)
		want, _, _ := Parse(strings.NewReader(raw), f)
		if err != nil || jsonString(got) != jsonString(want) {
			t.Errorf("%s after a byte order mark: %v", f, err)
		}
	}
}
