package analyze

import (
	"strings"
	"testing"
	"time"
)

// TestCeilingAgainstDeclared: a declared limit wins over a measured
// ceiling, and where they differ by more than a fifth a finding shows
// both; without a declaration the run is held against the ceiling
// measured nearest it; a calibration that measured nothing is said.
func TestCeilingAgainstDeclared(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := &Analysis{Setups: []Setup{{Host: "h", Limits: map[string]Limit{"vda": {ReadMiBs: 100}}}},
		Ceilings: []Ceiling{
			{Host: "h", Device: "vda", Phase: "start", Session: 1, At: t0, Depth: 8, Seconds: 3, SeqMiBs: f(250), RandomIOPS: f(3000)},
			{Host: "h", Device: "vdb", Phase: "start", Session: 1, At: t0, Depth: 8, Seconds: 3, SeqMiBs: f(40)},
			{Host: "h", Device: "vdb", Phase: "end", Session: 1, At: t0.Add(time.Hour), Depth: 8, Seconds: 3, SeqMiBs: f(38)},
			{Host: "h", Device: "vdc", Phase: "start", Session: 2, At: t0, Error: "sequential: O_DIRECT read: EIO"},
		}}
	l, what, ok := a.runLimit(&Run{Host: "h", Device: "vda", Started: t0.Add(time.Minute)})
	if !ok || l.ReadMiBs != 100 || what != "the limit the study gives" {
		t.Errorf("vda: %+v %q %v; want the declared 100 MiB/s", l, what, ok)
	}
	l, what, ok = a.runLimit(&Run{Host: "h", Device: "vdb", Started: t0.Add(50 * time.Minute)})
	if !ok || l.ReadMiBs != 38 || !strings.HasPrefix(what, "the ceiling measured after the last run (2026-01-02 04:04:05 UTC") {
		t.Errorf("vdb: %+v %q %v; want the ceiling after the last run, the nearest", l, what, ok)
	}
	if _, _, ok := a.runLimit(&Run{Host: "h", Device: "vdc"}); ok || a.hasLimit("h", "vdc") {
		t.Error("vdc: a failed calibration gave a limit")
	}
	a.guardCeilings()
	var msgs []string
	for _, f := range a.Findings {
		msgs = append(msgs, string(f.Severity)+": "+f.Message)
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		"info: the ceiling measured on vda differs from the limit the study declares by more than 20% (250.0 MiB/s read measured before the first run",
		"against 100 declared); the declared limit is the one runs are held against",
		"warning: the calibration of vdc at the start of session 2 (a resume) (2026-01-02 03:04:05 UTC) did not measure everything: sequential: O_DIRECT read: EIO",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "vdb") {
		t.Errorf("vdb's ceiling fell by 5%%, under the 20%% a finding needs:\n%s", got)
	}
}
