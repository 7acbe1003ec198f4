package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func FuzzDiskstats(f *testing.F) {
	for _, file := range fixtures(f, "diskstats", "*.txt") {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"\n",
		"cpu  5014 0 3141 951234 173 0 57 0 0 0\n",
		"   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n   8 1 sda1 1 2 3\n",
		"   8 0 sda 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 0 0\r\n",
		"4294967295 4294967295 x 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.txt"
		snap, warns, err := Diskstats(bytes.NewReader(in), source)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v, want *SyntaxError", err, err)
			}
			if se.Source != source || se.Line < 0 || !strings.HasPrefix(err.Error(), source+":") {
				t.Fatalf("bad error %#v", se)
			}
			if snap.Devices != nil {
				t.Fatalf("devices with an error: %+v", snap)
			}
			return
		}
		checkDiskstats(t, snap)
		for _, w := range warns {
			if w.Source != source || w.Line < 1 || strings.ContainsRune(w.Text, '\n') || w.Msg == "" {
				t.Fatalf("bad warning %#v", w)
			}
		}
		if _, err := json.Marshal(snap); err != nil {
			t.Fatalf("json: %v", err)
		}
		// Printed back the kernel's way, the snapshot parses to itself.
		again, warns2, err := Diskstats(strings.NewReader(formatDiskstats(snap)), source)
		if err != nil || len(warns2) > 0 {
			t.Fatalf("round trip: %v %v", err, warns2)
		}
		if !reflect.DeepEqual(again, snap) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", again, snap)
		}
	})
}

// formatDiskstats prints a snapshot as the kernel prints /proc/diskstats.
func formatDiskstats(s DiskstatsSnapshot) string {
	var b strings.Builder
	for _, d := range s.Devices {
		fmt.Fprintf(&b, "%4d %7d %s %d %d %d %d %d %d %d %d %d %d %d", d.Major, d.Minor, d.Name,
			d.ReadsCompleted, d.ReadsMerged, d.ReadSectors, d.ReadTimeMs,
			d.WritesCompleted, d.WritesMerged, d.WriteSectors, d.WriteTimeMs,
			d.InFlight, d.IOTimeMs, d.WeightedIOTimeMs)
		if d.Discards != nil {
			fmt.Fprintf(&b, " %d %d %d %d", d.Discards.Completed, d.Discards.Merged, d.Discards.Sectors, d.Discards.TimeMs)
		}
		if d.Flushes != nil {
			fmt.Fprintf(&b, " %d %d", d.Flushes.Completed, d.Flushes.TimeMs)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
