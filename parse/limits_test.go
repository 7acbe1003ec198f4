package parse

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
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
	"psql":        func(r io.Reader) error { _, _, err := Psql(r, "in"); return err },
	"vacuum":      func(r io.Reader) error { _, _, err := Vacuum(r, "in"); return err },
	"autovacuum":  func(r io.Reader) error { _, _, err := AutovacuumLog(r, "in"); return err },
	"diskstats":   func(r io.Reader) error { _, _, err := Diskstats(r, "in"); return err },
	"explaintext": func(r io.Reader) error { _, _, err := ExplainText(r, "in"); return err },
	"explainjson": func(r io.Reader) error { _, _, err := ExplainJSON(r, "in"); return err },
	"pgbench":     func(r io.Reader) error { _, _, err := Pgbench(r, "in"); return err },
	"sysbench":    func(r io.Reader) error { _, _, err := Sysbench(r, "in"); return err },
	"notices":     func(r io.Reader) error { _, err := Notices(r, "in"); return err },
}

// TestLongLineRefused: a line of 1 GiB (what a file that is not an output
// holds) is refused by every parser naming its line, after reading little
// more than MaxLine of it, and with memory bounded by MaxLine, not by the
// line: before, two parsers read it whole and the others failed at 256 MiB
// with bufio's "token too long".
func TestLongLineRefused(t *testing.T) {
	for name, parse := range everyParser {
		t.Run(name, func(t *testing.T) {
			in := &longLine{head: "a\nb\nc\n", n: 1 << 30}
			if name == "notices" {
				in.head = strings.Repeat(`{"severity":"INFO","message":"m"}`+"\n", 3)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := parse(in)
			runtime.ReadMemStats(&after)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want a *SyntaxError", err, err)
			}
			if se.Line != 4 || !strings.Contains(se.Msg, "longer than 64 MiB") {
				t.Errorf("error at line %d: %q; want line 4, longer than 64 MiB", se.Line, se.Msg)
			}
			read := (1 << 30) - in.n
			if read > MaxLine+(1<<20) {
				t.Errorf("read %d MiB of the line before refusing it; want about %d", read>>20, MaxLine>>20)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*MaxLine {
				t.Errorf("allocated %d MiB to refuse a line; want at most %d", alloc>>20, 3*MaxLine>>20)
			}
			t.Logf("%s: refused after %d MiB in %v", name, read>>20, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestLongLineAccepted: a line just under MaxLine is read, not refused.
func TestLongLineAccepted(t *testing.T) {
	l := newLines(&longLine{head: "a\n", n: MaxLine}, "in")
	var got []int
	for l.next() {
		got = append(got, len(l.bytes()))
	}
	if err := l.error(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != 1 || got[1] != MaxLine {
		t.Errorf("lines of %v bytes, want [1 %d]", got, MaxLine)
	}
	text, err := readText(&longLine{head: "a\n", n: MaxLine}, "in")
	if err != nil || len(text) != MaxLine+2 {
		t.Errorf("readText: %d bytes, %v; want %d", len(text), err, MaxLine+2)
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
		{"a\n" + long + "\nc\n", []string{"a", long, "c"}, ""},
		{"a\nb\x00c\n", []string{"a"}, "in:2: binary data"},
	}
	for _, c := range cases {
		// Through a reader without Len, so the buffer is the full size.
		l := newLines(io.MultiReader(strings.NewReader(c.in)), "in")
		var got []string
		for l.next() {
			got = append(got, l.text())
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("%.20q: %d lines, want %d", c.in, len(got), len(c.want))
		}
		err := l.error()
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%.20q: error %v, want %q", c.in, err, c.err)
		}
	}
}
