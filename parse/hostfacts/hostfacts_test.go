package hostfacts

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func TestFixtures(t *testing.T) {
	t.Run("meminfo", func(t *testing.T) { golden.Each(t, "meminfo", "memory", Meminfo, checkMemory) })
	t.Run("cpuinfo", func(t *testing.T) { golden.Each(t, "cpuinfo", "cpus", CPUInfo, checkCPUs) })
	t.Run("osrelease", func(t *testing.T) { golden.Each(t, "osrelease", "os", OSRelease, checkOS) })
}

// checkMemory, checkCPUs and checkOS check what holds of any file read.
func checkMemory(t *testing.T, m Memory) {
	t.Helper()
	if _, ok := m.TotalKiB(); !ok {
		t.Errorf("no MemTotal in %v", m.KiB)
	}
}

func checkCPUs(t *testing.T, c CPUs) {
	t.Helper()
	if c.Processors < 1 {
		t.Errorf("%d processors", c.Processors)
	}
}

func checkOS(t *testing.T, o OS) {
	t.Helper()
	if len(o.Vars) == 0 {
		t.Error("no variables")
	}
}

func TestMeminfo(t *testing.T) {
	in := "MemTotal:        4025324 kB\nMemFree:         3264012 kB\n\nHugePages_Total:       0\nHugepagesize:       2048 kB\n"
	m, warns, err := Meminfo(strings.NewReader(in), "meminfo")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v, %v", warns, err)
	}
	if n, ok := m.TotalKiB(); !ok || n != 4025324 || m.KiB["Hugepagesize"] != 2048 || len(m.KiB) != 3 {
		t.Errorf("KiB %v", m.KiB)
	}
	if n, ok := m.Counts["HugePages_Total"]; !ok || n != 0 || len(m.Counts) != 1 {
		t.Errorf("counts %v", m.Counts)
	}
}

func TestCPUInfo(t *testing.T) {
	in := "processor\t: 0\nmodel name\t: AMD EPYC\npower management:\n\nprocessor\t: 1\nmodel name\t: Other\n"
	c, warns, err := CPUInfo(strings.NewReader(in), "cpuinfo")
	if err != nil || len(warns) > 0 || c != (CPUs{Processors: 2, ModelName: "AMD EPYC"}) {
		t.Errorf("%+v, %v, %v", c, warns, err)
	}
	// ARM prints no model name: absent, not an error.
	c, warns, err = CPUInfo(strings.NewReader("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"), "cpuinfo")
	if err != nil || len(warns) > 0 || c != (CPUs{Processors: 1}) {
		t.Errorf("%+v, %v, %v", c, warns, err)
	}
}

func TestOSRelease(t *testing.T) {
	in := "# a comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nNAME='Single quoted'\n" +
		"VARIANT=\"a \\\"quote\\\", a \\\\ and a \\$\"\nEMPTY=\n"
	o, warns, err := OSRelease(strings.NewReader(in), "os-release")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v, %v", warns, err)
	}
	want := map[string]string{"PRETTY_NAME": "Debian GNU/Linux 12 (bookworm)", "ID": "debian", "NAME": "Single quoted",
		"VARIANT": `a "quote", a \ and a $`, "EMPTY": ""}
	if len(o.Vars) != len(want) {
		t.Errorf("vars %q, want %q", o.Vars, want)
	}
	for k, v := range want {
		if o.Vars[k] != v {
			t.Errorf("%s = %q, want %q", k, o.Vars[k], v)
		}
	}
	if o.PrettyName() != want["PRETTY_NAME"] {
		t.Errorf("pretty name %q", o.PrettyName())
	}
}

func TestWarnings(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(string) ([]parse.Warning, error)
		in   string
		want []string
	}{
		{"meminfo", func(s string) ([]parse.Warning, error) {
			_, w, err := Meminfo(strings.NewReader(s), "m")
			return w, err
		},
			"MemTotal: 10 kB\nMemFree: x kB\nno colon\nMemTotal: 11 kB\n", []string{
				`m:2: MemFree: not a number: "x kB": "MemFree: x kB"`,
				`m:3: want "Key: N kB": "no colon"`,
				`m:4: a second "MemTotal" line: "MemTotal: 11 kB"`,
			}},
		{"cpuinfo", func(s string) ([]parse.Warning, error) {
			_, w, err := CPUInfo(strings.NewReader(s), "c")
			return w, err
		},
			"processor\t: 0\nmystery\n", []string{`c:2: want "key: value": "mystery"`}},
		{"osrelease", func(s string) ([]parse.Warning, error) {
			_, w, err := OSRelease(strings.NewReader(s), "o")
			return w, err
		},
			"ID=debian\nNAME=\"open\nnot a variable\nMY KEY=1\n", []string{
				`o:2: want KEY=value or KEY="value": "NAME=\"open"`,
				`o:3: want KEY=value or KEY="value": "not a variable"`,
				`o:4: want KEY=value or KEY="value": "MY KEY=1"`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			warns, err := tc.read(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) != len(tc.want) {
				t.Fatalf("warnings %v, want %q", warns, tc.want)
			}
			for i, w := range warns {
				if w.String() != tc.want[i] {
					t.Errorf("warning %d: %s, want %s", i, w, tc.want[i])
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	meminfo := func(s string) error { _, _, err := Meminfo(strings.NewReader(s), "in"); return err }
	cpuinfo := func(s string) error { _, _, err := CPUInfo(strings.NewReader(s), "in"); return err }
	osrelease := func(s string) error { _, _, err := OSRelease(strings.NewReader(s), "in"); return err }
	for _, tc := range []struct {
		read     func(string) error
		in, want string
	}{
		{meminfo, "", "in: empty input; expected /proc/meminfo"},
		{meminfo, "MemFree: 1 kB\n", `in: not /proc/meminfo: no "MemTotal: N kB" line`},
		{meminfo, "MemTotal: 1 kB\x00\n", "in:1: binary data (a NUL byte); expected text"},
		{cpuinfo, "", "in: empty input; expected /proc/cpuinfo"},
		{cpuinfo, "MemTotal: 1 kB\n", `in: not /proc/cpuinfo: no "processor" line`},
		{osrelease, "", "in: empty input; expected /etc/os-release"},
		{osrelease, "# only a comment\n\n", "in: not an os-release file: no KEY=value line"},
	} {
		err := tc.read(tc.in)
		var se *parse.SyntaxError
		if !errors.As(err, &se) || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestScheduler(t *testing.T) {
	for in, want := range map[string]string{
		"[none] mq-deadline kyber bfq \n": "none",
		"none [mq-deadline] kyber":        "mq-deadline",
		"none\n":                          "none",
		"":                                "",
		"] odd [":                         "] odd [",
	} {
		if got := Scheduler(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestSizeBytes(t *testing.T) {
	for in, want := range map[string]uint64{"104857600\n": 104857600 * 512, "0": 0} {
		if got, ok := SizeBytes(in); !ok || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "12 sectors", "36028797018963968"} {
		if got, ok := SizeBytes(in); ok {
			t.Errorf("%q: %d, want not a size", in, got)
		}
	}
}
