package parse_test

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/cgroupio"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/parse/explain"
	"github.com/pgstudy/pgstudy/parse/parsetest"
	"github.com/pgstudy/pgstudy/parse/pgbench"
	"github.com/pgstudy/pgstudy/parse/psql"
	"github.com/pgstudy/pgstudy/parse/sysbench"
	"github.com/pgstudy/pgstudy/parse/vacuum"
)

// longLine is a reader of three short lines and then one line of n bytes
// of 'x', made as it is read: the test holds none of it.
type longLine struct {
	head string
	n    int64
}

func (l *longLine) Read(p []byte) (int, error) {
	if l.head != "" {
		k := copy(p, l.head)
		l.head = l.head[k:]
		return k, nil
	}
	if l.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), l.n))
	for i := range k {
		p[i] = 'x'
	}
	l.n -= int64(k)
	return k, nil
}

// everyParser runs each parser over r.
var everyParser = map[string]func(io.Reader) error{
	"psql":        func(r io.Reader) error { _, _, err := psql.Parse(r, "in"); return err },
	"vacuum":      func(r io.Reader) error { _, _, err := vacuum.Parse(r, "in"); return err },
	"diskstats":   func(r io.Reader) error { _, _, err := diskstats.Parse(r, "in"); return err },
	"explaintext": func(r io.Reader) error { _, _, err := explain.Text(r, "in"); return err },
	"explainjson": func(r io.Reader) error { _, _, err := explain.JSON(r, "in"); return err },
	"pgbench":     func(r io.Reader) error { _, _, err := pgbench.Parse(r, "in"); return err },
	"sysbench":    func(r io.Reader) error { _, _, err := sysbench.Parse(r, "in"); return err },
	"notices":     func(r io.Reader) error { _, err := vacuum.ReadNotices(r, "in"); return err },
}

// TestLongLineRefused: a line of 1 GiB (what a file that is not an output
// holds) is refused by every parser naming its line, after reading little
// more than parse.MaxLine of it, and with memory bounded by parse.MaxLine, not by the
// line: before, two parsers read it whole and the others failed at 256 MiB
// with bufio's "token too long".
func TestLongLineRefused(t *testing.T) {
	for name, read := range everyParser {
		t.Run(name, func(t *testing.T) {
			in := &longLine{head: "a\nb\nc\n", n: 1 << 30}
			switch name {
			case "notices":
				in.head = strings.Repeat(`{"severity":"INFO","message":"m"}`+"\n", 3)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := read(in)
			runtime.ReadMemStats(&after)
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want a *SyntaxError", err, err)
			}
			if se.Line != 4 || !strings.Contains(se.Msg, "longer than 64 MiB") {
				t.Errorf("error at line %d: %q; want line 4, longer than 64 MiB", se.Line, se.Msg)
			}
			read := (1 << 30) - in.n
			if read > parse.MaxLine+(1<<20) {
				t.Errorf("read %d MiB of the line before refusing it; want about %d", read>>20, parse.MaxLine>>20)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*parse.MaxLine {
				t.Errorf("allocated %d MiB to refuse a line; want at most %d", alloc>>20, 3*parse.MaxLine>>20)
			}
			t.Logf("%s: refused after %d MiB in %v", name, read>>20, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestLongLineLeftOutOfLog: in a server log, a line of 1 GiB (a
// statement logged whole) is left out with a warning that names it, in
// memory bounded by parse.MaxLine, and the entries after it are read.
func TestLongLineLeftOutOfLog(t *testing.T) {
	const entry = "2026-12-01 10:00:01 UTC [8] LOG:  automatic vacuum of table \"d.public.t\": index scans: 0\n" +
		"\tpages: 0 removed, 1 remain, 1 scanned (100.00% of total)\n" +
		"\ttuples: 0 removed, 1 remain, 0 are dead but not yet removable\n" +
		"\tsystem usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s\n"
	in := &longLine{head: "2026-12-01 10:00:00 UTC [7] LOG:  checkpoint starting: time\n2026-12-01 10:00:00 UTC [7] LOG:  statement: ", n: 1 << 30}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	recs, warns, err := parsetest.Drain(func(warn func(parse.Warning)) iter.Seq2[vacuum.Record, error] {
		return vacuum.AutovacuumSeq(io.MultiReader(in, strings.NewReader("\n"+entry)), "in", warn)
	})
	runtime.ReadMemStats(&after)
	if err != nil || len(recs) != 1 || recs[0].Table != "t" || recs[0].Line != 3 {
		t.Fatalf("%d records (%+v), %v; want the entry at line 3 read", len(recs), recs, err)
	}
	if len(warns) != 1 || warns[0].Line != 2 || !strings.Contains(warns[0].Msg, "longer than 64 MiB: left out") ||
		!strings.HasPrefix(warns[0].Text, "2026-12-01 10:00:00 UTC [7] LOG:  statement: xxx") {
		t.Errorf("warnings %v; want line 2 left out, quoting its start", warns)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*parse.MaxLine {
		t.Errorf("allocated %d MiB to leave out a line; want at most %d", alloc>>20, 3*parse.MaxLine>>20)
	}
}

// TestLongLineAccepted: a line just under parse.MaxLine is read, not refused.
func TestLongLineAccepted(t *testing.T) {
	l := parse.NewLines(&longLine{head: "a\n", n: parse.MaxLine}, "in")
	var got []int
	for l.Next() {
		got = append(got, len(l.Bytes()))
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != parse.MaxLine {
		t.Errorf("lines of %v bytes, want [1 %d]", got, parse.MaxLine)
	}
	text, err := parse.ReadText(&longLine{head: "a\n", n: parse.MaxLine}, "in")
	if err != nil || len(text) != parse.MaxLine+2 {
		t.Errorf("readText: %d bytes, %v; want %d", len(text), err, parse.MaxLine+2)
	}
}

// TestLinesEdges: line numbers, "\r\n", a last line without "\n", a NUL,
// and lines that span the reader's buffer.
func TestLinesEdges(t *testing.T) {
	long := strings.Repeat("y", 200<<10)
	cases := []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"\n", []string{""}, ""},
		{"a\r\nb", []string{"a", "b"}, ""},
		{"\xef\xbb\xbfa\n\xef\xbb\xbfb\n", []string{"a", "\xef\xbb\xbfb"}, ""}, // a byte order mark, first only
		{"a\n" + long + "\nc\n", []string{"a", long, "c"}, ""},
		{"a\nb\x00c\n", []string{"a"}, "in:2: binary data"},
		{"\x1f\x8b\x08\x00\x00\x00", nil, "in:1: gzip-compressed data; expected text: decompress it first"},
		{"\x28\xb5\x2f\xfd\x00", nil, "in:1: zstd-compressed data; expected text: decompress it first"},
		{"\xff\xfeS\x00E\x00\n\x00", nil, "in:1: UTF-16 text (a NUL every other byte); expected UTF-8"},
		{"S\x00E\x00L\x00E\x00C\x00T\x00\n\x00", nil, "in:1: UTF-16 text"},
		{"\x00S\x00E\x00L\x00E\x00C\x00T\x00\n", nil, "in:1: UTF-16 text"},
		{"a\nS\x00E\x00L\x00E\x00C\x00T\x00\n", []string{"a"}, "in:2: binary data (a NUL byte)"},
	}
	for _, c := range cases {
		// Through a reader without Len, so the buffer is the full size.
		l := parse.NewLines(io.MultiReader(strings.NewReader(c.in)), "in")
		var got []string
		for l.Next() {
			got = append(got, l.Text())
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%.20q: %d lines, want %d", c.in, len(got), len(c.want))
		}
		err := l.Err()
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%.20q: error %v, want %q", c.in, err, c.err)
		}
	}
}

// TestLinesOffset: Offset counts the bytes up to the end of each line,
// its "\r\n" or "\n" included, across the reader's buffer.
func TestLinesOffset(t *testing.T) {
	long := strings.Repeat("y", 100<<10)
	l := parse.NewLines(io.MultiReader(strings.NewReader("a\r\nbb\n"+long+"\nc")), "in")
	var got []int64
	for l.Next() {
		got = append(got, l.Offset())
	}
	if want := []int64{3, 6, 7 + 100<<10, 8 + 100<<10}; l.Err() != nil || !slices.Equal(got, want) {
		t.Errorf("offsets %v, %v; want %v", got, l.Err(), want)
	}
}

// heldParsers are the parsers that hold every record of their input.
var heldParsers = map[string]func(io.Reader) error{
	"pgbench":  func(r io.Reader) error { _, _, err := pgbench.Parse(r, "in"); return err },
	"sysbench": func(r io.Reader) error { _, _, err := sysbench.Parse(r, "in"); return err },
}

// TestHeldTooLong: the parsers that hold every record refuse input longer
// than parse.MaxText, naming the source and the limit: at the line that
// passes it when the size is not known (a pipe, here of 1 MiB lines of
// spaces, which hold nothing), and before reading anything when it is (a
// sparse file).
func TestHeldTooLong(t *testing.T) {
	sparse := filepath.Join(t.TempDir(), "big.txt")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(parse.MaxText + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, read := range heldParsers {
		t.Run(name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				line := append(bytes.Repeat([]byte{' '}, 1<<20-1), '\n')
				for range parse.MaxText>>20 + 2 {
					if _, err := pw.Write(line); err != nil {
						return
					}
				}
				pw.Close()
			}()
			err := read(pr)
			pr.Close()
			want := "in:257: input longer than 256 MiB, the limit of a " + name + " output, whose records are held whole; expected one run's output"
			if err == nil || err.Error() != want {
				t.Errorf("a pipe of 258 MiB: %v; want %s", err, want)
			}
			f, err := os.Open(sparse)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = read(f)
			if want := "in: input longer than 256 MiB"; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("a file of 256 MiB and a byte: %v; want %s...", err, want)
			}
			if off, _ := f.Seek(0, io.SeekCurrent); off != 0 {
				t.Errorf("read %d bytes of a file it refuses on its size", off)
			}
		})
	}
}

// endless is a reader of the same line for ever (yes(1) piped in).
type endless struct {
	line []byte
	off  int
	n    int64
}

func (e *endless) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		c := copy(p[k:], e.line[e.off:])
		k += c
		e.off = (e.off + c) % len(e.line)
	}
	e.n += int64(k)
	return k, nil
}

// TestStepSeqJudged: a stream that never ends, none of whose lines is of
// the kind named, is refused after parse.Judged lines (psql's too, which
// judges them itself), naming its first,
// with those lines' warnings before the error: it was read for ever (a
// file of another kind, to its end). A real output after fewer lines not
// understood is read.
func TestStepSeqJudged(t *testing.T) {
	seqs := map[string]func(io.Reader, func(parse.Warning)) func(func(error) bool){
		"diskstats": func(r io.Reader, w func(parse.Warning)) func(func(error) bool) {
			return errsOf(diskstats.ParseSeq(r, "in", w))
		},
		"pgbench": func(r io.Reader, w func(parse.Warning)) func(func(error) bool) {
			return errsOf(pgbench.ParseSeq(r, "in", w))
		},
		"sysbench": func(r io.Reader, w func(parse.Warning)) func(func(error) bool) {
			return errsOf(sysbench.ParseSeq(r, "in", w))
		},
		"psql": func(r io.Reader, w func(parse.Warning)) func(func(error) bool) {
			return errsOf(psql.ParseSeq(r, "in", w))
		},
	}
	for name, seq := range seqs {
		t.Run(name, func(t *testing.T) {
			in := &endless{line: []byte("GET /index.html HTTP/1.1 200 5120\n")}
			warns := 0
			var errs []error
			seq(in, func(parse.Warning) { warns++ })(func(err error) bool {
				if err != nil {
					errs = append(errs, err)
				}
				return true
			})
			want := "in:1: not "
			if name == "psql" {
				want = "in:1: no psql output in its first 1000 lines"
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) || !strings.Contains(errs[0].Error(), "first 1000 lines") {
				t.Fatalf("errors %v; want one, %s... (none of its first 1000 lines ...)", errs, want)
			}
			if warns != parse.Judged {
				t.Errorf("%d warnings before the error; want %d", warns, parse.Judged)
			}
			if in.n > 1<<20 {
				t.Errorf("read %d KiB before refusing; want about %d lines", in.n>>10, parse.Judged)
			}
		})
	}
	// 999 foreign lines, then a real diskstats snapshot: read, with 999
	// warnings.
	good := "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
	in := strings.Repeat("noise\n", parse.Judged-1) + good
	warns, n := 0, 0
	for _, err := range diskstats.ParseSeq(strings.NewReader(in), "in", func(parse.Warning) { warns++ }) {
		if err != nil {
			t.Fatalf("after %d lines not understood: %v", parse.Judged-1, err)
		}
		n++
	}
	if n != 1 || warns != parse.Judged-1 {
		t.Errorf("%d records, %d warnings; want 1 and %d", n, warns, parse.Judged-1)
	}
}

// errsOf is a sequence's errors alone.
func errsOf[T any](seq func(func(T, error) bool)) func(func(error) bool) {
	return func(yield func(error) bool) {
		for _, err := range seq {
			if !yield(err) {
				return
			}
		}
	}
}

// TestCgroupJudged: the cgroup parsers, which read a file whole, refuse
// an endless stream of lines of another kind after parse.Judged of them,
// as the sequences do (they read up to 100,000 lines first).
func TestCgroupJudged(t *testing.T) {
	for name, parse1 := range map[string]func(io.Reader) error{
		"io.stat": func(r io.Reader) error { _, _, err := cgroupio.ParseIOStat(r, "in"); return err },
		"blkio":   func(r io.Reader) error { _, _, err := cgroupio.ParseRWStat(r, "in"); return err },
	} {
		in := &endless{line: []byte("y\n")}
		err := parse1(in)
		if err == nil || !strings.HasPrefix(err.Error(), "in:1: not a cgroup") || !strings.Contains(err.Error(), "none of its first 1000 lines") {
			t.Errorf("%s: %v; want the refusal after 1000 lines", name, err)
		}
		if in.n > 64<<10 {
			t.Errorf("%s: read %d KiB before refusing", name, in.n>>10)
		}
	}
}

// TestRecordsBeforeBadLine: a streamed parser hands out the records read
// before a line it must refuse (one longer than parse.MaxLine), then the
// error naming that line: a psql statement complete before it, which
// waited for the next to complete it, was lost with the input (found by
// an outside tester).
func TestRecordsBeforeBadLine(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		count         func(io.Reader) (int, error)
	}{
		{"psql", "psql/testdata/pg18-session.txt", func(r io.Reader) (int, error) { return countSeq(psql.ParseSeq(r, "in", nil)) }},
		{"vacuum", "vacuum/testdata/verbose/pg17-vacuum-verbose.psql.txt", func(r io.Reader) (int, error) { return countSeq(vacuum.ParseSeq(r, "in", nil)) }},
		{"vacuum-notices", "vacuum/testdata/verbose/pg17-vacuum-verbose.notices.jsonl", func(r io.Reader) (int, error) { return countSeq(vacuum.NoticesSeq(r, "in", nil)) }},
		{"diskstats", "diskstats/testdata/linux-6.18.txt", func(r io.Reader) (int, error) { return countSeq(diskstats.ParseSeq(r, "in", nil)) }},
		{"pgbench", "pgbench/testdata/tpcb.stderr.txt", func(r io.Reader) (int, error) { return countSeq(pgbench.ParseSeq(r, "in", nil)) }},
		{"sysbench", "sysbench/testdata/oltp-read-write-t4.txt", func(r io.Reader) (int, error) { return countSeq(sysbench.ParseSeq(r, "in", nil)) }},
		{"cgroup io.stat", "cgroupio/testdata/v2/kernel-doc-4field.txt", func(r io.Reader) (int, error) { return countSeq(cgroupio.IOStatSeq(r, "in", nil)) }},
		{"cgroup blkio", "cgroupio/testdata/v1/dd-io_service_bytes.txt", func(r io.Reader) (int, error) { return countSeq(cgroupio.RWStatSeq(r, "in", nil)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixture, err := os.ReadFile(tc.fixture)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := tc.count(bytes.NewReader(fixture))
			if err != nil || whole == 0 {
				t.Fatalf("the fixture alone: %d records, %v", whole, err)
			}
			lines := bytes.Count(fixture, []byte("\n"))
			got, err := tc.count(&longLine{head: string(fixture), n: parse.MaxLine + 1})
			var se *parse.SyntaxError
			if !errors.As(err, &se) || se.Line != lines+1 {
				t.Fatalf("error %v; want one at line %d, the long line", err, lines+1)
			}
			if got != whole {
				t.Errorf("%d records before the long line; want the fixture's %d", got, whole)
			}
		})
	}
}

// countSeq counts the records of seq before its error, if any.
func countSeq[T any](seq iter.Seq2[T, error]) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
