package analyze_test

// Mistakes of design planted in real captures (issue 16): an order that
// confounds the configurations with the position in the round, copies of
// one setup that differ, a burst allowance used up partway through, a
// read test run after a writing one, a throughput test with autovacuum.
// Each must be named by its guard with its cause, and the clean controls
// (the same plant in a balanced order) must raise no error.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// seqscanTest is a cold sequential scan of loadAccounts' table, the test
// the throttle plants act on.
const seqscanTest = `  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off, max_parallel_workers_per_gather: 0}
    sql: select count(*), sum(bid) from accounts
`

// throttledServer is a PostgreSQL 17 server with loadAccounts' table on a
// disk of the test's own, started in a group whose reads of that disk a
// study's steps can throttle: the file to write, and its lines for 12
// MiB/s and for no limit.
func throttledServer(t *testing.T) (pg *pgtest.Cluster, th *pgtest.Throttle, file, slow, fast string) {
	disk := pgtest.PrivateDisk(t, 256)
	th = pgtest.NewThrottle(t, disk)
	pg = pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	loadAccounts(t, pg)
	file, slow = th.ReadRule(fmt.Sprint(12 << 20))
	_, fast = th.ReadRule("0")
	return pg, th, file, slow, fast
}

// positionThrottle is a cold step that throttles the server's reads to
// 12 MiB/s when the run about to start holds position 1 or 4 of a round
// of four configurations, and lifts the throttle otherwise: a disk that
// is slow at some points of the round, whatever configuration runs there.
// It counts the runs itself (the study runs one test).
func positionThrottle(t *testing.T, file, slowLine, fastLine string) string {
	dir := t.TempDir()
	script := filepath.Join(dir, "position.sh")
	text := fmt.Sprintf(`n=$(cat %[1]s/n 2>/dev/null || echo 0)
n=$((n + 1)); echo $n > %[1]s/n
case $(( (n - 1) %% 4 + 1 )) in
  1|4) echo "%[2]s" > %[3]s ;;
  *) echo "%[4]s" > %[3]s ;;
esac
`, dir, slowLine, file, fastLine)
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + script
}

// copiesStudy is four configurations of one PostgreSQL 17 server (copies
// of one setup in everything the analysis can see), a cold sequential
// scan, and the position throttle.
func copiesStudy(t *testing.T, order string, rounds int) string {
	pg, th, file, slow, fast := throttledServer(t)
	var configs string
	for _, n := range []string{"p17a", "p17b", "p17c", "p17d"} {
		configs += fmt.Sprintf("  - {name: %s, dsn: '%s', start: '%s', stop: '%s'}\n", n, pg.DSN(), th.StartCmd(t, pg), pg.StopCmd())
	}
	return fmt.Sprintf(`configs:
%s
tests:
%s    expect_plan: Seq Scan
protocol:
  rounds: %d
  order: %s
  cold: [stop-all, drop-caches, {sh: %s}, start, wait-ready 1m]
`, configs, seqscanTest, rounds, order, positionThrottle(t, file, slow, fast))
}

// checkPositionPlant: the throttled positions were slower, so the plant
// took effect and the guards have something to find.
func checkPositionPlant(t *testing.T, a *analyze.Analysis) {
	t.Helper()
	var slow, fast []float64
	for _, r := range a.Runs {
		if r.Position == 1 || r.Position == 4 {
			slow = append(slow, r.TimeMs)
		} else {
			fast = append(fast, r.TimeMs)
		}
	}
	slices.Sort(slow)
	slices.Sort(fast)
	if len(slow) == 0 || len(fast) == 0 || slow[0] < 1.3*fast[len(fast)-1] {
		t.Fatalf("the throttled positions took %v ms, the others %v: the plant did not take effect", slow, fast)
	}
}

// TestPlantedFixedOrder: four copies of one server run in a fixed order,
// with the disk slower at positions 1 and 4: the copies differ by the
// position alone, and check must say that the order makes configuration
// and position impossible to tell apart (an error), and that copies of
// one setup differ (an error); the position guard, which normalises by
// configuration, cannot see it, which is why the order guard exists.
func TestPlantedFixedOrder(t *testing.T) {
	dir := collectStudy(t, copiesStudy(t, "fixed", 5))
	a := analyse(t, dir, analyze.Options{})
	checkPositionPlant(t, a)
	order := findings(a, "order")
	if len(order) != 1 || order[0].Severity != analyze.Error || order[0].Test != "seqscan" ||
		!strings.Contains(order[0].Message, "always ran in the same position of the round (p17a at position 1 in 5 of 5") ||
		!strings.Contains(order[0].Message, "Cramér's V 1.00") || !strings.Contains(order[0].Message, "order: rotate") {
		t.Errorf("order: %+v", order)
	}
	control := findings(a, "control")
	var copies []string
	for _, f := range control {
		// Copies the analysis found (not declared) differing: a warning.
		if f.Severity == analyze.Warning && strings.Contains(f.Message, "identical to it in server, data, settings, device and plan") {
			copies = append(copies, f.Config)
		}
	}
	// p17b and p17c ran unthrottled against p17a's throttled position 1.
	if !slices.Contains(copies, "p17b") || !slices.Contains(copies, "p17c") {
		t.Errorf("control warnings on %v, want p17b and p17c: %+v", copies, control)
	}
	for _, tm := range a.Timings {
		if tm.Config != "p17a" && (tm.Compare == nil || tm.Compare.Verdict.Word != "control") {
			t.Errorf("%s against p17a, its copy: verdict %+v, want control", tm.Config, tm.Compare)
		}
	}
	if a.Errors() == 0 {
		t.Error("check would pass")
	}
	// A user who knows the copies differ in what the capture cannot show
	// turns the recognition off; the order error stays.
	d := analyse(t, dir, analyze.Options{Controls: "declared"})
	if len(d.Noise) != 0 || len(findings(d, "control")) != 0 || len(findings(d, "order")) != 1 {
		t.Errorf("--controls declared: noise %+v, findings %+v", d.Noise, d.Findings)
	}
}

// TestBalancedOrderControl is the clean control of TestPlantedFixedOrder:
// the same copies and the same slow positions, in a rotating order over
// four rounds. The position guard names the positions; no error is
// raised, as every configuration met every position once.
func TestBalancedOrderControl(t *testing.T) {
	a := analyse(t, collectStudy(t, copiesStudy(t, "rotate", 4)), analyze.Options{})
	checkPositionPlant(t, a)
	for _, f := range a.Findings {
		if f.Severity == analyze.Error {
			t.Errorf("error in a balanced study: %s: %s", f.Guard, f.Message)
		}
	}
	if len(findings(a, "order")) != 0 {
		t.Errorf("order: %+v", findings(a, "order"))
	}
	if p := findings(a, "position"); len(p) != 1 || !strings.Contains(p[0].Message, "position 1: +") {
		t.Errorf("position: %+v", p)
	}
}

// TestPlantedAAControl: a configuration the study declares a copy of
// another (same_as) whose server is started in a throttled group: the two
// differ though they should not, and check fails saying the setup, not
// the configuration, moves the times.
func TestPlantedAAControl(t *testing.T) {
	pg, th, slow, slowLine, fastLine := throttledServer(t)
	study := fmt.Sprintf(`configs:
  - {name: a, dsn: '%[1]s', start: 'echo "%[4]s" > %[3]s && %[2]s', stop: '%[5]s'}
  - {name: b, dsn: '%[1]s', start: 'echo "%[6]s" > %[3]s && %[2]s', stop: '%[5]s', same_as: a}
tests:
%[7]sprotocol:
  rounds: 4
  cold: [stop-all, drop-caches, start, wait-ready 1m]
`, pg.DSN(), th.StartCmd(t, pg), slow, fastLine, pg.StopCmd(), slowLine, seqscanTest)
	dir := collectStudy(t, study)
	a := analyse(t, dir, analyze.Options{})
	control := findings(a, "control")
	if len(control) != 1 || control[0].Severity != analyze.Error || control[0].Config != "b" ||
		!strings.Contains(control[0].Message, "which the study declares a copy of it (same_as)") || !strings.Contains(control[0].Message, "the setup, not the configuration") {
		t.Errorf("control: %+v", control)
	}
	if len(a.Noise) != 1 || a.Noise[0].How != "declared" || a.Noise[0].Ratio() < 1.3 {
		t.Errorf("noise floor: %+v", a.Noise)
	}
	// Over 3 rounds the copies cannot be tested: no control error, but the
	// rounds guard says the noise floor is unknown (found by an outsider).
	few := analyse(t, dir, analyze.Options{LastRound: 3})
	var said bool
	for _, f := range findings(few, "rounds") {
		said = said || f.Severity == analyze.Warning && strings.Contains(f.Message, "noise floor is unknown") && strings.Contains(f.Message, "seqscan on b against a")
	}
	if !said || len(findings(few, "control")) != 0 {
		t.Errorf("3 rounds of copies: %+v", few.Findings)
	}
}

// TestPlantedBurst: a cloud volume's burst allowance used up partway
// through the study, planted as a throttle a cold step switches on from
// run 13 of 16: a step, not a trend. The change-point guard names run 13,
// the size of the step and the --exclude that leaves runs 13-16 out.
// The burst starts late so that the runs before it stay the longest
// level even when the guard also finds a small step of noise among them
// (a burst from run 9 tied the two levels, and a +12% step in runs 1-8
// made the throttled runs the longest).
func TestPlantedBurst(t *testing.T) {
	pg, th, slow, slowLine, fastLine := throttledServer(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "burst.sh")
	os.WriteFile(script, []byte(fmt.Sprintf(`n=$(cat %[1]s/n 2>/dev/null || echo 0)
n=$((n + 1)); echo $n > %[1]s/n
if [ $n -ge 13 ]; then echo "%[2]s" > %[3]s; else echo "%[4]s" > %[3]s; fi
`, dir, slowLine, slow, fastLine)), 0o755)
	study := fmt.Sprintf(`configs:
  - {name: a, dsn: '%[1]s', start: '%[2]s', stop: '%[3]s'}
  - {name: b, dsn: '%[1]s', start: '%[2]s', stop: '%[3]s', settings: {work_mem: 8MB}}
tests:
%[5]sprotocol:
  rounds: 8
  cold: [stop-all, drop-caches, {sh: sh %[4]s}, start, wait-ready 1m]
`, pg.DSN(), th.StartCmd(t, pg), pg.StopCmd(), script, seqscanTest)
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	var times, device bool
	for _, f := range findings(a, "change-point") {
		if f.Config != "" {
			continue // each configuration's own runs: 8, a step at their seventh, shorter than a level
		}
		// Runs 13-16 off the main level, and any level of noise before
		// them that differs from it by 10% or more.
		ok := len(f.Runs) >= 4 && slices.Equal(f.Runs[len(f.Runs)-4:], []int64{13, 14, 15, 16}) &&
			strings.Contains(f.Message, "--exclude run=13-16")
		// The step: times up by 100% or more, throughput down by 50% or more.
		times = times || ok && f.Test == "seqscan" && burstStep(`\+\d{3,}`).MatchString(f.Message)
		device = device || ok && f.Test == "" && strings.Contains(f.Message, "the device's read throughput") &&
			burstStep(`-[5-9]\d\.`).MatchString(f.Message)
	}
	if !times || !device {
		t.Errorf("change points: times %v, device %v: %+v", times, device, findings(a, "change-point"))
	}
	for _, f := range a.Findings {
		if f.Severity == analyze.Error {
			t.Errorf("error: %s: %s", f.Guard, f.Message)
		}
	}
}

// burstStep matches the planted burst's step at run 13 by the given size.
func burstStep(size string) *regexp.Regexp {
	return regexp.MustCompile(`from run 13 \(round 7, started [^)]*\) by ` + size)
}

// TestPlantedReadAfterWrite: a read test placed after a vacuum (whose
// before statement updates rows) in every round reads what the vacuum
// left; the order guard says so, naming both tests.
func TestPlantedReadAfterWrite(t *testing.T) {
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"))
	loadAccounts(t, pg)
	study := "configs:\n" + config("a", pg, "") + config("b", pg, "    settings: {work_mem: 8MB}\n") + `
tests:
  - name: vac
    before: update accounts set v = v + 1 where aid <= 20000
    sql: vacuum accounts
  - name: scan
    sql: select count(*) from accounts where v >= 0
protocol:
  rounds: 3
  explain: false
`
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	var got []analyze.Finding
	for _, f := range findings(a, "order") {
		if f.Test == "scan" && strings.Contains(f.Message, "every run of scan came after a run of vac on the same configuration in the same round, and vac writes (its statement (vacuum))") {
			got = append(got, f)
		}
	}
	if len(got) != 1 || len(findings(a, "order")) != 1 {
		t.Errorf("order: %+v", findings(a, "order"))
	}
}

// TestThroughputGuards: a pgbench test that writes, with autovacuum
// woken every second and no threshold, in a fixed order: the throughput
// runs get the guards the timed runs get (autovacuum during the run, the
// order of the configurations), and their comparisons a verdict.
func TestThroughputGuards(t *testing.T) {
	pg := pgtest.Start(t, 17, pgtest.WithSettings(map[string]string{"autovacuum_naptime": "1s",
		"autovacuum_vacuum_threshold": "0", "autovacuum_vacuum_scale_factor": "0", "autovacuum_analyze_threshold": "0",
		"autovacuum_analyze_scale_factor": "0"}))
	if out, err := exec.Command(pg.Pgbench(), "-i", "-s", "1", "-q", pg.DSN()).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	study := "configs:\n" + config("a", pg, "") + config("b", pg, "    settings: {work_mem: 8MB}\n") + `
tests:
  - name: tpcb
    pgbench: -N
    duration: 3s
protocol:
  rounds: 3
  order: fixed
`
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	if av := findings(a, "activity"); len(av) == 0 || av[0].Test != "tpcb" {
		t.Errorf("activity: %+v", av)
	}
	if o := findings(a, "order"); len(o) != 1 || !strings.Contains(o[0].Message, "queries per second") {
		t.Errorf("order: %+v", o)
	}
	for _, g := range a.Throughputs {
		if g.Config == "b" && (g.Compare == nil || g.Compare.Verdict.Word != "untested") {
			t.Errorf("b against a with 3 runs a side: %+v, want untested", g.Compare)
		}
	}
}
