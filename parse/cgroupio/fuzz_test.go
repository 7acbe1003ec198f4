package cgroupio

import (
	"testing"

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
