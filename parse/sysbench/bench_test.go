package sysbench

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

// intervalsOf is n seconds of a --report-interval=1 run, made from the
// real lines of the oltp-read-write-t4 fixture: its header, n interval
// lines (the fixture's five in turn, their times renumbered 1s to ns)
// and its report, made as they are read.
func intervalsOf(t testing.TB, n int) *parsetest.Pieces {
	t.Helper()
	real, err := os.ReadFile("testdata/oltp-read-write-t4.txt")
	if err != nil {
		t.Fatal(err)
	}
	var head, tail []byte
	var rests []string
	for _, l := range strings.SplitAfter(string(real), "\n") {
		switch _, rest, ok := strings.Cut(l, "s ] "); {
		case ok && strings.HasPrefix(l, "[ "):
			rests = append(rests, rest)
		case len(rests) == 0:
			head = append(head, l...)
		default:
			tail = append(tail, l...)
		}
	}
	return parsetest.Made(n+2, func(b []byte, i int) []byte {
		switch i {
		case 0:
			return append(b, head...)
		case n + 1:
			return append(b, tail...)
		}
		b = append(b, "[ "...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, "s ] "...)
		return append(b, rests[i%len(rests)]...)
	})
}

// benchInput is the benchmarks' input: an hour, 3600 interval lines.
func benchInput(b *testing.B) []byte {
	var in bytes.Buffer
	if _, err := in.ReadFrom(intervalsOf(b, 3600)); err != nil {
		b.Fatal(err)
	}
	golden.Bench(b, in.Bytes())
	return in.Bytes()
}

// BenchmarkParse parses an hour of a --report-interval=1 run, every row
// kept.
func BenchmarkParse(b *testing.B) {
	in := benchInput(b)
	for b.Loop() {
		run, warns, err := Parse(bytes.NewReader(in), "bench")
		if err != nil || len(warns) > 0 || len(run.Intervals) != 3600 {
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
			tps += rec.Interval.TPS.V
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
