package cgroupio

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func TestFixturesV1(t *testing.T) {
	golden.Each(t, "v1", "rwstat", ParseRWStat, checkRWStat)
}

func TestFixturesV2(t *testing.T) {
	golden.Each(t, "v2", "iostat", ParseIOStat, checkIOStat)
}

// checkRWStat checks what every accepted v1 file satisfies: each
// device's total is its reads and writes (and discards), and the group's
// total is its devices'.
func checkRWStat(t *testing.T, s RWStat) {
	t.Helper()
	var sum uint64
	for _, d := range s.Devices {
		if d.Read == nil || d.Write == nil || d.Total == nil {
			t.Errorf("device %d:%d lacks Read, Write or Total: %+v", d.Major, d.Minor, d)
			continue
		}
		want := *d.Read + *d.Write
		if d.Discard != nil {
			want += *d.Discard
		}
		if *d.Total != want {
			t.Errorf("device %d:%d: total %d, read+write+discard %d", d.Major, d.Minor, *d.Total, want)
		}
		sum += *d.Total
	}
	if s.Total == nil || *s.Total != sum {
		t.Errorf("group total %v, devices' %d", s.Total, sum)
	}
}

func checkIOStat(t *testing.T, s IOStat) {
	t.Helper()
	for _, d := range s.Devices {
		if d.RBytes == nil || d.WBytes == nil || d.RIOs == nil || d.WIOs == nil {
			t.Errorf("device %d:%d lacks a counter: %+v", d.Major, d.Minor, d)
		}
	}
}

// The group dd ran in: its 8 MiB read and 8 MiB written with O_DIRECT
// are there, and the recursive files of a group without children say the
// same; Counters joins the bytes and I/Os files.
func TestDDGroup(t *testing.T) {
	read := func(name string) RWStat {
		t.Helper()
		s, warns, err := ParseRWStat(strings.NewReader(golden.Text(t, "testdata/v1/"+name)), name)
		if err != nil || len(warns) > 0 {
			t.Fatal(err, warns)
		}
		return s
	}
	b, ios := read("dd-io_service_bytes.txt"), read("dd-io_serviced.txt")
	if !reflect.DeepEqual(b, read("dd-io_service_bytes_recursive.txt")) || !reflect.DeepEqual(ios, read("dd-io_serviced_recursive.txt")) {
		t.Error("the recursive files of a group without children differ from the group's own")
	}
	c := V1Counters(b, ios)
	if len(c) != 1 {
		t.Fatalf("counters %+v, want one device", c)
	}
	for k, v := range c {
		if v.ReadBytes == nil || *v.ReadBytes < 8<<20 || v.WriteBytes == nil || *v.WriteBytes < 8<<20 ||
			v.Reads == nil || *v.Reads == 0 || v.Writes == nil || *v.Writes == 0 {
			t.Errorf("%s: %+v, want at least 8 MiB read and written", k, v)
		}
	}
	e := read("empty-io_service_bytes.txt")
	if len(e.Devices) != 0 || e.Total == nil || *e.Total != 0 {
		t.Errorf("empty group: %+v", e)
	}
	// An empty io.stat (a group that has done no I/O) has no devices:
	// [] in JSON, not null.
	st, warns, err := ParseIOStat(strings.NewReader(""), "io.stat")
	if b, _ := json.Marshal(st); err != nil || len(warns) != 0 || string(b) != `{"devices":[]}` {
		t.Errorf("empty io.stat: %s, %v, %v; want {\"devices\":[]}", b, warns, err)
	}
}

func TestIOStatLine(t *testing.T) {
	const in = "259:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6 cost.vrate=100.00 use_delay=0\n" +
		"\n" +
		"8:0 rbytes=18446744073709551615 wbytes=0 rios=0 wios=0\n"
	s, warns, err := ParseIOStat(strings.NewReader(in), "in")
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	u := func(n uint64) *uint64 { return &n }
	want := IOStat{Devices: []IOStatLine{
		{Major: 259, Minor: 0, RBytes: u(1), WBytes: u(2), RIOs: u(3), WIOs: u(4), DBytes: u(5), DIOs: u(6),
			Other: []Pair{{"cost.vrate", "100.00"}, {"use_delay", "0"}}},
		{Major: 8, Minor: 0, RBytes: u(1<<64 - 1), WBytes: u(0), RIOs: u(0), WIOs: u(0)},
	}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
	c := s.Counters()["259:0"]
	if *c.ReadBytes != 1 || *c.WriteBytes != 2 || *c.Reads != 3 || *c.Writes != 4 {
		t.Errorf("counters %+v", c)
	}
}

// Lines of another shape are warnings with their line; input with no
// line of the file's kind is an error naming the first.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		v2       bool
		err      string // "" for no error
		warns    []int  // lines warned about
	}{
		{"v2 bad line among good", "8:0 rbytes=1 wbytes=2 rios=3 wios=4\n8:1 rbytes=x\nsda rbytes=1\n", true, "", []int{2, 3}},
		{"v2 twice", "8:0 rbytes=1 rbytes=2\n", true, `in:1: not a cgroup io.stat (no line of it is MAJ:MIN rbytes=N ...): rbytes is given twice: "8:0 rbytes=1 rbytes=2"`, nil},
		{"v2 proc stat", "cpu  5014 0 3141 951234 173 0 57 0 0 0\n", true, "in:1: not a cgroup io.stat", nil},
		{"v2 v1 file", "8:0 Read 1\nTotal 1\n", true, "in:1: not a cgroup io.stat", nil},
		{"v1 empty", "", false, "in: empty input; expected a cgroup v1 blkio file", nil},
		{"v1 io.stat", "8:0 rbytes=1 wbytes=2 rios=3 wios=4\n", false, "in:1: not a cgroup v1 blkio file", nil},
		{"v1 bad among good", "8:0 Read 1\n8:0 Read 2\n8:0 Frobnicate 3\n8:1 Write 4\n8:0 Write 5\nTotal x\nTotal 6\nTotal 7\n", false, "", []int{2, 3, 5, 6, 8}},
		// Past 16 devices, the ones before are looked up in a map.
		{"v1 a device again after many", string(manyDevices([]byte("8:0 Read 1\n"), 20)) + "9:64 Read 4\n8:16 Read 2\n9:80 Read 5\n9:64 Write 6\n", false, "", []int{22, 24}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warns []parse.Warning
			var err error
			if tc.v2 {
				_, warns, err = ParseIOStat(strings.NewReader(tc.in), "in")
			} else {
				_, warns, err = ParseRWStat(strings.NewReader(tc.in), "in")
			}
			var se *parse.SyntaxError
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.err)):
				t.Fatalf("error %v, want one starting %q", err, tc.err)
			}
			if tc.err != "" {
				return
			}
			var lines []int
			for _, w := range warns {
				lines = append(lines, w.Line)
			}
			if !reflect.DeepEqual(lines, tc.warns) {
				t.Errorf("warnings on lines %v, want %v: %v", lines, tc.warns, warns)
			}
		})
	}
}

func TestBinary(t *testing.T) {
	b, err := os.ReadFile("cgroupio_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ParseRWStat(strings.NewReader(string(b)+"\x00\x01"), "bin"); err == nil {
		t.Error("binary input accepted")
	}
}

// TestUnended: a file cut inside its last line (no newline after it) has
// that line left out with a warning: "Total 17027072" cut to "Total 17"
// read as 17, and an io.stat line cut in its rbytes read as a smaller
// number, with its other counters missing.
func TestUnended(t *testing.T) {
	v1, err := os.ReadFile("testdata/v1/dd-io_service_bytes.txt")
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := ParseRWStat(strings.NewReader(string(v1)), "whole")
	if err != nil || whole.Total == nil {
		t.Fatalf("%+v %v", whole, err)
	}
	cut := string(v1[:len(v1)-7]) // "Total 17027072\n" → "Total 17"
	got, warns, err := ParseRWStat(strings.NewReader(cut), "cut")
	if err != nil {
		t.Fatal(err)
	}
	if got.Total != nil || !reflect.DeepEqual(got.Devices, whole.Devices) {
		t.Errorf("cut blkio: total %v, devices %+v; want no total and the devices read whole", got.Total, got.Devices)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Msg, "ends inside this line") || warns[0].Text != "Total 17" {
		t.Errorf("cut blkio: warnings %+v", warns)
	}

	v2, err := os.ReadFile("testdata/v2/kernel-doc.txt")
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := ParseIOStat(strings.NewReader(string(v2)), "whole")
	if err != nil {
		t.Fatal(err)
	}
	last := strings.LastIndex(string(v2[:len(v2)-1]), "\n") + 1
	cutV2 := string(v2[:last]) + string(v2[last:last+strings.Index(string(v2[last:]), "=")+3])
	st, warns, err := ParseIOStat(strings.NewReader(cutV2), "cut")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Devices, full.Devices[:len(full.Devices)-1]) || len(warns) != 1 || !strings.Contains(warns[0].Msg, "ends inside this line") {
		t.Errorf("cut io.stat %q: devices %+v, warnings %+v; want all but the last, one warning", cutV2[last:], st.Devices, warns)
	}
}

// TestImpossibleFigures: figures no kernel prints are warned of and left
// out, the others kept: a device twice in one io.stat, a device's Total
// that is not its Read, Write and Discard summed, a group's Total that is
// not its devices' Totals summed. A real file (root-io_service_bytes.txt,
// a Discard line in every block) has none.
func TestImpossibleFigures(t *testing.T) {
	st, warns, err := ParseIOStat(strings.NewReader("8:0 rbytes=1 wbytes=2 rios=3 wios=4\n8:16 rbytes=5\n8:0 rbytes=9 wbytes=9 rios=9 wios=9\n"), "in")
	if err != nil || len(warns) != 1 || warns[0].Line != 3 || warns[0].Msg != "device 8:0 again; an io.stat has a line per device: left out" {
		t.Errorf("io.stat: %v %v", warns, err)
	}
	if len(st.Devices) != 2 || *st.Devices[0].RBytes != 1 {
		t.Errorf("io.stat devices %+v", st.Devices)
	}

	for _, tc := range []struct {
		name, in   string
		warn       string // the one warning's message, "" for none
		line       int
		devTotal   *uint64
		groupTotal *uint64
	}{
		{"the kernel's sums", "8:0 Read 5\n8:0 Write 7\n8:0 Discard 1\n8:0 Total 13\nTotal 13\n", "", 0, ptr(13), ptr(13)},
		{"no Discard (before 4.19)", "8:0 Read 5\n8:0 Write 7\n8:0 Total 12\nTotal 12\n", "", 0, ptr(12), ptr(12)},
		{"a device's Total that is not its sum", "8:0 Read 5\n8:0 Write 7\n8:0 Total 99\nTotal 99\n",
			"Total of 8:0 is not its Read, Write and Discard summed (12), as the kernel prints it: left out", 3, nil, ptr(99)},
		{"a group's Total that is not the devices'", "8:0 Read 5\n8:0 Write 7\n8:0 Total 12\nTotal 13\n",
			"the group's Total is not its devices' Totals summed (12), as the kernel prints it: left out", 4, ptr(12), nil},
		{"a block without its Write: not checked", "8:0 Read 5\n8:0 Total 12\nTotal 12\n", "", 0, ptr(12), ptr(12)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, warns, err := ParseRWStat(strings.NewReader(tc.in), "in")
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.warn == "" && len(warns) != 0:
				t.Errorf("warnings %v", warns)
			case tc.warn != "" && (len(warns) != 1 || warns[0].Msg != tc.warn || warns[0].Line != tc.line):
				t.Errorf("warnings %v; want %q at line %d", warns, tc.warn, tc.line)
			}
			if len(st.Devices) != 1 || !reflect.DeepEqual(st.Devices[0].Total, tc.devTotal) || !reflect.DeepEqual(st.Total, tc.groupTotal) {
				t.Errorf("devices %+v, group total %v", st.Devices, st.Total)
			}
		})
	}
	for _, f := range golden.Files(t, "v1", "*.txt") {
		if _, warns, err := ParseRWStat(strings.NewReader(golden.Text(t, f)), f); err != nil || len(warns) > 0 {
			t.Errorf("%s: %v %v", f, warns, err)
		}
	}
}

func ptr(v uint64) *uint64 { return &v }
