package main

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// TestUTF8Check: utf8Check finds the line of the first bytes that are not
// UTF-8, wherever the reads cut the input (inside a character too), and
// nothing in text that is UTF-8, however it is read.
func TestUTF8Check(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "é", "€", "𝄞", "\n", " ", "xyz", "ü\n"}
	for round := range 300 {
		var b strings.Builder
		for b.Len() < 2000 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		want := 0
		switch round % 3 {
		case 1: // a Latin-1 byte somewhere
			at := rng.IntN(len(text))
			for at < len(text) && text[at]&0xC0 == 0x80 {
				at++ // not inside a character: before one
			}
			text = text[:at] + "\xe9" + text[at:]
			want = strings.Count(text[:at], "\n") + 1
		case 2: // the input ends inside a character
			text += "\xe2\x82"
			want = strings.Count(text, "\n") + 1
		}
		for name, r := range map[string]io.Reader{
			"whole":   strings.NewReader(text),
			"onebyte": iotest.OneByteReader(strings.NewReader(text)),
			"half":    iotest.HalfReader(strings.NewReader(text)),
		} {
			c := &utf8Check{r: r}
			if _, err := io.Copy(io.Discard, c); err != nil {
				t.Fatal(err)
			}
			if c.bad != want {
				t.Fatalf("round %d %s: bad line %d, want %d", round, name, c.bad, want)
			}
			// The warning shows the bytes, within their line.
			if round%3 == 1 && (!strings.Contains(c.text, "\xe9") || strings.Contains(c.text, "\n") || len(c.text) > 81) {
				t.Fatalf("round %d %s: text %q, want the byte \\xe9 and at most 40 bytes of its line each side", round, name, c.text)
			}
		}
	}
}

// TestParseNotUTF8: a psql output in Latin-1 gives its records, the value
// written with U+FFFD, and a warning naming the line, in the document and
// on standard error; exit 0.
func TestParseNotUTF8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latin1.txt")
	if err := os.WriteFile(path, []byte("SELECT name FROM t;\n name \n------\n caf\xe9\n(1 row)\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ":4: bytes that are not UTF-8, the first on this line"
	text := `: " caf\xe9"`
	for _, format := range []string{"json", "jsonl"} {
		code, stdout, stderr := runInProcess("parse", "psql", "--format", format, path)
		if code != 0 || !strings.Contains(stdout, `"caf\ufffd"`) || !strings.Contains(stderr, "warning: "+want) || !strings.Contains(stderr, text) ||
			format == "json" && !strings.Contains(stdout, `"line": 4`) {
			t.Errorf("%s: exit %d, %q, %q; want the record, and %s...", format, code, stdout, stderr, want)
		}
	}
}

// TestParseRefusedNotUTF8: a file refused before any record (gzip given
// to a kind that reads text, UTF-16) gets its refusal alone, not first a
// warning of bytes that are not UTF-8 whose values were never written.
func TestParseRefusedNotUTF8(t *testing.T) {
	dir := t.TempDir()
	for name, b := range map[string]string{
		"psql.gz":   "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xfe junk\n",
		"utf16.txt": "\xff\xfes\x00e\x00l\x00e\x00c\x00t\x00\n\x00",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"psql", "vacuum", "autovacuum-log"} {
			code, _, stderr := runInProcess("parse", kind, "--format", "jsonl", path)
			if code != exitError || strings.Contains(stderr, "not UTF-8") || !strings.Contains(stderr, "pgstudy: "+path+":1: ") {
				t.Errorf("%s as %s: exit %d, %q; want its refusal at line 1 alone", name, kind, code, stderr)
			}
		}
	}
}

// TestParseDamagedBzip2: a bzip2 log with a byte flipped, whose damaged
// block's bytes reach the parser before bzip2 checks the block, is
// reported as damaged, the file named, not as a file of another kind.
func TestParseDamagedBzip2(t *testing.T) {
	b, err := os.ReadFile("../../parse/vacuum/testdata/logformats/pg17-logformats.log.bz2")
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	path := filepath.Join(t.TempDir(), "postgresql.log.bz2")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runInProcess("parse", "autovacuum-log", "--format", "jsonl", path)
	want := "pgstudy: " + path + ": the bzip2-compressed stream is damaged"
	if code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %q; want %s...", code, stderr, want)
	}
}
