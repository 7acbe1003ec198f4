package procstat

import (
	"errors"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func TestFixtures(t *testing.T) {
	golden.Each(t, "", "stat", Parse, checkStat)
}

// checkStat checks what holds of any snapshot read.
func checkStat(t *testing.T, st Stat) {
	t.Helper()
	if st.CPU.Fields < 4 {
		t.Errorf("cpu line of %d fields", st.CPU.Fields)
	}
}

func TestParse(t *testing.T) {
	in := "cpu  10 1 20 300 4 0 5 6 0 0\ncpu0 5 0 10 150 2 0 2 3 0 0\ncpu1 5 1 10 150 2 0 3 3 0 0\n" +
		"intr 1 2 3\nctxt 12345\nbtime 1796139358\nprocesses 77\nprocs_running 2\nprocs_blocked 0\nsoftirq 1 2\n"
	st, warns, err := Parse(strings.NewReader(in), "stat")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v, %v", warns, err)
	}
	want := CPU{Fields: 10, User: 10, Nice: 1, System: 20, Idle: 300, IOWait: 4, SoftIRQ: 5, Steal: 6}
	if st.CPU != want || st.CPUs != 2 || st.ContextSwitches == nil || *st.ContextSwitches != 12345 ||
		st.Processes == nil || *st.Processes != 77 || st.ProcsBlocked == nil || *st.ProcsBlocked != 0 {
		t.Errorf("got %+v", st)
	}
}

// TestOldKernel: a kernel that prints four CPU times and no ctxt line reads,
// the counter absent, not zero.
func TestOldKernel(t *testing.T) {
	st, warns, err := Parse(strings.NewReader("cpu 1 2 3 4\n"), "stat")
	if err != nil || len(warns) > 0 || st.CPU.Fields != 4 || st.CPU.System != 3 || st.ContextSwitches != nil {
		t.Errorf("%+v, %v, %v", st, warns, err)
	}
}

func TestWarnings(t *testing.T) {
	in := "cpu 1 2 3 4\nctxt x\nmystery 1\nprocesses 1 2\n"
	_, warns, err := Parse(strings.NewReader(in), "stat")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`stat:2: ctxt: not a number: "x": "ctxt x"`,
		`stat:3: unknown line: "mystery 1"`,
		`stat:4: processes: want one number, found 2 fields: "processes 1 2"`,
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %v, want %q", warns, want)
	}
	for i, w := range warns {
		if w.String() != want[i] {
			t.Errorf("warning %d: %s, want %s", i, w, want[i])
		}
	}
}

func TestErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "stat: empty input; expected /proc/stat",
		"ctxt 1\n":              `stat: not /proc/stat: no "cpu" line`,
		"cpu 1 2 3\n":           `stat: not /proc/stat: no "cpu" line`,
		"8 0 sda 1 2 3 4 5 6\n": `stat: not /proc/stat: no "cpu" line`,
		"cpu 1 2 3 4\x00\n":     "stat:1: binary data (a NUL byte); expected text",
	} {
		_, _, err := Parse(strings.NewReader(in), "stat")
		var se *parse.SyntaxError
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}
