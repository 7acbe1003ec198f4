package pgbench

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// hourOfProgress is an hour's worth of a -P 1 run, made from the real
// lines of the tpcb-r fixture: its stderr's progress lines (the fixture's
// five in turn, their times renumbered 1.0 s to n.0 s) and then its
// stdout (the banner and the -r summary), made as it is read.
func hourOfProgress(t testing.TB, n int) *parsetest.Pieces {
	t.Helper()
	stdout, err1 := os.ReadFile("testdata/tpcb-r.stdout.txt")
	stderr, err2 := os.ReadFile("testdata/tpcb-r.stderr.txt")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	var rests []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if _, rest, ok := strings.Cut(l, " s, "); ok && strings.HasPrefix(l, "progress: ") {
			rests = append(rests, rest)
		}
	}
	return parsetest.Made(n+1, func(b []byte, i int) []byte {
		if i == n {
			return append(b, stdout...)
		}
		b = append(b, "progress: "...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ".0 s, "...)
		return append(append(b, rests[(i+1)%len(rests)]...), '\n')
	})
}

// benchInput is the benchmarks' input: an hour, 3600 progress lines.
func benchInput(b *testing.B) []byte {
	var in bytes.Buffer
	if _, err := in.ReadFrom(hourOfProgress(b, 3600)); err != nil {
		b.Fatal(err)
	}
	golden.Bench(b, in.Bytes())
	return in.Bytes()
}

// BenchmarkParse parses an hour of a -P 1 run, every row kept.
func BenchmarkParse(b *testing.B) {
	in := benchInput(b)
	for b.Loop() {
		run, warns, err := Parse(bytes.NewReader(in), "bench")
		if err != nil || len(warns) > 0 || len(run.Progress) != 3600 || run.Summary == nil {
			b.Fatal(err, warns)
		}
	}
}

// BenchmarkParseSeq reads the same a record at a time, keeping none.
func BenchmarkParseSeq(b *testing.B) {
	in := benchInput(b)
	for b.Loop() {
		n, tps := 0, 0.0
		for rec, err := range ParseSeq(bytes.NewReader(in), "bench", func(w parse.Warning) { b.Fatal(w) }) {
			if err != nil {
				b.Fatal(err)
			}
			n++
			tps += rec.Progress.TPS
		}
		if n != 3601 || tps == 0 {
			b.Fatal(n, tps)
		}
	}
}

// BenchmarkAppendJSON writes the records of the same as pgstudy parse
// does, each after the last.
func BenchmarkAppendJSON(b *testing.B) {
	in := benchInput(b)
	var recs []Record
	for rec, err := range ParseSeq(bytes.NewReader(in), "bench", nil) {
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec)
	}
	var out []byte
	for b.Loop() {
		out = out[:0]
		for i := range recs {
			var err error
			if out, err = recs[i].AppendJSON(out); err != nil {
				b.Fatal(err)
			}
			out = append(out, '\n')
		}
	}
}
