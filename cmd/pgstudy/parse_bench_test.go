package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// BenchmarkParseCLI times pgstudy parse KIND --format jsonl, JSON included,
// on the inputs scripts/measure-parse-cli makes (a real output repeated,
// pgbench's and sysbench's progress lines with their seconds counted on),
// of 16 MiB here, written to /dev/null's stand-in io.Discard: the command
// the parsers' own benchmarks leave out. The same as --format json:
// BenchmarkParseCLIJSON.
func BenchmarkParseCLI(b *testing.B) { benchParseCLI(b, "jsonl") }

func BenchmarkParseCLIJSON(b *testing.B) { benchParseCLI(b, "json") }

// cliInputs are the fixtures of the kinds streamed, as in
// scripts/measure-parse-cli.
var cliInputs = []struct{ kind, fixture string }{
	{"autovacuum-log", "../../parse/vacuum/testdata/autovacuum/pg17-autovacuum.log"},
	{"vacuum", "../../parse/vacuum/testdata/verbose/pg17-vacuum-verbose.psql.txt"},
	{"vacuum-notices", "../../parse/vacuum/testdata/verbose/pg17-vacuum-verbose.notices.jsonl"},
	{"psql", "../../parse/psql/testdata/pg18-session.txt"},
	{"diskstats", "../../parse/diskstats/testdata/linux-6.18.txt"},
	{"pgbench", "../../parse/pgbench/testdata/tpcb.stderr.txt"},
	{"sysbench", "../../parse/sysbench/testdata/oltp-read-write-t4.txt"},
}

func benchParseCLI(b *testing.B, format string) {
	for _, in := range cliInputs {
		b.Run(in.kind, func(b *testing.B) {
			f := cliInputFile(b, in.kind, in.fixture, 16<<20)
			st, err := os.Stat(f)
			if err != nil {
				b.Fatal(err)
			}
			parsetest.Bench(b, int(st.Size()))
			o := &parseOptions{kind: in.kind, files: []string{f}, format: format}
			for b.Loop() {
				if err := parseRun(context.Background(), o, streams{out: io.Discard, err: io.Discard}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cliInputFile is a file of at least size bytes made of fixture, an
// output of kind, by cliInput.
func cliInputFile(tb testing.TB, kind, fixture string, size int) string {
	one, err := os.ReadFile(fixture)
	if err != nil {
		tb.Fatal(err)
	}
	f := filepath.Join(tb.TempDir(), "in.txt")
	if err := os.WriteFile(f, cliInput(kind, one, size), 0o644); err != nil {
		tb.Fatal(err)
	}
	return f
}

// cliInput is one, an output of kind, made at least size bytes: repeated
// whole, or for pgbench and sysbench (one run each) its progress lines
// repeated between its first lines and its summary, their seconds counted
// on, as a long run prints them.
func cliInput(kind string, one []byte, size int) []byte {
	step, sep := []byte(nil), byte(0)
	switch kind {
	case "pgbench":
		step, sep = []byte("progress: "), ','
	case "sysbench":
		step, sep = []byte("[ "), ']'
	default:
		return bytes.Repeat(one, size/len(one)+1)
	}
	lines := bytes.SplitAfter(one, []byte("\n"))
	first, last := -1, -1
	for k, l := range lines {
		if bytes.HasPrefix(l, step) {
			if first < 0 {
				first = k
			}
			last = k
		}
	}
	var out []byte
	for _, l := range lines[:first] {
		out = append(out, l...)
	}
	for n := 1; len(out) < size; {
		for _, l := range lines[first : last+1] {
			rest := l[bytes.IndexByte(l, sep):]
			if kind == "pgbench" {
				out = fmt.Appendf(out, "progress: %d.0 s%s", n, rest)
			} else {
				out = fmt.Appendf(out, "[ %ds %s", n, rest)
			}
			n++
		}
	}
	for _, l := range lines[last+1:] {
		out = append(out, l...)
	}
	return out
}
