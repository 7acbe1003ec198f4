package vacuum

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pgstudy/pgstudy/parse"
)

// seqAll reads in with AutovacuumSeq, collecting what it yields: the
// records, the warnings in the order they came, and the error, which must
// be the last pair.
func seqAll(t testing.TB, r io.Reader, source string) ([]Record, []parse.Warning, error) {
	return seqAllOf(t, AutovacuumSeq, r, source)
}

// seqReader is AutovacuumSeq or ParseSeq.
type seqReader func(io.Reader, string, func(parse.Warning)) iter.Seq2[Record, error]

// wholeReader is Autovacuum or Parse.
type wholeReader func(io.Reader, string) ([]Record, []parse.Warning, error)

// seqAllOf is seqAll for AutovacuumSeq or ParseSeq.
func seqAllOf(t testing.TB, seq seqReader, r io.Reader, source string) ([]Record, []parse.Warning, error) {
	t.Helper()
	var recs []Record
	var warns []parse.Warning
	var end error
	for rec, err := range seq(r, source, func(w parse.Warning) { warns = append(warns, w) }) {
		if end != nil {
			t.Fatalf("a pair after the error %v", end)
		}
		if err != nil {
			end = err
			if !reflect.DeepEqual(rec, Record{}) {
				t.Errorf("the error comes with a record: %+v", rec)
			}
			continue
		}
		recs = append(recs, rec)
	}
	return recs, warns, end
}

// isNoSummary reports whether w is the warning of a record that never got
// its summary, which AutovacuumSeq gives as the record is yielded.
func isNoSummary(w parse.Warning) bool {
	r := Record{Operation: "vacuum"}
	a := Record{Operation: "analyze"}
	return w.Msg == noSummary(&r) || w.Msg == noSummary(&a)
}

// checkSeqMatches reads in with Autovacuum and with AutovacuumSeq and
// checks that they agree, as AutovacuumSeq's doc says: the same records
// in the same order; the same warnings, but that those of records without
// a summary come as each record is yielded, where Autovacuum puts them
// after the others; the same error, before which AutovacuumSeq yields
// only records that start before the error's line. It returns
// Autovacuum's result.
func checkSeqMatches(t testing.TB, in []byte, source string) ([]Record, []parse.Warning, error) {
	t.Helper()
	return checkSeqOf(t, Autovacuum, AutovacuumSeq, in, source)
}

// checkSeqOf is checkSeqMatches for Autovacuum and AutovacuumSeq, or
// Parse and ParseSeq.
func checkSeqOf(t testing.TB, whole wholeReader, seq seqReader, in []byte, source string) ([]Record, []parse.Warning, error) {
	t.Helper()
	recs, warns, err := whole(bytes.NewReader(in), source)
	srecs, swarns, serr := seqAllOf(t, seq, bytes.NewReader(in), source)
	if (err == nil) != (serr == nil) || err != nil && err.Error() != serr.Error() {
		t.Fatalf("the error read whole %v, a record at a time %v", err, serr)
	}
	if err != nil {
		var se *parse.SyntaxError
		if errors.As(err, &se) && se.Line > 0 {
			for _, r := range srecs {
				if r.Line >= se.Line {
					t.Errorf("AutovacuumSeq yielded the record of line %d before the error of line %d", r.Line, se.Line)
				}
			}
		}
		return recs, warns, err
	}
	if !reflect.DeepEqual(recs, srecs) {
		if len(recs) != len(srecs) {
			t.Fatalf("%d records read whole, %d a record at a time", len(recs), len(srecs))
		}
		for i := range recs {
			if !reflect.DeepEqual(recs[i], srecs[i]) {
				t.Fatalf("record %d differs:\nwhole: %+v\nseq:   %+v", i, recs[i], srecs[i])
			}
		}
	}
	var found, late []parse.Warning
	for _, w := range swarns {
		if isNoSummary(w) {
			late = append(late, w)
		} else {
			found = append(found, w)
		}
	}
	if want := append(found, late...); !reflect.DeepEqual(warns, want) && (len(warns) > 0 || len(want) > 0) {
		t.Fatalf("warnings differ:\nread whole:                          %v\na record at a time, the late ones last: %v", warns, want)
	}
	return recs, warns, err
}

// TestAutovacuumSeqFixtures: on every fixture of testdata (server logs in
// every format, compressed and foreign ones, which are errors, and
// VACUUM VERBOSE output, which is not a log: an error at its first lines,
// where it read as a log of INFO messages, records without numbers),
// AutovacuumSeq gives what Autovacuum gives, and ParseSeq what Parse
// gives (an error, but for psql's output).
func TestAutovacuumSeqFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var n, withRecords, failing int
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") || strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".sh") {
			continue
		}
		n++
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkSeqOf(t, Parse, ParseSeq, in, f)
			recs, _, err := checkSeqMatches(t, in, f)
			if strings.Contains(f, "foreign-") && (err == nil || !strings.Contains(err.Error(), "another language")) {
				t.Errorf("a log in another language: error %v; want a refusal", err)
			}
			if len(recs) > 0 {
				withRecords++
			}
			if err != nil {
				failing++
			}
		})
	}
	// Of the 113 fixtures, the 30 of notices (JSON lines, not a log), the
	// 30 of psql's output and the 13 compressed or foreign logs are
	// errors.
	if n < 113 || withRecords < 40 || failing < 30+30+13 {
		t.Errorf("%d fixtures, %d with records, %d errors; want every fixture of testdata", n, withRecords, failing)
	}
}

// lineReader gives its lines one per Read, counting them: bufio reads a
// line of it only when the one before was used, so lines says how far the
// parser has read.
type lineReader struct {
	lines [][]byte
	next  int
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.next == len(l.lines) {
		return 0, io.EOF
	}
	if len(p) < len(l.lines[l.next]) {
		return 0, io.ErrShortBuffer
	}
	n := copy(p, l.lines[l.next])
	l.next++
	return n, nil
}

// fixtureLines are the lines of a fixture, each with its "\n".
func fixtureLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestAutovacuumSeqHeldBack: a backend's VACUUM VERBOSE at INFO (13's
// messages: "vacuuming", then "found" with its DETAIL) is held back while
// the table is being vacuumed, and the records after it with it; when
// more than maxHeld records wait, it is yielded as it stands, and its
// "found" message, logged after them, is a warning. Autovacuum reads it
// whole.
func TestAutovacuumSeqHeldBack(t *testing.T) {
	fx := fixtureLines(t, "logformats/pg13-logformats.log")
	var vacuuming, found, entry []string
	for i, l := range fx {
		switch {
		case strings.Contains(l, ` INFO:  vacuuming "public.t"`):
			vacuuming = fx[i : i+1]
			found = fx[i+1 : i+7] // "found", its DETAIL and the DETAIL's four lines
		case entry == nil && strings.Contains(l, " LOG:  automatic vacuum of table "):
			k := i + 1
			for k < len(fx) && strings.HasPrefix(fx[k], "\t") {
				k++
			}
			entry = fx[i:k]
		}
	}
	if vacuuming == nil || entry == nil || !strings.Contains(found[0], `"t": found `) || !strings.HasPrefix(found[5], "\tCPU: ") {
		t.Fatalf("the fixture has changed: vacuuming %q, found %q, entry %q", vacuuming, found, entry)
	}
	entries := maxHeld + 10
	var lines [][]byte
	var all bytes.Buffer
	add := func(ls []string) {
		for _, l := range ls {
			lines = append(lines, []byte(l))
			all.WriteString(l)
		}
	}
	add(vacuuming)
	for range entries {
		add(entry)
	}
	add(found)
	foundLine := 1 + entries*len(entry) + 1

	recs, warns, err := Autovacuum(bytes.NewReader(all.Bytes()), "x.log")
	if err != nil || len(warns) > 0 || len(recs) != 1+entries || !recs[0].PagesScanned.Valid {
		t.Fatalf("Autovacuum: %d records, the first with pages scanned %v, warnings %v, error %v; want the VACUUM read whole and %d entries", len(recs), recs[0].PagesScanned, warns, err, entries)
	}

	in := &lineReader{lines: lines}
	var firstAt int
	var srecs []Record
	var swarns []parse.Warning
	for rec, err := range AutovacuumSeq(in, "x.log", func(w parse.Warning) { swarns = append(swarns, w) }) {
		if err != nil {
			t.Fatal(err)
		}
		if srecs == nil {
			firstAt = in.next
		}
		srecs = append(srecs, rec)
	}
	// The VACUUM goes when more than maxHeld records wait: itself and
	// those of maxHeld entries, the last of which its first line starts.
	if want := 1 + (maxHeld-1)*len(entry) + 1; firstAt != want {
		t.Errorf("the first record was yielded after %d lines were read; want %d (maxHeld = %d records waiting)", firstAt, want, maxHeld)
	}
	if len(srecs) != len(recs) || srecs[0].PagesScanned.Valid || srecs[0].Table != "t" {
		t.Fatalf("AutovacuumSeq: %d records, the first %s with pages scanned %v; want %d, the VACUUM of t without its \"found\"", len(srecs), relName(&srecs[0]), srecs[0].PagesScanned, len(recs))
	}
	want0 := recs[0]
	var none parse.Opt[int64]
	want0.PagesScanned, want0.PagesRemain, want0.TuplesRemoved, want0.TuplesNonremovable = none, none, none, none
	want0.TuplesDeadNotYetRemovable, want0.OldestXmin, want0.UnusedItemIDs, want0.PagesEmpty = none, none, none, none
	want0.PagesSkippedPinned, want0.PagesSkippedFrozen = none, none
	want0.CPUUserS, want0.CPUSystemS, want0.ElapsedS = parse.Opt[float64]{}, parse.Opt[float64]{}, parse.Opt[float64]{}
	if !reflect.DeepEqual(srecs[0], want0) || !reflect.DeepEqual(srecs[1:], recs[1:]) {
		t.Errorf("records differ beyond the VACUUM's summary:\nfirst: %+v\nwant:  %+v", srecs[0], want0)
	}
	got := fmt.Sprint(swarns)
	wantWarns := fmt.Sprintf(`[x.log:1: no summary ("finished vacuuming", or "found ... row versions") for this VACUUM: "public.t" x.log:%d: no "vacuuming" message before this one: %q]`, foundLine, strings.TrimSuffix(found[0], "\n"))
	if got != wantWarns {
		t.Errorf("warnings\n got: %s\nwant: %s", got, wantWarns)
	}
}

// TestAutovacuumSeqStop: a consumer that stops after the first record
// stops the reading (the rest of the input is not read), in every format,
// and leaves nothing running.
func TestAutovacuumSeqStop(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	for _, ext := range logFormats {
		files, _ := filepath.Glob(filepath.Join("testdata", "logformats", "pg1[5-8]-logformats."+ext))
		if len(files) == 0 {
			t.Fatalf("no %s fixture", ext)
		}
		one, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		// The fixture over and over: 1,000 copies, read through a
		// 64 KiB buffer.
		copies := 1000
		in := &countingReader{r: bytes.NewReader(bytes.Repeat(one, copies))}
		n := 0
		for _, err := range AutovacuumSeq(in, files[0], nil) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			break
		}
		if n != 1 || in.n > 128<<10 {
			t.Errorf("%s: %d records, %d KiB of %d read; want one record and at most 128 KiB read", ext, n, in.n>>10, len(one)*copies>>10)
		}
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		t.Errorf("%d goroutines after the reads, %d before", g, goroutines)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestAutovacuumSeqErrorLast: an input that turns bad after its entries
// (binary data, more lines of it than a crash leaves) yields the records
// read before the bad line, then the error, which Autovacuum returns
// alone.
func TestAutovacuumSeqErrorLast(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "autovacuum", "pg16-autovacuum.log"))
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := Autovacuum(bytes.NewReader(b), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(b, []byte("\n"))
	in := append(b, bytes.Repeat([]byte("\x00\n"), maxLeftOut+1)...)
	recs, _, err := checkSeqMatches(t, in, "x.log")
	want := fmt.Sprintf("x.log:%d: binary data (a NUL byte); expected text", lines+maxLeftOut+1)
	if recs != nil || err == nil || err.Error() != want {
		t.Fatalf("Autovacuum: %d records, %v; want %s", len(recs), err, want)
	}
	srecs, _, _ := seqAll(t, bytes.NewReader(in), "x.log")
	if !reflect.DeepEqual(srecs, whole) { // the fixture ends with the shutdown's lines, after its last entry
		t.Errorf("AutovacuumSeq yielded %d records before the error; want those of the %d entries", len(srecs), len(whole))
	}
}

// TestAutovacuumKeepsNoInput: the log reader reads lines in place, in
// the line reader's buffer, which the next reads overwrite; what a record
// keeps (names, times, process IDs) must be copied. Each fixture, in every
// format, is read 40 times over (more than the 64 KiB buffer, which then
// moves its lines), and each copy must give the records the fixture gives
// alone, but for their lines.
func TestAutovacuumKeepsNoInput(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "autovacuum", "*.log"))
	for _, ext := range logFormats {
		more, _ := filepath.Glob(filepath.Join("testdata", "logformats", "pg*-logformats."+ext))
		files = append(files, more...)
	}
	const copies = 40
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		one, _, err := Autovacuum(bytes.NewReader(b), f)
		if err != nil || len(one) == 0 || !bytes.HasSuffix(b, []byte("\n")) {
			t.Fatalf("%s: %d records, %v", f, len(one), err)
		}
		lines := bytes.Count(b, []byte("\n"))
		recs, warns, err := seqAll(t, &lineReader{lines: bytes.SplitAfter(bytes.Repeat(b, copies), []byte("\n"))}, f)
		if err != nil || len(warns) > 0 || len(recs) != copies*len(one) {
			t.Fatalf("%s, %d copies: %d records, warnings %v, error %v; want %d records", f, copies, len(recs), warns, err, copies*len(one))
		}
		for i, r := range recs {
			want := one[i%len(one)]
			want.Line += i / len(one) * lines
			if !reflect.DeepEqual(r, want) {
				t.Fatalf("%s: record %d differs from the fixture's alone:\n got %+v\nwant %+v", f, i, r, want)
			}
		}
	}
}

// TestAutovacuumSeqReadError: a read error (a damaged or truncated
// compressed log) hands out the whole records held back behind one still
// being read, before the error, rather than losing them with it; the one
// still being read is left out, with a warning that says so.
func TestAutovacuumSeqReadError(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "autovacuum", "pg17-autovacuum.log"))
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := Autovacuum(bytes.NewReader(b), "x.log")
	if err != nil || len(whole) == 0 {
		t.Fatal(len(whole), err)
	}
	// A manual VACUUM (VERBOSE) whose backend logs its INFO lines, cut
	// before its end: it holds back every entry after it.
	open := "2026-11-29 19:00:00.000 UTC [99999] INFO:  vacuuming \"postgres.public.big\"\n"
	in := append([]byte(open), b...)
	damaged := errors.New("gzip: invalid checksum")
	recs, warns, err := seqAll(t, io.MultiReader(bytes.NewReader(in), iotest.ErrReader(damaged)), "x.log")
	if err == nil || !strings.HasSuffix(err.Error(), "read: gzip: invalid checksum") {
		t.Fatalf("error %v; want the read error", err)
	}
	for i := range whole {
		whole[i].Line++ // the line put before them
	}
	if !reflect.DeepEqual(recs, whole) {
		t.Errorf("%d records before the error; want the %d whole ones of the log", len(recs), len(whole))
	}
	last := warns[len(warns)-1]
	if last.Msg != "1 record still being read where the input fails is left out: their lines after it are lost" {
		t.Errorf("last warning %v", last)
	}
}
