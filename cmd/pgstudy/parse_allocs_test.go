package main

import (
	"context"
	"io"
	"testing"
)

// TestParseCLIAllocsPerRecord guards pgstudy parse --format jsonl against
// allocations a record in the command itself, around the parser's: the
// diskstats, pgbench and sysbench parsers allocate none a record, so that
// the command's allocations on 1 MiB of their output (thousands of
// records) stay a few hundred, whatever the records. The check of a
// record's JSON error once allocated two a record (two fifths of the
// command's allocations on psql's output, all of them on these).
func TestParseCLIAllocsPerRecord(t *testing.T) {
	for _, in := range cliInputs {
		switch in.kind {
		case "diskstats", "pgbench", "sysbench":
		default:
			continue
		}
		t.Run(in.kind, func(t *testing.T) {
			f := cliInputFile(t, in.kind, in.fixture, 1<<20)
			o := &parseOptions{kind: in.kind, files: []string{f}, format: "jsonl"}
			var lines countingWriter
			if err := parseRun(context.Background(), o, streams{out: &lines, err: io.Discard}); err != nil {
				t.Fatal(err)
			}
			allocs := testing.AllocsPerRun(2, func() {
				if err := parseRun(context.Background(), o, streams{out: io.Discard, err: io.Discard}); err != nil {
					t.Fatal(err)
				}
			})
			if lines.n < 5000 || allocs > 500 {
				t.Errorf("%.0f allocations for %d records, want at most 500 (none a record)", allocs, lines.n)
			}
		})
	}
}

// countingWriter counts the lines written to it.
type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '\n' {
			c.n++
		}
	}
	return len(p), nil
}
