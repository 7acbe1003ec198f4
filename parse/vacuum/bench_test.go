package vacuum

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"os"
	"regexp"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// benchInput repeats the fixtures of a kind, each copy naming other
// tables (t becomes t_1, t_2, ...), to about size bytes.
func benchInput(b *testing.B, kind, pattern string, size int) []byte {
	b.Helper()
	var all [][]byte
	for _, f := range golden.Files(b, kind, pattern) {
		in, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, in)
	}
	table := regexp.MustCompile(`\b(public\.)?t(_pkey|_k)?"`)
	var out bytes.Buffer
	for i := 0; out.Len() < size; i++ {
		for _, in := range all {
			out.Write(table.ReplaceAll(in, fmt.Appendf(nil, `${1}t_%d${2}"`, i)))
		}
	}
	return out.Bytes()
}

// BenchmarkParse parses psql's output of VACUUM (VERBOSE), 13 to 18: the
// fixtures over and over, about 8 MiB in one call, as a long study's
// outputs read back together.
func BenchmarkParse(b *testing.B) {
	in := benchInput(b, "verbose", "*.psql.txt", 8<<20)
	golden.Bench(b, in)
	for b.Loop() {
		recs, _, err := Parse(bytes.NewReader(in), "bench")
		if err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSeq reads the same input as BenchmarkParse, a record at
// a time, as pgstudy parse does.
func BenchmarkParseSeq(b *testing.B) {
	benchSeq(b, benchInput(b, "verbose", "*.psql.txt", 8<<20), ParseSeq)
}

// BenchmarkNotices reads the notices fixtures as JSON lines and
// parses them; the bytes are the JSON's.
func BenchmarkNotices(b *testing.B) {
	in := benchInput(b, "verbose", "*.notices.jsonl", 8<<20)
	golden.Bench(b, in)
	for b.Loop() {
		ns, err := ReadNotices(bytes.NewReader(in), "bench")
		if err != nil {
			b.Fatal(err)
		}
		recs, _, err := Notices(ns, "bench")
		if err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadNotices and BenchmarkNoticesList are BenchmarkNotices'
// two passes apart: the JSON lines read into a list, and the records
// parsed from the list, as the analysis parses a capture's notices.
func BenchmarkReadNotices(b *testing.B) {
	in := benchInput(b, "verbose", "*.notices.jsonl", 8<<20)
	golden.Bench(b, in)
	for b.Loop() {
		if _, err := ReadNotices(bytes.NewReader(in), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNoticesList(b *testing.B) {
	in := benchInput(b, "verbose", "*.notices.jsonl", 8<<20)
	ns, err := ReadNotices(bytes.NewReader(in), "bench")
	if err != nil {
		b.Fatal(err)
	}
	golden.Bench(b, in)
	for b.Loop() {
		if recs, _, err := Notices(ns, "bench"); err != nil || len(recs) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkNoticesSeq reads the same JSON lines as BenchmarkNotices, a
// record at a time, as pgstudy parse vacuum-notices does.
func BenchmarkNoticesSeq(b *testing.B) {
	benchSeq(b, benchInput(b, "verbose", "*.notices.jsonl", 8<<20), NoticesSeq)
}

// benchSeq reads in a record at a time through seq, as pgstudy parse
// does; the bytes are in's.
func benchSeq(b *testing.B, in []byte, seq func(io.Reader, string, func(parse.Warning)) iter.Seq2[Record, error]) {
	golden.Bench(b, in)
	for b.Loop() {
		n := 0
		for _, err := range seq(bytes.NewReader(in), "bench", nil) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n == 0 {
			b.Fatal("no records")
		}
	}
}
