package diskstats

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func FuzzParse(f *testing.F) {
	golden.Fuzz(f, "", []string{
		"",
		"\n",
		"cpu  5014 0 3141 951234 173 0 57 0 0 0\n",
		"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n   8 1 sda1 1 2 3\n",
		"   8 0 sda 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 0 0\r\n",
		"4294967295 4294967295 x 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"\x00",
	}, Parse, checkRoundTrip, func(t *testing.T, snap Snapshot) {
		if snap.Devices != nil {
			t.Fatalf("devices with an error: %+v", snap)
		}
	})
}

// checkRoundTrip checks an accepted snapshot, that each device writes
// itself as encoding/json writes it, and that printed back the kernel's
// way it parses to itself.
func checkRoundTrip(t *testing.T, snap Snapshot) {
	t.Helper()
	checkSnapshot(t, snap)
	for _, d := range snap.Devices {
		checkAppendJSON(t, d)
	}
	again, warns, err := Parse(strings.NewReader(format(snap)), "fuzz.txt")
	if err != nil || len(warns) > 0 {
		t.Fatalf("round trip: %v %v", err, warns)
	}
	if !reflect.DeepEqual(again, snap) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", again, snap)
	}
}

// format prints a snapshot as the kernel prints /proc/diskstats.
func format(s Snapshot) string {
	var b strings.Builder
	for _, d := range s.Devices {
		fmt.Fprintf(&b, "%4d %7d %s %d %d %d %d %d %d %d %d %d %d %d", d.Major, d.Minor, d.Name,
			d.ReadsCompleted, d.ReadsMerged, d.ReadSectors, d.ReadTimeMs,
			d.WritesCompleted, d.WritesMerged, d.WriteSectors, d.WriteTimeMs,
			d.InFlight, d.IOTimeMs, d.WeightedIOTimeMs)
		if x := d.Discards; x.Valid {
			fmt.Fprintf(&b, " %d %d %d %d", x.V.Completed, x.V.Merged, x.V.Sectors, x.V.TimeMs)
		}
		if x := d.Flushes; x.Valid {
			fmt.Fprintf(&b, " %d %d", x.V.Completed, x.V.TimeMs)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// FuzzCounters checks that the one-pass reading of a line's counters
// gives what the field-by-field one does, for any line it takes.
func FuzzCounters(f *testing.F) {
	for _, s := range []string{
		"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11",
		" 254 0 vda 777721 259554 386786970 2374319 541393 209172 49467704 271452 1 333216 2723831 154743 82 29934064 35740 143388 42318",
		"8 0 sda 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
		"8 0 sda 99999999999999999999 1",
		"8 0 sda 1\t2  3 x 4",
		"8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19",
		"8 0 sda 1 2 -3",
		"8 0 sda",
		"8 0 sda ",
		"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
		"7 0 loop0 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7",
		"7 0 loop0 0 0 0 0  0 0 0 0\t0 0 0 0 0 : 0 0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var fast, slow deviceLine
		fast.scan([]byte(s))
		if i, ok := slow.head([]byte(s)); ok {
			slow.countersSlow([]byte(s), i)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\none pass %+v\n by field %+v", s, fast, slow)
		}
	})
}
