package vacuum

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// ParseSeq and Parse: what autovacuum_seq_test.go checks of AutovacuumSeq
// and Autovacuum, for psql's output (both share handout.go).

// TestParseKeepsNoInput is TestAutovacuumKeepsNoInput for Parse: each
// psql output of testdata/verbose, read 40 times over a line at a time,
// gives its records 40 times, but for their lines.
func TestParseKeepsNoInput(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "verbose", "*.psql.txt"))
	if len(files) < 30 {
		t.Fatalf("%d psql outputs in testdata/verbose", len(files))
	}
	const copies = 40
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		one, oneWarns, err := Parse(bytes.NewReader(b), f)
		if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			t.Fatalf("%s: %v", f, err)
		}
		lines := bytes.Count(b, []byte("\n"))
		recs, warns, err := Parse(&lineReader{lines: bytes.SplitAfter(bytes.Repeat(b, copies), []byte("\n"))}, f)
		if err != nil || len(recs) != copies*len(one) || len(warns) != copies*len(oneWarns) {
			t.Fatalf("%s, %d copies: %d records, %d warnings, error %v; want %d and %d", f, copies, len(recs), len(warns), err, copies*len(one), copies*len(oneWarns))
		}
		for i, r := range recs {
			want := one[i%len(one)]
			want.Line += i / len(one) * lines
			if !reflect.DeepEqual(r, want) {
				t.Fatalf("%s: record %d differs from the fixture's alone:\n got %+v\nwant %+v", f, i, r, want)
			}
		}
		for i, w := range warns {
			want := oneWarns[i%len(oneWarns)]
			want.Line += i / len(oneWarns) * lines
			if w != want {
				t.Fatalf("%s: warning %d differs from the fixture's alone:\n got %s\nwant %s", f, i, w, want)
			}
		}
	}
}

// TestParseHeldLinesCopied: the lines Parse keeps for later (an echoed
// statement's lines until a ";" shows they were one, the first line not
// understood, which an input without records names) are copies, not
// parts of the reader's buffer, which the lines after them overwrite.
func TestParseHeldLinesCopied(t *testing.T) {
	split := func(s string) [][]byte { return bytes.SplitAfter([]byte(s), []byte("\n")) }
	in := "SELECT 1,\n  22222\nINFO:  vacuuming \"public.t\"\nINFO:  \"t\": found 0 removable, 1 nonremovable row versions in 1 out of 116 pages\n"
	_, warns, err := Parse(&lineReader{lines: split(in)}, "x")
	if err != nil || len(warns) == 0 || warns[0].Line != 2 || warns[0].Text != "  22222" {
		t.Errorf("warnings %v, error %v; want the first naming line 2, \"  22222\"", warns, err)
	}
	_, _, err = Parse(&lineReader{lines: split("first line\nsecond one\n")}, "x")
	if want := `x:1: expected psql's output of VACUUM (VERBOSE) (INFO:  vacuuming "table"), found "first line"`; err == nil || err.Error() != want {
		t.Errorf("error %v; want %s", err, want)
	}
}

// TestParseSeqHeldBack: 13's VACUUM VERBOSE ANALYZE of t, whose messages
// name the table being vacuumed only by "t", holds back the records
// after "vacuuming" until the statement ends; here it never does, and
// thousands of ANALYZE records follow before its "found": when more than
// maxHeld wait, ParseSeq yields it as it stands, and "found" is a warning.
// Parse reads it whole.
func TestParseSeqHeldBack(t *testing.T) {
	fx := fixtureLines(t, "verbose/pg13-vacuum-verbose-analyze.psql.txt")
	at := func(prefix string) int {
		for i, l := range fx {
			if strings.HasPrefix(l, prefix) {
				return i
			}
		}
		t.Fatalf("the fixture has changed: no line %q", prefix)
		return 0
	}
	vacuuming := fx[at(`INFO:  vacuuming "public.t"`)]
	f := at(`INFO:  "t": found `)
	found := fx[f : f+6] // "found", its DETAIL and the DETAIL's four lines
	a := at(`INFO:  analyzing "public.t"`)
	analyze := fx[a : a+2] // "analyzing" and its sample
	var lines [][]byte
	var all bytes.Buffer
	add := func(ls ...string) {
		for _, l := range ls {
			lines = append(lines, []byte(l))
			all.WriteString(l)
		}
	}
	add(vacuuming)
	analyzes := maxHeld + 10
	for range analyzes {
		add(analyze...)
	}
	add(found...)

	recs, warns, err := Parse(bytes.NewReader(all.Bytes()), "x")
	if err != nil || len(warns) > 0 || len(recs) != 1+analyzes || !recs[0].PagesScanned.Valid {
		t.Fatalf("Parse: %d records, warnings %v, error %v; want the VACUUM read whole and %d ANALYZE", len(recs), warns, err, analyzes)
	}
	in := &lineReader{lines: lines}
	var firstAt int
	var srecs []Record
	var swarns []parse.Warning
	for rec, err := range ParseSeq(in, "x", func(w parse.Warning) { swarns = append(swarns, w) }) {
		if err != nil {
			t.Fatal(err)
		}
		if srecs == nil {
			firstAt = in.next
		}
		srecs = append(srecs, rec)
	}
	// It goes when more than maxHeld records wait: itself and maxHeld
	// ANALYZE records, the last of which the line 2*maxHeld starts.
	if firstAt != 2*maxHeld {
		t.Errorf("the first record was yielded after %d lines were read; want %d", firstAt, 2*maxHeld)
	}
	if len(srecs) != len(recs) || srecs[0].PagesScanned.Valid || !reflect.DeepEqual(srecs[1:], recs[1:]) {
		t.Errorf("ParseSeq: %d records, the first with pages scanned %v; want %d, the VACUUM without its \"found\", the others as Parse's", len(srecs), srecs[0].PagesScanned, len(recs))
	}
	want := fmt.Sprintf(`[x:1: no summary ("finished vacuuming", or "found ... row versions") for this VACUUM: "public.t" x:%d: no "vacuuming" message before this one: %q]`,
		1+2*analyzes+1, strings.TrimSuffix(found[0], "\n"))
	if got := fmt.Sprint(swarns); got != want {
		t.Errorf("warnings\n got: %s\nwant: %s", got, want)
	}
}

// TestParseSeqStop: a consumer that stops after the first record stops
// the reading of psql's output.
func TestParseSeqStop(t *testing.T) {
	one, err := os.ReadFile(filepath.Join("testdata", "verbose", "pg16-vacuum-verbose.psql.txt"))
	if err != nil {
		t.Fatal(err)
	}
	in := &countingReader{r: bytes.NewReader(bytes.Repeat(one, 1000))}
	n := 0
	for _, err := range ParseSeq(in, "x", nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 || in.n > 128<<10 {
		t.Errorf("%d records, %d KiB of %d read; want one record and at most 128 KiB read", n, in.n>>10, len(one)*1000>>10)
	}
}

// TestSeqOtherKind: an input of another kind gives its error alone, as
// read whole, and at its first judgedPsqlLines lines when none of them is
// understood. The warnings found before a first record wait for it, up to
// maxHeld of them; past that they go as they come, which bounds what
// waits.
func TestSeqOtherKind(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("testdata", "autovacuum", "pg13-autovacuum.log"))
	if err != nil {
		t.Fatal(err)
	}
	_, _, want := Parse(bytes.NewReader(log), "x")
	recs, warns, err := seqAllOf(t, ParseSeq, bytes.NewReader(log), "x")
	if len(recs) > 0 || len(warns) > 0 || err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("ParseSeq on a server log: %d records, %d warnings, %v; want the error alone: %v", len(recs), len(warns), err, want)
	}
	lines := maxHeld + 100
	long := bytes.Repeat([]byte("not psql\n"), lines)
	r := bytes.NewReader(bytes.Repeat(long, 100)) // 3.7 MB
	recs, warns, err = seqAllOf(t, ParseSeq, r, "x")
	if len(recs) > 0 || len(warns) > 0 || err == nil || r.Len() == 0 {
		t.Errorf("ParseSeq on %d lines of another kind: %d records, %d warnings, %v, %d bytes left; want the error alone, before the end", 100*lines, len(recs), len(warns), err, r.Len())
	}
	// psql's output (a line understood), then lines not understood: all
	// read, each a warning.
	long = append([]byte("Timing is on.\n"), long...)
	recs, warns, err = seqAllOf(t, ParseSeq, bytes.NewReader(long), "x")
	if len(recs) > 0 || len(warns) != lines || err == nil {
		t.Errorf("ParseSeq on %d lines not understood: %d records, %d warnings, %v; want every warning, then the error", lines, len(recs), len(warns), err)
	}
}
