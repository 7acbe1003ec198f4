package analyze_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestPlantedCeilingFell: a study that declares no limit, on a disk of the
// test's own whose reads the kernel throttles (the server and the
// collector in the group), measures the device at 32 MiB/s before the
// first run; the first cold step lowers the throttle to 12, as a burst
// allowance running out would, and the calibration after the last run
// measures that. The fall is a finding naming both measurements, the
// scans are said to be bounded without a declared limit (the last run by
// the ceiling measured after it), and the ceilings table holds both.
func TestPlantedCeilingFell(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 256)
	throttle := pgtest.NewThrottle(t, disk)
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	loadAccounts(t, pg)
	const high, low = 32, 12
	throttle.SetRead(t, high<<20)
	throttle.Join(t)
	rule, line := throttle.ReadRule(strconv.Itoa(low << 20))
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
  rounds: 3
  cold: [stop-all, drop-caches, {sh: 'echo "%s" > %s'}, start, wait-ready 1m]
  calibrate: {duration: 2s, size_mib: 64}
disk:
  sample: 200ms
`, pg.DSN(), throttle.StartCmd(t, pg), pg.StopCmd(), line, rule)
	a := analyse(t, collectStudy(t, study), analyze.Options{})
	if len(a.Ceilings) != 2 {
		t.Fatalf("%d ceilings, want 2: %+v", len(a.Ceilings), a.Ceilings)
	}
	for i, want := range []float64{high, low} {
		c := a.Ceilings[i]
		if c.SeqMiBs == nil || c.RandomIOPS == nil || c.Device != disk.Device {
			t.Fatalf("ceiling %d: %+v", i, c)
		}
		t.Logf("ceiling %s: %.1f MiB/s sequential, %.0f IOPS random (%.1f MiB/s), the device read %.1f MiB/s; throttled to %.0f",
			c.Phase, *c.SeqMiBs, *c.RandomIOPS, *c.RandomMiBs, *c.DeviceSeqMiBs, want)
		if *c.SeqMiBs < 0.85*want || *c.SeqMiBs > 1.15*want {
			t.Errorf("ceiling %s: %.1f MiB/s, not within 15%% of the throttle's %.0f", c.Phase, *c.SeqMiBs, want)
		}
	}
	var fell []string
	for _, f := range findings(a, "ceiling") {
		if f.Severity == analyze.Warning && strings.Contains(f.Message, "sequential read ceiling of "+disk.Device+" fell") {
			fell = append(fell, f.Message)
		}
	}
	if len(fell) != 1 || !strings.Contains(fell[0], "before the first run") || !strings.Contains(fell[0], "after the last run") {
		t.Errorf("the fall: %q; want one finding naming both measurements", fell)
	}
	var bounded []int64
	for _, f := range findings(a, "disk-bound") {
		if f.Severity == analyze.Info && strings.Contains(f.Message, "the ceiling measured after the last run") {
			bounded = append(bounded, f.Runs...)
		}
	}
	if !slices.Contains(bounded, 3) || slices.Contains(bounded, 1) {
		t.Errorf("bounded by the last ceiling: runs %v; want run 3 (nearest it), not run 1 (nearest the first, at %d MiB/s)", bounded, high)
	}
	if len(a.Disks) != 1 || a.Disks[0].Bounded == nil || *a.Disks[0].Bounded < 1 {
		t.Errorf("disk: %+v; want bounded known (a measured ceiling) and at least 1", a.Disks)
	}
	var names []string
	for _, tb := range a.Tables() {
		names = append(names, tb.Name)
		if tb.Name == "ceilings" && len(tb.Rows) != 2 {
			t.Errorf("the ceilings table has %d rows", len(tb.Rows))
		}
	}
	if !slices.Contains(names, "ceilings") {
		t.Errorf("tables %v: no ceilings", names)
	}
}
