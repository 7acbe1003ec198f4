package analyze_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/internal/gencapture"
	"github.com/pgstudy/pgstudy/samples"
)

// generate writes a capture of two rounds on host whose study is edited
// by study, and returns it as an input.
func generate(t *testing.T, host string, study func(string) string) analyze.Input {
	t.Helper()
	dir := filepath.Join(t.TempDir(), host)
	if err := gencapture.Generate(dir, gencapture.Options{Runs: 40, Samples: 4, Host: host, Study: study}); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return analyze.Input{Name: dir, Reader: r}
}

// withLimit gives the study's device a read limit.
func withLimit(mibs string) func(string) string {
	return func(yaml string) string { return yaml + "  limits: {vda: {read_mib_s: " + mibs + "}}\n" }
}

// TestLimitsPerHost: two hosts, each with a device named vda and its own
// limit. Host A's runs are judged against A's limit (1 MiB/s, which every
// run goes far above), host B's against B's (10,000 MiB/s, which none
// comes near), in either order of the captures.
func TestLimitsPerHost(t *testing.T) {
	a, b := generate(t, "host-a", withLimit("1")), generate(t, "host-b", withLimit("10000"))
	for _, inputs := range [][]analyze.Input{{a, b}, {b, a}} {
		an, err := analyze.Analyze(inputs, analyze.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if l, ok := an.Limit("host-a", "vda"); !ok || l.ReadMiBs != 1 {
			t.Errorf("host-a's vda limit: %+v %v", l, ok)
		}
		if l, ok := an.Limit("host-b", "vda"); !ok || l.ReadMiBs != 10000 {
			t.Errorf("host-b's vda limit: %+v %v", l, ok)
		}
		above := 0
		for _, f := range findings(an, "disk-bound") {
			if f.Host != "host-a" || f.Severity != analyze.Warning || !strings.Contains(f.Message, "against the limit the study gives, 1)") {
				t.Errorf("a finding of %s: %s", f.Host, f.Message)
			}
			above++
		}
		// Five tests on four configurations, each above A's limit.
		if above != 20 {
			t.Errorf("%d disk-bound findings, want 20 (every test and configuration of host-a)", above)
		}
		// Bounded counts runs where a limit is known: none reach B's.
		for _, d := range an.Disks {
			if d.Bounded == nil || *d.Bounded != 0 {
				t.Errorf("%s %s %s: bounded %v, want 0 of a known limit", d.Host, d.Test, d.Config, d.Bounded)
			}
		}
	}
}

// TestBoundedUnknown: without a declared limit, how many runs the device
// bounded is unknown (nil, blank in the tables), not zero.
func TestBoundedUnknown(t *testing.T) {
	an, err := analyze.Analyze([]analyze.Input{generate(t, "host-a", nil)}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(an.Disks) == 0 {
		t.Fatal("no disk rows")
	}
	for _, d := range an.Disks {
		if d.Bounded != nil {
			t.Errorf("%s %s: bounded %d with no limit declared, want unknown", d.Test, d.Config, *d.Bounded)
		}
	}
	for _, tb := range an.Tables() {
		if tb.Name != "disk" {
			continue
		}
		i := tb.Index("bounded")
		for _, row := range tb.Rows {
			if row[i] != nil {
				t.Errorf("disk table: bounded %v, want null", row[i])
			}
		}
	}
}

// TestStoredStudyUndecodable: a capture whose study no longer decodes is
// an error naming the capture, the study's line and what was expected,
// not an analysis that silently lost its expected plans and limits.
func TestStoredStudyUndecodable(t *testing.T) {
	in := generate(t, "host-a", func(yaml string) string {
		return strings.Replace(yaml, "  rounds: 2\n", "  rounds: two\n", 1)
	})
	_, err := analyze.Analyze([]analyze.Input{in}, analyze.Options{})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{in.Name + ": the study it recorded does not decode", `study.yaml:63:11: expected a whole number, found "two"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nwant %q in it", err, want)
		}
	}
}

// TestStoredStudyUnknownKeys: a study written for another version of
// pgstudy, with keys this one does not know, gives what it can (its
// expected plans and limits) and a finding that names the keys ignored.
func TestStoredStudyUnknownKeys(t *testing.T) {
	in := generate(t, "host-a", func(yaml string) string {
		yaml = strings.Replace(yaml, "protocol:\n", "protocol:\n  warp: 9\n", 1)
		return withLimit("1")(yaml) + "telemetry: {every: 1s}\n"
	})
	an, err := analyze.Analyze([]analyze.Input{in}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys := findings(an, "study-keys")
	if len(keys) != 1 {
		t.Fatalf("%d study-keys findings: %+v", len(keys), keys)
	}
	for _, want := range []string{in.Name, "2 key(s)", `study.yaml:63:3: unknown key "warp"`, `study.yaml:73:1: unknown key "telemetry"`} {
		if !strings.Contains(keys[0].Message, want) {
			t.Errorf("finding %q\nwant %q in it", keys[0].Message, want)
		}
	}
	if l, ok := an.Limit("host-a", "vda"); !ok || l.ReadMiBs != 1 || len(findings(an, "disk-bound")) == 0 {
		t.Errorf("the limit is lost: %+v %v", l, ok)
	}
	if an.Setups[0].Sample.String() != "50ms" || len(an.Setups[0].Tests) != 5 || an.Setups[0].Tests[0].ExpectPlan == "" {
		t.Errorf("the study's sample %v and tests %+v", an.Setups[0].Sample, an.Setups[0].Tests)
	}
}

// TestSettingsPerHost: in a fleet (the sample as two hosts), the settings
// that differ without weight are one finding per host, naming its host
// and each setting once.
func TestSettingsPerHost(t *testing.T) {
	var inputs []analyze.Input
	for range 2 {
		r, err := samples.Example()
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, analyze.Input{Name: "sample", Reader: r})
	}
	a, err := analyze.Analyze(inputs, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]int{}
	for _, f := range a.Findings {
		if f.Guard != "settings" || !strings.Contains(f.Message, "other setting(s) differ") {
			continue
		}
		hosts[f.Host]++
		_, list, _ := strings.Cut(f.Message, "): ")
		names := strings.Split(list, ", ")
		if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
			t.Errorf("host %q: a setting listed twice: %s", f.Host, list)
		}
	}
	if len(hosts) != 2 || hosts[a.Hosts[0]] != 1 || hosts[a.Hosts[1]] != 1 {
		t.Errorf("minor settings findings by host %v, want one for each of %q", hosts, a.Hosts)
	}
}
