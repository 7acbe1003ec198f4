package parse_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pgstudy/pgstudy/parse"
)

// TestLinesAsSplit: Lines hands out the lines strings.Split finds, "\r"
// dropped, whatever the reader's pieces (a byte at a time, half of what
// is asked) and wherever a line ends against the 64 KiB buffer; a NUL
// stops it with an error on its own line, after every line before it.
// ReadText returns the same text, or the same error.
func TestLinesAsSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var in strings.Builder
		for in.Len() < 200<<10 {
			switch n := rng.IntN(100); {
			case n < 2:
				in.WriteString(strings.Repeat("w", 64<<10-rng.IntN(3))) // about the buffer's size
			case n < 5:
				in.WriteString("\r")
			default:
				in.WriteString(strings.Repeat("a", rng.IntN(120)))
			}
			in.WriteString("\n")
		}
		text := in.String()
		if round%3 == 0 {
			text = strings.TrimSuffix(text, "\n") // a last line without "\n"
		}
		nul := -1
		if round%4 == 1 {
			nul = rng.IntN(len(text))
			text = text[:nul] + "\x00" + text[nul+1:]
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			want = append(want, strings.TrimSuffix(l, "\r"))
		}
		wantErr := ""
		if nul >= 0 {
			k := strings.Count(text[:nul], "\n")
			want, wantErr = want[:k], fmt.Sprintf("in:%d: binary data", k+1)
		}
		for name, r := range map[string]io.Reader{
			"whole":   bytes.NewReader([]byte(text)),
			"onebyte": iotest.OneByteReader(strings.NewReader(text)),
			"half":    iotest.HalfReader(strings.NewReader(text)),
		} {
			if name == "onebyte" && round%10 != 0 {
				continue // slow
			}
			l := parse.NewLines(r, "in")
			var got []string
			for l.Next() {
				got = append(got, l.Text())
			}
			err := l.Err()
			if (err == nil) != (wantErr == "") || err != nil && !strings.HasPrefix(err.Error(), wantErr) {
				t.Fatalf("round %d %s: error %v, want %q", round, name, err, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("round %d %s: %d lines, want %d", round, name, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("round %d %s: line %d is %.20q (%d bytes), want %.20q (%d bytes)", round, name, i+1, got[i], len(got[i]), want[i], len(want[i]))
				}
			}
			if err == nil && l.Line() != len(want) {
				t.Fatalf("round %d %s: Line() %d, want %d", round, name, l.Line(), len(want))
			}
			if name != "half" {
				continue
			}
			// ReadText refuses the same input, on the same line, whether
			// read or written out whole by the reader (WriteTo).
			for kind, r := range map[string]io.Reader{
				"read":   iotest.HalfReader(strings.NewReader(text)),
				"bytes":  bytes.NewReader([]byte(text)),
				"string": strings.NewReader(text),
			} {
				all, err := parse.ReadText(r, "in")
				if (err == nil) != (wantErr == "") || err != nil && !strings.HasPrefix(err.Error(), wantErr) || err == nil && all != text {
					t.Fatalf("round %d ReadText (%s): %d bytes, error %v; want %d, %q", round, kind, len(all), err, len(text), wantErr)
				}
			}
		}
	}
}

// TestReadTextString: a string is read without a read buffer or a copy,
// whatever its length, and bytes in memory without a read buffer.
func TestReadTextString(t *testing.T) {
	text := strings.Repeat("Seq Scan on t  (cost=0.00..1.00 rows=1 width=4)\n", 20000)
	if n := testing.AllocsPerRun(10, func() {
		if s, err := parse.ReadText(strings.NewReader(text), "in"); err != nil || s != text {
			t.Fatal(err)
		}
	}); n > 2 {
		t.Errorf("a string read with %v allocations, want at most 2", n)
	}
	in := []byte(text)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if s, err := parse.ReadText(bytes.NewReader(in), "in"); err != nil || s != text {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(text))+16<<10 { // a large object is rounded up to pages
		t.Errorf("%d bytes read with %d bytes allocated, want one copy", len(text), alloc)
	}
}

// errReader fails after its text: with its last bytes when together is
// set (as a gzip reader can), else on the call after them.
type errReader struct {
	s        string
	together bool
}

func (r *errReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.ErrUnexpectedEOF
	}
	k := copy(p, r.s)
	r.s = r.s[k:]
	if r.together && r.s == "" {
		return k, io.ErrUnexpectedEOF
	}
	return k, nil
}

// TestLinesReadError: a read error after some lines is an error naming the
// line being read, after the whole lines before it, whether the reader
// says it with the last bytes or after them.
func TestLinesReadError(t *testing.T) {
	for _, together := range []bool{false, true} {
		l := parse.NewLines(&errReader{"a\nb\npart", together}, "in")
		var got []string
		for l.Next() {
			got = append(got, l.Text())
		}
		if strings.Join(got, "|") != "a|b" {
			t.Errorf("together %v: lines %q, want a, b", together, got)
		}
		if err := l.Err(); err == nil || err.Error() != "in:3: read: unexpected EOF" {
			t.Errorf("together %v: error %v, want in:3: read: unexpected EOF", together, err)
		}
	}
}

// FuzzFields: Fields splits as bytes.Fields does, keeping as many fields
// as it has room for and counting the others; Head finds the first ones.
func FuzzFields(f *testing.F) {
	for _, s := range []string{"lat 1.271 ms stddev 1.711", "  a\tb\r\n c  ", "", "x\u00a0y z", "\x85a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := bytes.Fields([]byte(s))
		out := make([][]byte, 3)
		n := parse.Fields([]byte(s), out)
		if n != len(want) {
			t.Fatalf("%q: %d fields, want %d", s, n, len(want))
		}
		for i := range min(n, len(out)) {
			if !bytes.Equal(out[i], want[i]) {
				t.Fatalf("%q: field %d is %q, want %q", s, i, out[i], want[i])
			}
		}
		head := make([][]byte, 2)
		if k := parse.Head([]byte(s), head); k != min(n, 2) || k > 0 && !bytes.Equal(head[k-1], want[k-1]) {
			t.Fatalf("%q: Head %d fields %q, want %q", s, k, head[:k], want[:min(n, 2)])
		}
	})
}

// sized is a reader that says it holds n bytes, so that NewLines reads it
// through a buffer of n+1.
type sized struct {
	io.Reader
	n int
}

func (r sized) Len() int { return r.n }

// FuzzKeptLines: NewKeptLines gives the lines NewLines gives, and each
// line's bytes are still what they were once all the lines are read,
// through buffers of any size, the input read a byte at a time or whole.
func FuzzKeptLines(f *testing.F) {
	f.Add("a\nbb\r\n\nccc\n", 3, false)
	f.Add(strings.Repeat("line of text\n", 50)+"last", 7, true)
	f.Add("x\ny\x00\nz\n", 2, false)
	f.Fuzz(func(t *testing.T, s string, n int, oneByte bool) {
		n = 1 + max(n, -n)%64
		var want []string
		l := parse.NewLines(strings.NewReader(s), "in")
		for l.Next() {
			want = append(want, l.Text())
		}
		wantErr := l.Err()
		var r io.Reader = strings.NewReader(s)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		var kept [][]byte
		k := parse.NewKeptLines(sized{r, n}, "in")
		for k.Next() {
			kept = append(kept, k.Bytes())
		}
		if err := k.Err(); fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%q: error %v, want %v", s, err, wantErr)
		}
		if len(kept) != len(want) {
			t.Fatalf("%q: %d lines, want %d", s, len(kept), len(want))
		}
		for i := range kept {
			if string(kept[i]) != want[i] {
				t.Fatalf("%q, buffer of %d: line %d is %q once read on, want %q", s, n+1, i+1, kept[i], want[i])
			}
		}
	})
}

// TestLinesCROnly: an input whose lines end with "\r" alone reads as one
// line: refused at line 1, naming the line ends, rather than parsed as a
// line that holds nothing the parser knows. "\r\n" ends, a lone "\r"
// inside a line and one ending the input are read.
func TestLinesCROnly(t *testing.T) {
	for _, tc := range []struct {
		in  string
		err bool
	}{
		{"a\rb\rc\r", true},
		{"a\rb\rc", true},
		{"a\r\nb\r\n", false},
		{"select 1\r+ 2\nb\n", false},
		{"a\r", false},
	} {
		l := parse.NewLines(strings.NewReader(tc.in), "in")
		for l.Next() {
		}
		err := l.Err()
		if got := err != nil && strings.HasPrefix(err.Error(), "in:1: lines that end with a carriage return alone"); got != tc.err || !tc.err && err != nil {
			t.Errorf("%q: error %v; want one of carriage returns: %v", tc.in, err, tc.err)
		}
	}
}

// TestLinesBOMAndKept: a UTF-8 byte order mark before the first line is
// dropped, whether that line fits the buffer or is gathered past it; the
// lines of NewKeptLines stay as read after the reading, where the
// buffer's lines were handed out as parts of it and a long line as its
// own.
func TestLinesBOMAndKept(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	for _, first := range []string{"short", long} {
		var in strings.Builder
		in.WriteString("\xef\xbb\xbf" + first + "\n")
		var want []string
		want = append(want, first)
		for i := range 5000 {
			l := strings.Repeat(string(rune('a'+i%26)), i%150)
			if i%1000 == 999 {
				l = long[:70<<10+i]
			}
			in.WriteString(l + "\r\n")
			want = append(want, l)
		}
		l := parse.NewKeptLines(iotest.HalfReader(strings.NewReader(in.String())), "in")
		var got [][]byte
		for l.Next() {
			got = append(got, l.Bytes())
		}
		if l.Err() != nil || len(got) != len(want) {
			t.Fatalf("first line of %d bytes: %d lines, %v; want %d", len(first), len(got), l.Err(), len(want))
		}
		for i := range got {
			if string(got[i]) != want[i] {
				t.Fatalf("first line of %d bytes: line %d is %.20q (%d bytes), want %.20q (%d bytes)", len(first), i+1, got[i], len(got[i]), want[i], len(want[i]))
			}
		}
	}
}
