package parse_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// benchText is real psql output (a captured session) repeated to about
// 16 MiB: the floor under every parser that reads lines.
func benchText(b *testing.B) []byte {
	s, err := os.ReadFile("psql/testdata/capture-handmade-pg17.txt")
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(s, (16<<20)/len(s)+1)
}

// BenchmarkLines reads the text a line at a time, as the parsers of
// diskstats, pgbench and sysbench do.
func BenchmarkLines(b *testing.B) {
	in := benchText(b)
	golden.Bench(b, in)
	for b.Loop() {
		l := parse.NewLines(bytes.NewReader(in), "bench")
		for l.Next() {
		}
		if l.Err() != nil || l.Line() == 0 {
			b.Fatal(l.Err())
		}
	}
}

// BenchmarkReadText reads the text whole, as EXPLAIN's parsers do.
func BenchmarkReadText(b *testing.B) {
	in := benchText(b)
	golden.Bench(b, in)
	for b.Loop() {
		if s, err := parse.ReadText(bytes.NewReader(in), "bench"); err != nil || len(s) != len(in) {
			b.Fatal(err)
		}
	}
}
