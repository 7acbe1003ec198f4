package cgroupio

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/batch"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func FuzzParseRWStat(f *testing.F) {
	golden.Fuzz(f, "v1", []string{"", "Total 0\n", "8:0 Read 1\n8:0 Write 2\n8:0 Total 3\nTotal 3\n", "8:0 Read 18446744073709551616\n", "\x00"},
		ParseRWStat, func(t *testing.T, s RWStat) {
			for k, c := range V1Counters(s, s) {
				if k == "" || (c.ReadBytes == nil) != (c.Reads == nil) {
					t.Fatalf("counters %q %+v", k, c)
				}
			}
		}, nil)
}

func FuzzParseIOStat(f *testing.F) {
	golden.Fuzz(f, "v2", []string{"", "8:0 rbytes=1\n", "8:0 a=b c=d\n", "4294967296:0 rbytes=1\n", "8:0 rbytes=1 rbytes=1\n"},
		ParseIOStat, func(t *testing.T, s IOStat) {
			if len(s.Counters()) > len(s.Devices) {
				t.Fatalf("more counters than devices: %+v", s)
			}
			for _, d := range s.Devices {
				if d.RBytes == nil && d.WBytes == nil && d.RIOs == nil && d.WIOs == nil {
					t.Fatalf("a line without counters accepted: %+v", d)
				}
			}
		}, nil)
}

// FuzzSeq: the sequences yield what the parsers return, whatever the
// input.
func FuzzSeq(f *testing.F) {
	for _, s := range seqInputs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		st, w, err := seqIOStat(in)
		pst, pw, perr := ParseIOStat(strings.NewReader(in), "in")
		if d := sameResult(st, pst, w, pw, err, perr); d != "" {
			t.Fatalf("IOStatSeq(%q): %s", in, d)
		}
		rst, w, err := seqRWStat(in)
		prst, pw, perr := ParseRWStat(strings.NewReader(in), "in")
		if d := sameResult(rst, prst, w, pw, err, perr); d != "" {
			t.Fatalf("RWStatSeq(%q): %s", in, d)
		}
	})
}

// FuzzFastPaths: a line the fast paths read, the general paths read the
// same, so that the kernel's lines and any other are read by one set of
// rules.
func FuzzFastPaths(f *testing.F) {
	for _, s := range []string{
		"8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6", "8:0\trios=1  wios=2 ", "8:0 rbytes=1 rbytes=2",
		"4294967295:4294967295 dios=1 rios=0", "4294967296:0 rbytes=1", "8:0 rbytes=12345678901234567890",
		"254:0 Read 2701274911744", "8:0  Discard\t0", "8:0 Read 1 2", "08:016 Total 9999999999999999999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		b := bytes.TrimSpace([]byte(line))
		if len(b) == 0 || bytes.IndexByte(b, '\n') >= 0 { // not a line parse.Lines hands out
			return
		}
		var c batch.Of[uint64]
		if got, ok := fastIOStat(b, &c); ok {
			if want, msg := ioStatLine(b, &c); msg != "" || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: fast %+v, general %+v %q", b, got, want, msg)
			}
		}
		if maj, min, op, n, ok := fastRW(b); ok {
			ln, msg := anyRW(b)
			if msg != "" || ln.group || ln.maj != maj || ln.min != min || ln.op != op || string(ln.name) != rwOpNames[op] || ln.count != n {
				t.Fatalf("%q: fast %d:%d %d %d, general %+v %q", b, maj, min, op, n, ln, msg)
			}
		}
	})
}
