package analyze

import (
	"os"
	"strings"
	"testing"
)

// TestWholeProcessWindow: psql's output from before pgstudy bracketed the
// statement (no markers) marks its run's window as the whole process, and
// the guard says so, as a warning when another configuration's runs of
// the test were measured over the statement alone; psql's output with
// its markers, and an imported log, are left alone.
func TestWholeProcessWindow(t *testing.T) {
	read := func(name string) map[string]string {
		out := map[string]string{}
		for _, s := range []string{"stdout", "stderr"} {
			b, err := os.ReadFile("../parse/psql/testdata/" + name + "." + s)
			if err != nil {
				t.Fatal(err)
			}
			out[s] = string(b)
		}
		return out
	}
	mk := func(id int64, config, fixture, cold string) *Run {
		r := &Run{Host: "h", RunID: id, Config: config, Test: "select", Kind: "timed", Client: "psql", Status: "ok", Cold: cold}
		r.readOutputs(read(fixture), nil)
		if !r.HasTime {
			t.Fatalf("run %d: no time read from %s (%v)", id, fixture, r.Problems)
		}
		return r
	}
	old := mk(1, "old", "capture-collector-select-pg18", "stop-all; drop-caches")
	bracketed := mk(2, "new", "capture-window-select-pg18", "stop-all; drop-caches")
	imported := mk(3, "imported", "capture-collector-select-pg18", importedCold)
	if !old.WholeProcess || bracketed.WholeProcess || imported.WholeProcess {
		t.Fatalf("whole process: old %v, bracketed %v, imported %v", old.WholeProcess, bracketed.WholeProcess, imported.WholeProcess)
	}
	a := &Analysis{Hosts: []string{"h"}, Tests: []string{"select"}, Configs: []string{"old", "new", "imported"},
		Runs: []*Run{old, bracketed, imported}}
	a.guardWholeProcess()
	if len(a.Findings) != 1 {
		t.Fatalf("findings: %+v", a.Findings)
	}
	f := a.Findings[0]
	if f.Guard != "psql-window" || f.Severity != Warning || f.Config != "old" || len(f.Runs) != 1 || f.Runs[0] != 1 ||
		!strings.Contains(f.Message, "cover the whole psql process") || !strings.Contains(f.Message, "not comparable") {
		t.Errorf("finding %+v", f)
	}
	// Alone, it is context, not a warning.
	a = &Analysis{Hosts: []string{"h"}, Tests: []string{"select"}, Configs: []string{"old"}, Runs: []*Run{old}}
	a.guardWholeProcess()
	if len(a.Findings) != 1 || a.Findings[0].Severity != Info || strings.Contains(a.Findings[0].Message, "not comparable") {
		t.Errorf("findings: %+v", a.Findings)
	}
}

// TestBracketedVacuum: VACUUM VERBOSE's report on psql's stderr, its lines
// prefixed with psql's location since psql reads its script with -f, is
// read as before.
func TestBracketedVacuum(t *testing.T) {
	for _, name := range []string{"capture-window-vacuum-pg17", "capture-window-vacuum-pg18"} {
		out := map[string]string{}
		for _, s := range []string{"stdout", "stderr"} {
			b, err := os.ReadFile("../parse/psql/testdata/" + name + "." + s)
			if err != nil {
				t.Fatal(err)
			}
			out[s] = string(b)
		}
		r := &Run{RunID: 1, Kind: "timed", Client: "psql", Status: "ok"}
		r.readOutputs(out, nil)
		if !r.HasTime || r.WholeProcess || r.Vacuum == nil || len(r.Problems) > 0 {
			t.Fatalf("%s: time %v %g, whole process %v, vacuum %+v, problems %v", name, r.HasTime, r.TimeMs, r.WholeProcess, r.Vacuum, r.Problems)
		}
		// Both fixtures vacuum after an update of 20,000 rows.
		if v := r.Vacuum; v.TuplesRemoved == nil || *v.TuplesRemoved != 20000 || v.WALRecords == nil || *v.WALRecords <= 0 {
			t.Errorf("%s: vacuum %+v", name, v)
		}
	}
}
