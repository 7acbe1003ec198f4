package psql

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// benchInput is a long hand-made log: the captured psql sessions
// (statements, VACUUM VERBOSE notices, \! cat /proc/diskstats output,
// errors, every table format) over and over, each round with a query
// returning a thousand rows in aligned format, until it is at least size
// bytes.
func benchInput(b *testing.B, size int) string {
	var parts []string
	for _, f := range []string{"capture-handmade-pg17.txt", "capture-echo-all-pg18.txt", "capture-formats-pg18.txt"} {
		s, err := os.ReadFile("testdata/" + f)
		if err != nil {
			b.Fatal(err)
		}
		parts = append(parts, string(s))
	}
	var rows strings.Builder
	rows.WriteString("select aid, bid, abalance, filler from pgbench_accounts where aid <= 1000;\n")
	rows.WriteString("  aid  | bid | abalance |                                        filler                                        \n")
	rows.WriteString("-------+-----+----------+--------------------------------------------------------------------------------------\n")
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&rows, " %5d | %3d | %8d | %-84s\n", i, 1+i/100000, i%7-3, "")
	}
	rows.WriteString("(1000 rows)\n\nTime: 12.345 ms\n")
	var in strings.Builder
	for in.Len() < size {
		for _, p := range parts {
			in.WriteString(p)
		}
		in.WriteString(rows.String())
	}
	return in.String()
}

func BenchmarkParse(b *testing.B) {
	in := benchInput(b, 16<<20)
	golden.Bench(b, []byte(in))
	for b.Loop() {
		out, _, err := Parse(strings.NewReader(in), "bench")
		if err != nil || len(out.Statements) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSeq reads the same input a record at a time, keeping
// none: what pgstudy parse psql does.
func BenchmarkParseSeq(b *testing.B) {
	in := benchInput(b, 16<<20)
	golden.Bench(b, []byte(in))
	for b.Loop() {
		n := 0
		for _, err := range ParseSeq(strings.NewReader(in), "bench", nil) {
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

// BenchmarkParseSeqSessions reads the fixtures alone, over and over: the
// sessions' short statements, messages and \! output, without the
// thousand-row tables that make most of BenchmarkParse's bytes.
func BenchmarkParseSeqSessions(b *testing.B) {
	one := sessions(b)
	in := bytes.Repeat(one, 16<<20/len(one)+1)
	golden.Bench(b, in)
	for b.Loop() {
		for _, err := range ParseSeq(bytes.NewReader(in), "bench", nil) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAppendJSON writes the records of the sessions (the fixtures)
// into one reused buffer, as pgstudy parse psql --format jsonl does; the
// bytes are the sessions'.
func BenchmarkAppendJSON(b *testing.B) {
	in := sessions(b)
	var recs []Record
	for rec, err := range ParseSeq(bytes.NewReader(in), "bench", nil) {
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec)
	}
	golden.Bench(b, in)
	var buf []byte
	for b.Loop() {
		for i := range recs {
			var err error
			if buf, err = recs[i].AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
