package analyze

import (
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// TestSetupHostFacts: the machine of "How we measured" comes from the host
// facts as their parsers read them, and a fact they cannot read is a
// finding, not a blank said nothing of.
func TestSetupHostFacts(t *testing.T) {
	facts := func(mem string) []samples.Host {
		return []samples.Host{
			{Session: 1, Name: "os.release", Value: "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"},
			{Session: 1, Name: "cpu.info", Value: "processor\t: 0\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\n"},
			{Session: 1, Name: "memory.info", Value: mem},
			{Session: 1, Name: "device.vda.size", Value: "104857600\n"},
			{Session: 1, Name: "device.vda.queue.scheduler", Value: "[none] mq-deadline kyber bfq \n"},
		}
	}
	runs := []*Run{{Device: "vda", Round: 1}}

	c := &capture{info: CaptureInfo{Name: "c.pgs", Host: "h"}, study: &study.Study{}}
	s := setup(c, facts("MemTotal:        4194304 kB\nMemFree:  1 kB\n"), "s", "cmd", runs)
	if s.OS != "Debian GNU/Linux 12 (bookworm)" || s.CPU != "AMD EPYC" || s.Memory == nil || *s.Memory != 4<<30 {
		t.Errorf("machine %q, %q, %v bytes", s.OS, s.CPU, s.Memory)
	}
	if len(s.Devices) != 1 || s.Devices[0].Scheduler != "none" || s.Devices[0].Size == nil || *s.Devices[0].Size != 50<<30 {
		t.Errorf("devices %+v", s.Devices)
	}
	if msgs := c.info.hostWarnings.Messages(); len(msgs) != 0 {
		t.Errorf("warnings for real facts: %q", msgs)
	}

	c = &capture{info: CaptureInfo{Name: "c.pgs", Host: "h"}, study: &study.Study{}}
	s = setup(c, facts("MemFree:  1 kB\nMemFree: x\n"), "s", "cmd", runs)
	if s.Memory != nil {
		t.Errorf("memory %v bytes from a meminfo without MemTotal: unknown is nil, not a number", *s.Memory)
	}
	a := &Analysis{Captures: []CaptureInfo{c.info}}
	a.guardHostFacts()
	want := []string{
		`the capture c.pgs: host facts: memory.info: a line not understood: host fact memory.info:2: a second "MemFree" line: "MemFree: x"`,
		`the capture c.pgs: host facts: memory.info: not read: host fact memory.info: not /proc/meminfo: no "MemTotal: N kB" line`,
	}
	var got []string
	for _, f := range a.Findings {
		if f.Guard != "unreadable" || f.Host != "h" || f.Severity != Warning {
			t.Errorf("finding %+v", f)
		}
		got = append(got, f.Message)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSetName: the setting a SET or ALTER SYSTEM SET statement sets, as
// the collector writes them and as a hand would.
func TestSetName(t *testing.T) {
	for _, c := range []struct{ sql, prefix, want string }{
		{`SET "enable_seqscan" = 'off'`, "SET ", "enable_seqscan"},
		{`ALTER SYSTEM SET "io_method" = 'sync'`, "ALTER SYSTEM SET ", "io_method"},
		{`alter system set Work_Mem to '8MB'`, "ALTER SYSTEM SET ", "work_mem"},
		{`SET "my.opt""x" = '1'`, "SET ", `my.opt"x`},
		{`SET plan_cache_mode TO force_custom_plan`, "SET ", "plan_cache_mode"},
		{`ALTER SYSTEM RESET "io_method"`, "ALTER SYSTEM SET ", ""},
		{`select pg_reload_conf()`, "SET ", ""},
		{`SET`, "SET ", ""},
	} {
		if got := setName(c.sql, c.prefix); got != c.want {
			t.Errorf("setName(%q, %q) = %q, want %q", c.sql, c.prefix, got, c.want)
		}
	}
}
