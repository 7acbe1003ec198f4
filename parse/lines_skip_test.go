package parse_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// skipped is what Lines with Skip told of a line left out.
type skipped struct {
	line      int
	text, why string
}

// readSkipping reads r with Skip: the lines handed out, their offsets,
// what was left out, and the error.
func readSkipping(r io.Reader) (lines []string, offsets []int64, left []skipped, err error) {
	l := parse.NewLines(r, "in")
	l.Skip(nil, func(n int, text, why string) { left = append(left, skipped{n, text, why}) })
	for l.Next() {
		lines = append(lines, l.Text())
		offsets = append(offsets, l.Offset())
	}
	return lines, offsets, left, l.Err()
}

// TestLinesSkipNUL: with Skip, a line holding NULs (a run of them, as a
// crash leaves in a log, short or longer than the reader's buffer) is
// read from the byte after its last NUL, or left out when nothing
// follows it, and each is told with its line number and the bytes left
// out; the lines before and after are those strings.Split finds, at the
// same offsets, whatever the reader's pieces.
func TestLinesSkipNUL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 60 {
		var in strings.Builder
		var want []string
		var wantLeft []skipped
		var wantOff []int64
		n := 0
		for in.Len() < 300<<10 {
			n++
			line := strings.Repeat("a", rng.IntN(100))
			if k := rng.IntN(40); k < 4 {
				nuls := strings.Repeat("\x00", []int{1, 5000, 64 << 10, 150 << 10}[k])
				lead := strings.Repeat("b", rng.IntN(3)*30)
				left := fmt.Sprintf("%d bytes of binary data", len(nuls))
				if len(nuls) == 1 {
					left = "1 byte of binary data"
				}
				if lead != "" {
					left += fmt.Sprintf(" (NULs, as a file system leaves where a crash cut a file) left out, with the %d bytes of text before them", len(lead))
				}
				wantLeft = append(wantLeft, skipped{n, line, left})
				in.WriteString(lead + nuls)
			}
			in.WriteString(line + "\n")
			if line != "" || len(wantLeft) == 0 || wantLeft[len(wantLeft)-1].line != n {
				want = append(want, line)
				wantOff = append(wantOff, int64(in.Len()))
			}
		}
		text := in.String()
		for name, r := range map[string]io.Reader{
			"whole":   io.MultiReader(strings.NewReader(text)),
			"half":    iotest.HalfReader(strings.NewReader(text)),
			"onebyte": iotest.OneByteReader(strings.NewReader(text)),
		} {
			if name == "onebyte" && round%10 != 0 {
				continue // slow
			}
			got, off, left, err := readSkipping(r)
			if err != nil {
				t.Fatalf("round %d %s: %v", round, name, err)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") || fmt.Sprint(off) != fmt.Sprint(wantOff) {
				t.Fatalf("round %d %s: %d lines, want %d (or their offsets differ)", round, name, len(got), len(want))
			}
			if len(left) != len(wantLeft) {
				t.Fatalf("round %d %s: %d lines left out, want %d", round, name, len(left), len(wantLeft))
			}
			for i := range left {
				if left[i].line != wantLeft[i].line || left[i].text != wantLeft[i].text || !strings.HasPrefix(left[i].why, wantLeft[i].why) {
					t.Fatalf("round %d %s: left out %v, want %v", round, name, left[i], wantLeft[i])
				}
			}
		}
	}
}

// TestLinesSkipLong: with Skip, a line longer than MaxLine is dropped as
// it is read (the memory stays that of MaxLine, not of the line), told
// with its number and size, and the lines after it are read.
func TestLinesSkipLong(t *testing.T) {
	const n = parse.MaxLine + 10<<20
	in := io.MultiReader(&longLine{head: "a\nb\n", n: n}, strings.NewReader("\nc\n"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, off, left, err := readSkipping(in)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "a|b|c" || fmt.Sprint(off) != fmt.Sprint([]int64{2, 4, 4 + n + 3}) {
		t.Errorf("lines %q at %v; want a, b, c at 2, 4, %d", got, off, 4+n+3)
	}
	want := fmt.Sprintf("a line of %d bytes, longer than 64 MiB: left out", n)
	if len(left) != 1 || left[0].line != 3 || left[0].why != want || left[0].text != strings.Repeat("x", parse.MaxExcerpt) {
		t.Errorf("left out %v; want line 3: %s", left, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*parse.MaxLine {
		t.Errorf("allocated %d MiB to leave out a line of %d MiB; want at most %d", alloc>>20, n>>20, 3*parse.MaxLine>>20)
	}
	// Cut short inside the line: left out as well, and the input ends.
	got, _, left, err = readSkipping(io.MultiReader(strings.NewReader("a\n"), &longLine{n: n}))
	if err != nil || strings.Join(got, "|") != "a" || len(left) != 1 || left[0].line != 2 {
		t.Errorf("a last line of %d bytes: lines %q, left out %v, error %v; want a, line 2 left out", n, got, left, err)
	}
}

// TestLinesBinaryAtOnce: without Skip, a stream of NULs without a newline
// (/dev/zero) is refused as binary data when the first buffer of it is
// read, not after MaxLine as a line too long.
func TestLinesBinaryAtOnce(t *testing.T) {
	zeros := &parsetest.Counter{R: io.LimitReader(zeroReader{}, 1<<30)}
	l := parse.NewLines(io.MultiReader(strings.NewReader("a\n"), zeros), "in")
	for l.Next() {
	}
	err := l.Err()
	if err == nil || err.Error() != "in:2: binary data (a NUL byte); expected text" {
		t.Errorf("error %v; want in:2: binary data", err)
	}
	if zeros.N > 1<<20 {
		t.Errorf("read %d KiB of NULs before refusing them; want one buffer", zeros.N>>10)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestLinesSkipLeadingNULs: with Skip, NULs that start the input (a crash
// just after a log was rotated) are left out even where ok refuses
// (before any line of the log), up to MaxLine of them; more, or NULs
// that start a later line while ok refuses, are binary data.
func TestLinesSkipLeadingNULs(t *testing.T) {
	refuse := func() bool { return false }
	read := func(r io.Reader) (lines []string, left []skipped, read int64, err error) {
		c := &parsetest.Counter{R: r}
		l := parse.NewLines(c, "in")
		l.Skip(refuse, func(n int, text, why string) { left = append(left, skipped{n, text, why}) })
		for l.Next() {
			lines = append(lines, l.Text())
		}
		return lines, left, c.N, l.Err()
	}
	for _, n := range []int{1, 5000, 64 << 10, 3 << 20} {
		nuls := io.LimitReader(zeroReader{}, int64(n))
		lines, left, _, err := read(io.MultiReader(nuls, strings.NewReader("log 1\nlog 2\n")))
		want := fmt.Sprintf("%d bytes of binary data", n)
		if n == 1 {
			want = "1 byte of binary data"
		}
		if err != nil || len(lines) != 2 || lines[0] != "log 1" || lines[1] != "log 2" || len(left) != 1 || left[0].line != 1 || !strings.HasPrefix(left[0].why, want) || left[0].text != "log 1" {
			t.Errorf("%d NULs first: lines %q, left out %v, error %v", n, lines, left, err)
		}
	}
	// NULs alone: left out, no line; more than MaxLine: refused once
	// MaxLine is read, not read to their end.
	if lines, left, _, err := read(io.LimitReader(zeroReader{}, 8192)); err != nil || len(lines) != 0 || len(left) != 1 {
		t.Errorf("8 KiB of NULs alone: lines %q, left out %v, error %v", lines, left, err)
	}
	_, _, n, err := read(io.LimitReader(zeroReader{}, 1<<30))
	if err == nil || err.Error() != "in:1: binary data (a NUL byte); expected text" || n > parse.MaxLine+2<<20 {
		t.Errorf("a GiB of NULs: error %v after %d MiB; want binary data at line 1 after about %d MiB", err, n>>20, parse.MaxLine>>20)
	}
	// Binary data that merely starts with a NUL is not a crash's block of
	// NULs: refused at line 1, however short or long, as Lines without
	// Skip refuse it.
	binaryStart := "\x00\x01\x02\xff\xfe\x00\x7f\x80\x00\x9cPK\x03\x04"
	for _, n := range []int{1, 1000, 300000} {
		in := strings.Repeat(binaryStart, n) + "\nlog 1\n"
		if lines, left, _, err := read(strings.NewReader(in)); err == nil || !strings.HasPrefix(err.Error(), "in:1: binary data") {
			t.Errorf("%d bytes of binary data starting with a NUL: lines %q, left out %v, error %v; want refused at line 1", len(in), lines, left, err)
		}
	}
	// NULs that start a later line are ok's to allow.
	if _, _, _, err := read(io.MultiReader(strings.NewReader("log 1\n"), io.LimitReader(zeroReader{}, 100), strings.NewReader("log 2\n"))); err == nil || !strings.HasPrefix(err.Error(), "in:2: binary data") {
		t.Errorf("NULs at line 2 while ok refuses: error %v", err)
	}
}
