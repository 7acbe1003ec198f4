package analyze_test

// Studies each with a mistake planted (an order effect, drift, spread,
// autovacuum, a device limit), collected against real servers: the guard
// that catches the mistake must fire, and only it. The helpers are in
// capture_test.go.

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// planted is a test of known times: sql is the pg_sleep argument as a
// formula of r (the round), b (1 on configuration b, 0 on a) and p (the
// position in the round), and seconds the same formula in Go.
type planted struct {
	sql     string
	seconds func(r, b, p int) float64
}

// sleepStudy is two configurations of one server whose statements sleep
// as a formula of the round and the configuration says, through a table
// the before statement fills: times known in advance, with no cold steps.
func sleepStudy(c *pgtest.Cluster, rounds int, tests map[string]planted) string {
	s := "configs:\n" + config("a", c, "") + config("b", c, "") + "tests:\n"
	names := make([]string, 0, len(tests))
	for n := range tests {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		// r is the round, b is 1 on configuration b and 0 on a, p the
		// position in the round (rotation: a first in odd rounds).
		s += fmt.Sprintf(`  - name: %s
    before: [truncate knob, "insert into knob values ({{.Round}}, '{{.Config}}')"]
    sql: select pg_sleep(%s) from (select round as r, (config = 'b')::int as b, case when (round %% 2 = 1) = (config = 'a') then 1 else 2 end as p from knob) k
`, n, tests[n].sql)
	}
	return s + fmt.Sprintf("protocol:\n  rounds: %d\n  explain: false\n", rounds)
}

// plantedMargin is how far the machine's own latency (client, scheduler,
// server) may move what the guards compare before the planted times no
// longer hold: the medians of each position and of each third of the runs
// in time order, of the time added to each run, as a share of the test's
// shortest planted sleep. The guards' smallest
// effects are 5% (position) and 10% (drift); 3% of shift cannot make a
// finding the test did not plant. One slow run (a busy machine's spike)
// moves no median.
const plantedMargin = 0.03

// checkPlanted fails the test, saying so, when a run took less than its
// planted sleep (the plant did not work) or when the machine's added time,
// relative to each planted sleep, differs between positions or between
// thirds of the study by more than plantedMargin: then the machine's own
// noise, not the plant, is what the guards would read.
func checkPlanted(t *testing.T, a *analyze.Analysis, tests map[string]planted) {
	t.Helper()
	byTest := map[string][]*analyze.Run{}
	for _, r := range a.Runs {
		byTest[r.Test] = append(byTest[r.Test], r)
	}
	for name, runs := range byTest {
		pt, ok := tests[name]
		if !ok {
			t.Fatalf("test %s: not planted", name)
		}
		slices.SortFunc(runs, func(x, y *analyze.Run) int { return x.Seq - y.Seq })
		planted := func(r *analyze.Run) float64 {
			b := 0
			if r.Config == "b" {
				b = 1
			}
			return 1000 * pt.seconds(r.Round, b, r.Position)
		}
		// Shares of the test's shortest sleep: a delay the machine adds to
		// every run alike moves no difference the guards compare.
		shortest := math.Inf(1)
		for _, r := range runs {
			shortest = min(shortest, planted(r))
		}
		rel := make([]float64, len(runs))
		groups := map[string][]float64{}
		for i, r := range runs {
			want := planted(r)
			if !r.HasTime || r.TimeMs < want {
				t.Fatalf("run %d (%s on %s, round %d, position %d) took %.1f ms, less than its planted sleep of %.1f ms: the plant did not work",
					r.RunID, r.Test, r.Config, r.Round, r.Position, r.TimeMs, want)
			}
			rel[i] = (r.TimeMs - want) / shortest
			groups[fmt.Sprintf("position %d", r.Position)] = append(groups[fmt.Sprintf("position %d", r.Position)], rel[i])
			third := fmt.Sprintf("third %d", 1+3*i/len(runs))
			groups[third] = append(groups[third], rel[i])
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		var loName, hiName string
		for g, xs := range groups {
			slices.Sort(xs)
			m := xs[len(xs)/2]
			if m < lo {
				lo, loName = m, g
			}
			if m > hi {
				hi, hiName = m, g
			}
		}
		t.Logf("planted %s: the machine added %.2f%% (%s) to %.2f%% (%s) of the shortest sleep, by median", name, 100*lo, loName, 100*hi, hiName)
		if hi-lo > plantedMargin {
			t.Fatalf("test %s: the machine added %.1f%% more to its sleeps in %s than in %s, more than the %.0f%% the plant allows: "+
				"the machine's noise, not the plant, would be what the guards read", name, 100*(hi-lo), hiName, loName, 100*plantedMargin)
		}
	}
}

// TestPlantedOrderDriftSpread: one test is slow in the first position of
// each round whatever the configuration; one drifts slower round after
// round; on one, b is 10% slower than a but the rounds spread over ±30%,
// so the difference is within the noise; one is clean. The sleeps are of
// a few hundred milliseconds, so that a busy machine's few milliseconds of
// latency stay well inside the guards' thresholds; checkPlanted asserts
// they did before any guard is looked at.
//
// The server's data is on a disk of the test's own: the device guards read
// the disk's counters, and another process reading the machine's disk
// would show there as the device's throughput drifting.
func TestPlantedOrderDriftSpread(t *testing.T) {
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(pgtest.PrivateDisk(t, 256)))
	loadAccounts(t, pg)
	const u = 0.3 // seconds: the unit of every planted sleep
	spread := []float64{1.0, 1.6, 1.2, 1.4, 0.9, 1.5, 1.1, 1.3}
	tests := map[string]planted{
		"order": {"0.3 * case when p = 1 then 2 else 1 end", func(r, b, p int) float64 {
			if p == 1 {
				return 2 * u
			}
			return u
		}},
		"drift":  {"0.3 * (1 + 0.3 * r)", func(r, b, p int) float64 { return u * (1 + 0.3*float64(r)) }},
		"spread": {"0.3 * (array[1.0, 1.6, 1.2, 1.4, 0.9, 1.5, 1.1, 1.3])[r] * (1 + 0.10 * b)", func(r, b, p int) float64 { return u * spread[r-1] * (1 + 0.10*float64(b)) }},
		"steady": {"0.3 * (1 + b)", func(r, b, p int) float64 { return u * float64(1+b) }},
	}
	a := analyse(t, collectStudy(t, sleepStudy(pg, 8, tests)), analyze.Options{})
	checkPlanted(t, a, tests)

	guarded := func(guard string, sev analyze.Severity) []string {
		var ts []string
		for _, f := range findings(a, guard) {
			if f.Severity == sev {
				ts = append(ts, f.Test)
			}
		}
		slices.Sort(ts)
		return ts
	}
	if got := guarded("position", analyze.Warning); !slices.Equal(got, []string{"order"}) {
		t.Errorf("position warnings on %v, want [order]", got)
	}
	if got := guarded("drift", analyze.Warning); !slices.Equal(got, []string{"drift"}) {
		t.Errorf("drift warnings on %v, want [drift]", got)
	}
	if got := guarded("spread", analyze.Warning); !slices.Equal(got, []string{"spread"}) {
		t.Errorf("spread warnings on %v, want [spread]", got)
	}
	// A trend is cut into steps too: the drifting test may have a change
	// point, and only it. Eight rounds of ±30% cannot decide a 5%
	// difference: the rounds guard says how many would, as context.
	for _, f := range a.Findings {
		switch {
		case f.Guard == "change-point" && f.Test == "drift":
		case f.Guard == "rounds" && f.Severity == analyze.Info:
		case !slices.Contains([]string{"position", "drift", "spread"}, f.Guard) || f.Severity == analyze.Error:
			t.Errorf("unexpected finding: %s %s: %s", f.Severity, f.Guard, f.Message)
		}
	}
	// steady: b is 2x a in every round, significant (p < 0.05 after Holm).
	for _, tm := range a.Timings {
		if tm.Test == "steady" && tm.Config == "b" {
			if tm.Compare == nil || !tm.Compare.Significant || tm.Compare.Ratio < 1.8 || tm.Compare.Ratio > 2.2 {
				t.Errorf("steady b against a: %+v", tm.Compare)
			}
		}
	}
}

// TestPlantedAutovacuum: autovacuum runs every second and a before
// statement leaves dead rows; the timed statement waits until autovacuum
// has worked on the table (up to 30 s, then the run fails saying so), so
// that it runs during the statement however long the machine takes to
// start it. The count it waits to see rise is read before the rows die,
// so an autovacuum that ends before the statement begins is seen too.
func TestPlantedAutovacuum(t *testing.T) {
	pg := pgtest.Start(t, 17, pgtest.WithSettings(map[string]string{"autovacuum_naptime": "1s",
		"autovacuum_vacuum_threshold": "0", "autovacuum_vacuum_scale_factor": "0", "autovacuum_analyze_threshold": "0",
		"autovacuum_analyze_scale_factor": "0"}))
	loadAccounts(t, pg)
	study := "configs:\n" + config("pg17", pg, "") + `
tests:
  - name: wait
    before:
      - create table if not exists av0 (n bigint)
      - truncate av0
      - insert into av0 select autovacuum_count + autoanalyze_count from pg_stat_user_tables where relname = 'accounts'
      - update accounts set bid = bid + 1 where aid <= 50000
    sql: >-
      do $$ declare
        n0 bigint := (select n from av0);
        deadline timestamptz := clock_timestamp() + interval '30 s';
      begin
        loop
          perform pg_stat_clear_snapshot();
          exit when (select autovacuum_count + autoanalyze_count from pg_stat_user_tables where relname = 'accounts') > n0;
          if clock_timestamp() > deadline then
            raise exception 'the plant did not work: autovacuum did not work on accounts within 30 s';
          end if;
          perform pg_sleep(0.05);
        end loop;
      end $$
protocol:
  rounds: 2
  explain: false
`
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	// The plant: autovacuum worked on the server during some run.
	if !slices.ContainsFunc(a.Runs, func(r *analyze.Run) bool { return r.Autovacuums > 0 || len(r.Others) > 0 }) {
		t.Fatal("no run saw autovacuum at work (an autovacuum that ended between the before statements and the run?): the plant did not take effect")
	}
	f := findings(a, "activity")
	if len(f) != 1 || len(f[0].Runs) == 0 || !strings.Contains(f[0].Message, "autovacuum") {
		t.Errorf("activity: %+v", f)
	}
}

// TestPlantedDiskLimitAndDrift throttles the server's reads the way a
// cloud volume does (a blkio cgroup: the kernel's own limit), lowering the
// limit run after run as a burst allowance running out would: the device's
// throughput drifts down and the last runs sit at the limit the study gives.
// The server's data is on a disk of the test's own (a loop device), so
// nothing else the machine reads counts in its figures, and the throttle
// is checked to have taken effect before any guard is looked at.
func TestPlantedDiskLimitAndDrift(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 256)
	throttle := pgtest.NewThrottle(t, disk)
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	loadAccounts(t, pg)
	if dev := dataDevice(t, pg); dev != disk.Device {
		t.Fatalf("the data directory is on %s, not on the test's own disk %s", dev, disk.Device)
	}
	// Each run's limit: 64 MiB/s, then 8 MiB/s less each run, down to 8,
	// set by a cold step.
	limit := func(run int64) float64 { return float64(64 - 8*(run-1)) }
	dir := t.TempDir()
	lower := filepath.Join(dir, "throttle.sh")
	rule, line := throttle.ReadRule("$(( (64 - 8 * n) * 1048576 ))")
	os.WriteFile(lower, []byte(fmt.Sprintf(`n=$(cat %[1]s/n 2>/dev/null || echo 0)
echo $((n + 1)) > %[1]s/n
echo "%[2]s" > %[3]s
`, dir, line, rule)), 0o755)
	study := fmt.Sprintf(`configs:
  - name: pg17
    dsn: %s
    start: %s
    stop: %s
tests:
  - name: seqscan
    set: {enable_indexscan: off, enable_indexonlyscan: off, enable_bitmapscan: off, max_parallel_workers_per_gather: 0}
    sql: select count(*), sum(bid) from accounts
protocol:
  rounds: 8
  cold: [stop-all, drop-caches, {sh: sh %s}, start, wait-ready 1m]
disk:
  sample: 200ms
  limits: {%s: {read_mib_s: 8}}
`, pg.DSN(), throttle.StartCmd(t, pg), pg.StopCmd(), lower, disk.Device)
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	checkThrottled(t, a, limit, disk.Device)
	var device, times bool
	for _, f := range findings(a, "drift") {
		device = device || f.Test == "" && strings.Contains(f.Message, "read throughput drifted") && strings.Contains(f.Message, "burst allowance")
		times = times || f.Test == "seqscan" && strings.Contains(f.Message, "times of seqscan drifted")
	}
	if !device || !times {
		t.Errorf("drift of the device %v, of the times %v: %+v", device, times, findings(a, "drift"))
	}
	var bounded, above []int64
	for _, f := range findings(a, "disk-bound") {
		if f.Severity == analyze.Info {
			bounded = append(bounded, f.Runs...)
		} else {
			above = append(above, f.Runs...)
		}
	}
	if !slices.Contains(bounded, 8) || !slices.Contains(above, 1) || slices.Contains(bounded, 1) {
		t.Errorf("bounded %v, above %v; want run 8, throttled to the study's 8 MiB/s, bounded, and run 1, at 64, above", bounded, above)
	}
	// The last run, throttled to the limit, is bounded by it; the first,
	// at three times the limit, is said to be above it.
	if len(a.Disks) != 1 || a.Disks[0].Bounded == nil || *a.Disks[0].Bounded < 1 {
		t.Errorf("disk: %+v", a.Disks)
	}
}

// checkThrottled checks the plant of TestPlantedDiskLimitAndDrift: every
// run read the table from the disk no faster than its throttle allows,
// and the last (3 s at 8 MiB/s) at its throttle. The kernel lets a burst
// through at the start of a throttled read (measured here: run 1,
// throttled to 64 MiB/s, read 24.5 MiB in 0.2 s, 12 MiB more than the
// limit allows), so each run is held to its limit plus throttleBurst over
// its time.
func checkThrottled(t *testing.T, a *analyze.Analysis, limit func(int64) float64, device string) {
	t.Helper()
	if len(a.Runs) != 8 {
		t.Fatalf("%d runs, want 8", len(a.Runs))
	}
	const throttleBurst = 16 << 20 // bytes
	for _, r := range a.Runs {
		if r.Disk == nil || r.Disk.ReadBytes < 15<<20 {
			t.Fatalf("run %d read %v from %s: the cold steps did not make the scan read the table from the disk", r.RunID, r.Disk, device)
		}
		mibs := r.Disk.RKiBPerS / 1024
		t.Logf("run %d: %.1f MiB/s over %.2f s, throttled to %.0f", r.RunID, mibs, r.Disk.Seconds, limit(r.RunID))
		if most := 1.1*limit(r.RunID) + throttleBurst/float64(1<<20)/r.Disk.Seconds; mibs > most {
			t.Fatalf("run %d read at %.1f MiB/s, above the %.1f its throttle of %.0f MiB/s allows with the kernel's burst: the throttle did not take effect",
				r.RunID, mibs, most, limit(r.RunID))
		}
		if r.RunID == 8 && (mibs < 0.85*limit(8) || mibs > 1.15*limit(8)) {
			t.Fatalf("run 8 read at %.1f MiB/s, not at its throttle of %.0f MiB/s: the throttle did not take effect, or the disk could not deliver even that (a busy machine?)", mibs, limit(8))
		}
	}
}
