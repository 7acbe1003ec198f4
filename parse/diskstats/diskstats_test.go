package diskstats

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func TestFixtures(t *testing.T) {
	golden.Each(t, "", "snapshot", Parse, checkSnapshot)
}

// checkSnapshot checks what every accepted snapshot satisfies.
func checkSnapshot(t *testing.T, snap Snapshot) {
	t.Helper()
	if len(snap.Devices) == 0 {
		t.Fatal("no devices")
	}
	for _, d := range snap.Devices {
		if d.Name == "" {
			t.Errorf("device %d:%d has no name", d.Major, d.Minor)
		}
		switch {
		case d.Fields == 14 && !d.Discards.Valid && !d.Flushes.Valid:
		case d.Fields == 18 && d.Discards.Valid && !d.Flushes.Valid:
		case d.Fields == 20 && d.Discards.Valid && d.Flushes.Valid:
		default:
			t.Errorf("device %s: %d fields with discards %v and flushes %v", d.Name, d.Fields, d.Discards.Valid, d.Flushes.Valid)
		}
		// An absent group is the zero value, so that records compare
		// equal whatever line came before.
		if !d.Discards.Valid && d.Discards != (parse.Opt[Discards]{}) || !d.Flushes.Valid && d.Flushes != (parse.Opt[Flushes]{}) {
			t.Errorf("device %s: absent groups hold values: %+v %+v", d.Name, d.Discards, d.Flushes)
		}
	}
}

// The cut 14- and 18-field fixtures hold the same leading counters as the
// 20-field copy they were cut from.
func TestFieldCounts(t *testing.T) {
	read := func(name string) Snapshot {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		snap, _, err := Parse(strings.NewReader(string(b)), name)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	full, f18, f14 := read("linux-6.18.txt"), read("linux-6.18-18field.txt"), read("linux-6.18-14field.txt")
	if len(full.Devices) != len(f18.Devices) || len(full.Devices) != len(f14.Devices) {
		t.Fatalf("device counts differ: %d, %d, %d", len(full.Devices), len(f18.Devices), len(f14.Devices))
	}
	for i, d := range full.Devices {
		d18 := d
		d18.Fields, d18.Flushes = 18, parse.Opt[Flushes]{}
		if !reflect.DeepEqual(f18.Devices[i], d18) {
			t.Errorf("18-field %s: got %+v, want %+v", d.Name, f18.Devices[i], d18)
		}
		d14 := d18
		d14.Fields, d14.Discards = 14, parse.Opt[Discards]{}
		if !reflect.DeepEqual(f14.Devices[i], d14) {
			t.Errorf("14-field %s: got %+v, want %+v", d.Name, f14.Devices[i], d14)
		}
	}
}

func TestLine(t *testing.T) {
	const in = " 259       0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n" +
		" 259       1 nvme0n1p1 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n" +
		"   8       0 sda 4294967295 1 2 3 4 5 6 7 8 9 10\n"
	snap, warns, err := Parse(strings.NewReader(in), "in")
	if err != nil || len(warns) > 0 {
		t.Fatalf("err %v, warnings %v", err, warns)
	}
	want := []Counters{{
		Major: 259, Minor: 0, Name: "nvme0n1", Fields: 20,
		ReadsCompleted: 1, ReadsMerged: 2, ReadSectors: 3, ReadTimeMs: 4,
		WritesCompleted: 5, WritesMerged: 6, WriteSectors: 7, WriteTimeMs: 8,
		InFlight: 9, IOTimeMs: 10, WeightedIOTimeMs: 11,
		Discards: parse.Some(Discards{Completed: 12, Merged: 13, Sectors: 14, TimeMs: 15}),
		Flushes:  parse.Some(Flushes{Completed: 16, TimeMs: 17}),
	}, {
		Major: 259, Minor: 1, Name: "nvme0n1p1", Fields: 18,
		ReadsCompleted: 18446744073709551615,
		Discards:       parse.Some(Discards{}),
	}, {
		Major: 8, Minor: 0, Name: "sda", Fields: 14,
		ReadsCompleted: 4294967295, ReadsMerged: 1, ReadSectors: 2, ReadTimeMs: 3,
		WritesCompleted: 4, WritesMerged: 5, WriteSectors: 6, WriteTimeMs: 7,
		InFlight: 8, IOTimeMs: 9, WeightedIOTimeMs: 10,
	}}
	if !reflect.DeepEqual(snap.Devices, want) {
		t.Errorf("got\n%+v\nwant\n%+v", snap.Devices, want)
	}
	d, ok := snap.Device("nvme0n1")
	if !ok || d.ReadBytes() != 3*512 || d.WriteBytes() != 7*512 || d.Discards.V.Bytes() != 14*512 {
		t.Errorf("Device(nvme0n1) = %+v, %v; bytes %d %d", d, ok, d.ReadBytes(), d.WriteBytes())
	}
	if _, ok := snap.Device("nvme1n1"); ok {
		t.Error("Device(nvme1n1) found")
	}
}

func TestErrors(t *testing.T) {
	real20 := " 254       0 vda 752065 252294 384458762 2364558 421186 168865 28208936 182647 0 300820 2603720 136379 82 21135720 29240 103698 27273\n"
	for _, tt := range []struct {
		name, in string
		err      string
	}{
		{"empty", "", "disk.txt: empty input; expected /proc/diskstats"},
		{"blank lines", "\n  \n\t\n", "disk.txt: empty input; expected /proc/diskstats"},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00", "disk.txt:1: binary data (a NUL byte); expected text"},
		{"binary after a good line", real20 + "\x00\x01\x02\n", "disk.txt:2: binary data (a NUL byte); expected text"},
		{"proc stat", "cpu  5014 0 3141 951234 173 0 57 0 0 0\ncpu0 2507 0 1570 475617 86 0 28 0 0 0\nintr 1 2 3\nctxt 12345\n",
			`disk.txt:1: not /proc/diskstats (no line of it is a diskstats line): 11 fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters): "cpu  5014 0 3141 951234 173 0 57 0 0 0"`},
		{"proc partitions", "major minor  #blocks  name\n\n 254        0   52428800 vda\n",
			`disk.txt:1: not /proc/diskstats (no line of it is a diskstats line): 4 fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters): "major minor  #blocks  name"`},
		{"truncated line", " 254       0 vda 752065 252294 384458762",
			`disk.txt:1: not /proc/diskstats (no line of it is a diskstats line): 6 fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters): " 254       0 vda 752065 252294 384458762"`},
		{"negative counter", " 254 0 vda -1 0 0 0 0 0 0 0 0 0 0\n",
			`disk.txt:1: not /proc/diskstats (no line of it is a diskstats line): field 4 (reads_completed) is not an unsigned number: "-1": " 254 0 vda -1 0 0 0 0 0 0 0 0 0 0"`},
		{"pgbench output", "pgbench (15.18 (Debian 15.18-0+deb12u1))\ntransaction type: <builtin: select only>\n",
			`disk.txt:1: not /proc/diskstats (no line of it is a diskstats line): 4 fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters): "pgbench (15.18 (Debian 15.18-0+deb12u1))"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse(strings.NewReader(tt.in), "disk.txt")
			if err == nil {
				t.Fatalf("no error, want %q", tt.err)
			}
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("error %T, want *SyntaxError", err)
			}
			if err.Error() != tt.err {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.err)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	good := "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
	in := good +
		"   8       1 sda1 1 2 3\n" + // truncated
		"   8       2 sda2 1 2 x 4 5 6 7 8 9 10 11\n" + // not a number
		"   8       3 sda3 1 2 3 4 5 6 7 8 9 10 11 12\n" + // 15 fields
		"4294967296 0 big 1 2 3 4 5 6 7 8 9 10 11\n" + // major > 32 bits
		"   8 -1 neg 1 2 3 4 5 6 7 8 9 10 11\n" +
		"   8       4 sda4 1 2 3 4 5 6 7 8 9 10 18446744073709551616\n" + // > 64 bits
		"   8 5 a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n" + // 23 fields
		"\n" +
		good
	snap, warns, err := Parse(strings.NewReader(in), "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Devices) != 2 {
		t.Errorf("%d devices, want 2", len(snap.Devices))
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		`d:2: 6 fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters): "   8       1 sda1 1 2 3"`,
		`d:3: field 6 (read_sectors) is not an unsigned number: "x": "   8       2 sda2 1 2 x 4 5 6 7 8 9 10 11"`,
		`d:4: 15 fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters): "   8       3 sda3 1 2 3 4 5 6 7 8 9 10 11 12"`,
		`d:5: major number "4294967296" is not an unsigned 32-bit number: "4294967296 0 big 1 2 3 4 5 6 7 8 9 10 11"`,
		`d:6: minor number "-1" is not an unsigned 32-bit number: "   8 -1 neg 1 2 3 4 5 6 7 8 9 10 11"`,
		`d:7: field 14 (weighted_io_time_ms) is not an unsigned number: "18446744073709551616": "   8       4 sda4 1 2 3 4 5 6 7 8 9 10 18446744073709551616"`,
		`d:8: 23 fields; want 14, 18 or 20 (major, minor, device name and 11, 15 or 17 counters): "   8 5 a 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got: %q\nwant: %q", got, want)
	}
}

// A line ending in "\r\n" (a snapshot that went through a Windows tool) and
// tabs between fields parse like the kernel's own.
func TestSpacing(t *testing.T) {
	snap, warns, err := Parse(strings.NewReader("8\t0\tsda 1 2 3 4 5 6 7 8 9 10 11\r\n"), "d")
	if err != nil || len(warns) > 0 || len(snap.Devices) != 1 || snap.Devices[0].WeightedIOTimeMs != 11 {
		t.Errorf("got %+v, %v, %v", snap, warns, err)
	}
}

// A long concatenation of snapshots (many chunks of devices and batches of
// optional counters) parses whole.
func TestLong(t *testing.T) {
	snap := golden.Text(t, "testdata/linux-6.18.txt")
	const times = 7000 // 70000 devices: more chunks than a shift of their size allows
	s, warns, err := Parse(strings.NewReader(strings.Repeat(snap, times)), "long")
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	one, _, _ := Parse(strings.NewReader(snap), "one")
	if len(s.Devices) != times*len(one.Devices) {
		t.Fatalf("%d devices, want %d", len(s.Devices), times*len(one.Devices))
	}
	for i, d := range s.Devices {
		if !reflect.DeepEqual(d, one.Devices[i%len(one.Devices)]) {
			t.Fatalf("device %d: %+v", i, d)
		}
	}
}

// TestUnended: a file cut inside its last line (no newline after it) has
// that line left out with a warning, by Parse and ParseSeq alike: its last
// counter may have lost digits, and a line cut after its 18th field reads
// as a 4.18 kernel's. The same file with its newline keeps it.
func TestUnended(t *testing.T) {
	whole, err := os.ReadFile("testdata/linux-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := Parse(strings.NewReader(string(whole)), "whole")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(whole), "\n")
	last := strings.LastIndex(string(whole[:len(whole)-1]), "\n") + 1
	for name, in := range map[string]string{
		"no newline":      string(whole[:len(whole)-1]),
		"cut in a number": string(whole[:len(whole)-4]),
		"after field 18":  string(whole[:last]) + strings.Join(strings.Fields(string(whole[last:]))[:18], " "),
	} {
		snap, warns, err := Parse(strings.NewReader(in), "cut")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(snap.Devices, full.Devices[:len(full.Devices)-1]) {
			t.Errorf("%s: %d devices, want the first %d as read whole", name, len(snap.Devices), len(full.Devices)-1)
		}
		if len(warns) != 1 || warns[0].Line != lines || !strings.Contains(warns[0].Msg, "ends inside this line") {
			t.Errorf("%s: warnings %+v, want one at line %d", name, warns, lines)
		}
		var seq []Counters
		var seqWarns []parse.Warning
		for c, err := range ParseSeq(strings.NewReader(in), "cut", func(w parse.Warning) { seqWarns = append(seqWarns, w) }) {
			if err != nil {
				t.Fatalf("%s: ParseSeq: %v", name, err)
			}
			seq = append(seq, c)
		}
		if !reflect.DeepEqual(seq, snap.Devices) || !reflect.DeepEqual(seqWarns, warns) {
			t.Errorf("%s: ParseSeq gives %d devices and %+v", name, len(seq), seqWarns)
		}
	}
}

// TestNameNotUTF8: a device name that is not UTF-8 text is a warning and
// its line left out: written as JSON, loop\xff and loop\xfe were both
// loop\ufffd, two devices under one name.
func TestNameNotUTF8(t *testing.T) {
	in := "   7       0 loop\xff 1 0 2 3 0 0 0 0 0 4 5 0 0 0 0 0 0\n" +
		"   7       1 loop\xfe 1 0 2 3 0 0 0 0 0 4 5 0 0 0 0 0 0\n" +
		"   7       2 loop2 1 0 2 3 0 0 0 0 0 4 5 0 0 0 0 0 0\n"
	snap, warns, err := Parse(strings.NewReader(in), "names")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Devices) != 1 || snap.Devices[0].Name != "loop2" {
		t.Errorf("devices %+v, want loop2 alone", snap.Devices)
	}
	if len(warns) != 2 || warns[0].Line != 1 || warns[1].Line != 2 || !strings.Contains(warns[0].Msg, "not UTF-8") {
		t.Errorf("warnings %+v, want lines 1 and 2", warns)
	}
}
