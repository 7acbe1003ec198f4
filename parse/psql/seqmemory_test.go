package psql

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// sessions is the psql fixtures read through Parse, one after the other:
// the sessions of every capture, tables of every format, errors, \!
// output, VACUUM VERBOSE notices.
func sessions(t testing.TB) []byte {
	var b []byte
	for _, f := range golden.Files(t, "", "*.txt") {
		b = append(b, golden.Text(t, f)...)
	}
	return b
}

// liveHeap follows the live heap as the garbage collector measured it.
type liveHeap struct {
	s    []metrics.Sample
	peak uint64
}

func newLiveHeap() *liveHeap {
	runtime.GC()
	return &liveHeap{s: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
}

func (h *liveHeap) sample() {
	metrics.Read(h.s)
	h.peak = max(h.peak, h.s[0].Value.Uint64())
}

// countSeq counts the records of r, failing on an error.
func countSeq(t *testing.T, r io.Reader, h *liveHeap) int {
	t.Helper()
	n := 0
	for _, err := range ParseSeq(r, "in", nil) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; h != nil && n%64 == 0 {
			h.sample()
		}
	}
	return n
}

// TestParseSeqMemory streams 200 MB of the fixtures over and over, made
// as read, through ParseSeq: the records are those of the copies (each
// copy after the first adds what the second added), and the live heap
// stays under 32 MiB. Parse held about 15 bytes a byte of input.
func TestParseSeqMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	one := sessions(t)
	n1 := countSeq(t, bytes.NewReader(one), nil)
	n2 := countSeq(t, parsetest.Repeat(one, 2), nil)
	copies := 200e6 / len(one)
	h := newLiveHeap()
	n := countSeq(t, parsetest.Repeat(one, copies), h)
	t.Logf("%d MB, %d records; peak live heap %.1f MiB", copies*len(one)/1e6, n, float64(h.peak)/(1<<20))
	if want := n1 + (copies-1)*(n2-n1); n != want {
		t.Errorf("%d records; want %d", n, want)
	}
	if h.peak == 0 || h.peak > 32<<20 {
		t.Errorf("peak live heap %.1f MiB; want under 32 MiB", float64(h.peak)/(1<<20))
	}
}

// TestParseSeqTable: a statement whose result is one table of 64 MB is
// held whole until it is complete, but once: the live heap stays under
// twice the table's bytes (its blocks, which its values are parts of, and
// a row's slice and its values' headers).
func TestParseSeqTable(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a table of 64 MB")
	}
	row := []byte(fmt.Sprintf(" %5d | %3d | %8d | %-84s\n", 12345, 1, -3, ""))
	rows := 64e6 / len(row)
	head := "select aid, bid, abalance, filler from pgbench_accounts;\n" +
		"  aid  | bid | abalance |                                        filler                                        \n" +
		"-------+-----+----------+--------------------------------------------------------------------------------------\n"
	tail := fmt.Sprintf("(%d rows)\n\nTime: 12.345 ms\n", rows)
	in := io.MultiReader(strings.NewReader(head), parsetest.Repeat(row, rows), strings.NewReader(tail))
	h := newLiveHeap()
	var got *Table
	for r, err := range ParseSeq(in, "in", nil) {
		if err != nil {
			t.Fatal(err)
		}
		h.sample()
		got = r.Statement.Results[0].Table
		runtime.GC() // the record held, as a consumer writing it does
		h.sample()
	}
	size := uint64(rows * len(row))
	t.Logf("%d MB table; peak live heap %.1f MiB (%.2f bytes a byte)", size/1e6, float64(h.peak)/(1<<20), float64(h.peak)/float64(size))
	if got == nil || len(got.Rows) != rows || got.Rows[rows-1][0] != "12345" {
		t.Fatalf("table not read whole")
	}
	if h.peak > 2*size {
		t.Errorf("peak live heap %.1f MiB for a table of %.1f MiB; want under twice", float64(h.peak)/(1<<20), float64(size)/(1<<20))
	}
}

// TestHeldLinesBounded: lines that are not psql's after a statement,
// which read as its output, held whole, are refused past maxHeldLines:
// a stream of them grew to gigabytes (some 57 times its bytes).
func TestHeldLinesBounded(t *testing.T) {
	in := io.MultiReader(strings.NewReader("select 1;\n"), &repeatLine{line: "y\n"})
	var last error
	for _, err := range ParseSeq(in, "in", nil) {
		last = err
	}
	want := fmt.Sprintf("in:%d: a statement's output of more than %d lines, which a record holds whole", maxHeldLines+1, maxHeldLines)
	if last == nil || !strings.HasPrefix(last.Error(), want) {
		t.Errorf("error %v; want %s...", last, want)
	}
}

// TestManyStatementsUntimed: psql -a's output of statements without
// \timing, each complete only when the next begins, is read to its end
// however many lines it has in all: the bound on a statement's output
// counts from the oldest record held, not from the last moment none was
// (a 25 MB session of 4.3 Mi lines was refused as one statement's
// output; found by an outside tester).
func TestManyStatementsUntimed(t *testing.T) {
	const stmt = "select 1 as x;\n x \n---\n 1\n(1 row)\n\n"
	n := maxHeldLines/6 + 1000
	in := parsetest.Repeat([]byte(stmt), n)
	got := 0
	for r, err := range ParseSeq(in, "in", nil) {
		if err != nil {
			t.Fatalf("after %d records: %v", got, err)
		}
		if st := r.Statement; st == nil || st.SQL != "select 1 as x;" || len(st.Results) != 1 || st.Results[0].Table == nil || st.Results[0].Table.Rows[0][0] != "1" {
			t.Fatalf("record %d: %+v", got, r)
		}
		got++
	}
	if got != n {
		t.Errorf("%d records; want %d", got, n)
	}
}

// repeatLine is a reader of one line for ever.
type repeatLine struct {
	line string
	off  int
}

func (r *repeatLine) Read(p []byte) (int, error) {
	for k := range p {
		p[k] = r.line[r.off]
		r.off = (r.off + 1) % len(r.line)
	}
	return len(p), nil
}

// TestHeldEchoBounded: an echo held whole (a statement's SQL, or comments)
// is refused past maxHeldLines too, naming its first line: a statement of
// millions of comment lines was held whole, in memory growing with it.
func TestHeldEchoBounded(t *testing.T) {
	in := io.MultiReader(strings.NewReader("select 0;\n ?column? \n----------\n        0\n(1 row)\n\n"), &repeatLine{line: "-- c\n"})
	var last error
	n := 0
	for _, err := range ParseSeq(in, "in", nil) {
		if last = err; err == nil {
			n++
		}
	}
	want := "a statement's echo longer than 256 MiB or 4194304 lines, starting on line 7"
	if last == nil || !strings.Contains(last.Error(), want) || n != 1 {
		t.Errorf("%d records, error %v; want the first statement, then %s...", n, last, want)
	}
}
