package collect_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// TestCalibrateThrottled measures a device whose reads the kernel holds
// to a rate (a blkio throttle on a disk of the test's own, the collector
// itself in the throttled group): the sequential ceiling measured before
// the first run is within 15% of the throttle, and the one after the last,
// once a cold step has lowered the throttle, within 15% of the lower one.
// The file is removed, and /proc/diskstats around each pattern saw the
// device read what the calibration counted.
func TestCalibrateThrottled(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 256)
	th := pgtest.NewThrottle(t, disk)
	pg := pgtest.Start(t, 17, pgtest.OnDisk(disk))
	const first, last = 32 << 20, 12 << 20
	th.SetRead(t, first)
	th.Join(t)
	rule, line := th.ReadRule(strconv.Itoa(last))
	study := writeStudy(t, fmt.Sprintf(`
configs:
  - name: pg17
    dsn: %s
tests:
  - name: one
    sql: select 1
protocol:
  rounds: 2
  cold: [{sh: 'echo "%s" > %s'}]
  calibrate: {duration: 2s, size_mib: 64}
`, pg.DSN(), line, rule))
	rows := collectCalibrations(t, study)
	if len(rows) != 6 {
		t.Fatalf("%d calibration rows, want 6 (write, sequential, random; at the start and at the end): %+v", len(rows), rows)
	}
	datadir := pg.SQL(t, "show data_directory")
	for i, r := range rows {
		phase, limit := "start", float64(first)
		if i >= 3 {
			phase, limit = "end", float64(last)
		}
		pattern := []string{"write", "sequential", "random"}[i%3]
		if r.Phase != phase || r.Pattern != pattern || r.Seq != int32(i+1) || r.Error != "" || r.Bytes == nil || r.Requests == nil {
			t.Fatalf("row %d: %s %s seq %d error %q, want %s %s", i, r.Phase, r.Pattern, r.Seq, r.Error, phase, pattern)
		}
		if r.Device != disk.Device || r.Configs != "pg17" || filepath.Dir(r.File) != filepath.Dir(datadir) || r.FileSize != 64<<20 {
			t.Errorf("row %d: device %s configs %s file %s (%d bytes); want %s, pg17, beside %s", i, r.Device, r.Configs, r.File, r.FileSize, disk.Device, datadir)
		}
		secs := float64(r.ElapsedNs) / 1e9
		rate := float64(*r.Bytes) / secs
		read := deviceRead(t, r.DiskstatsAfter, disk.Device) - deviceRead(t, r.DiskstatsBefore, disk.Device)
		t.Logf("%s %s: %d requests of %d bytes, %d in flight, %.1f MiB/s over %.2f s (throttle %.0f MiB/s); the device read %.1f MiB",
			r.Phase, r.Pattern, *r.Requests, r.BlockSize, r.Depth, rate/(1<<20), secs, limit/(1<<20), float64(read)/(1<<20))
		if pattern == "write" {
			continue
		}
		if *r.Bytes != *r.Requests*r.BlockSize {
			t.Errorf("row %d: %d bytes in %d requests of %d", i, *r.Bytes, *r.Requests, r.BlockSize)
		}
		if rate < 0.85*limit || rate > 1.15*limit {
			t.Errorf("%s %s: %.1f MiB/s, not within 15%% of the throttle's %.0f", phase, pattern, rate/(1<<20), limit/(1<<20))
		}
		if float64(read) < float64(*r.Bytes) || float64(read) > 1.05*float64(*r.Bytes)+1<<20 {
			t.Errorf("%s %s: the device read %d bytes, the calibration %d", phase, pattern, read, *r.Bytes)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(datadir), ".pgstudy-calibrate-*"))
	if len(left) > 0 {
		t.Errorf("calibration files left: %v", left)
	}
}

// deviceRead is the bytes read of a device in a /proc/diskstats copy.
func deviceRead(t *testing.T, text, device string) int64 {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) > 5 && f[2] == device {
			n, err := strconv.ParseInt(f[5], 10, 64)
			if err != nil {
				t.Fatalf("diskstats line %q: %v", line, err)
			}
			return n * 512
		}
	}
	t.Fatalf("no line of %s in the diskstats copy", device)
	return 0
}

// collectCalibrations collects a study and returns its calibration rows.
func collectCalibrations(t *testing.T, study string) []samples.Calibration {
	t.Helper()
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	return read[samples.Calibration](t, r)
}

// TestCollectWithoutCalibrate: a study without protocol.calibrate
// measures nothing and writes no part of calibrations.
func TestCollectWithoutCalibrate(t *testing.T) {
	pg := pgtest.Start(t, 17)
	study := writeStudy(t, fmt.Sprintf("configs:\n  - name: pg17\n    dsn: %s\ntests:\n  - name: one\n    sql: select 1\nprotocol:\n  rounds: 1\n", pg.DSN()))
	if rows := collectCalibrations(t, study); len(rows) != 0 {
		t.Errorf("%d calibration rows: %+v", len(rows), rows)
	}
}

// TestCalibrateRefusesWithoutRoom: a calibration file that would leave
// the file system less than 5% free is not made; the collect stops before
// the first run, saying why and what to do, and the capture says so too.
func TestCalibrateRefusesWithoutRoom(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 64)
	study := writeStudy(t, fmt.Sprintf(`
configs:
  - name: nowhere
    dsn: postgres://nobody@127.0.0.1:1/none
tests:
  - name: one
    sql: select 1
protocol:
  rounds: 1
  calibrate: {dir: %s, size_mib: 1024}
`, disk.Dir))
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "size_mib") || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("collect: %v", err)
	}
	if sum == nil || sum.Ran != 0 {
		t.Errorf("summary %+v: no run should have been made", sum)
	}
	t.Log(err)
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	rows := read[samples.Calibration](t, r)
	if len(rows) != 1 || rows[0].Pattern != "none" || rows[0].Bytes != nil || !strings.Contains(rows[0].Error, "refused") || rows[0].Device != disk.Device {
		t.Errorf("calibrations: %+v", rows)
	}
	if entries, _ := os.ReadDir(disk.Dir); len(entries) != 1 || entries[0].Name() != "lost+found" {
		t.Errorf("the disk holds %v", entries)
	}
}

// TestCalibrateResume: a session stopped before its last run measures at
// its start only; the resumed session measures at its start again (the
// device may have changed while the collector was stopped) and after the
// schedule's last run.
func TestCalibrateResume(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 128)
	pg := pgtest.Start(t, 17, pgtest.OnDisk(disk))
	s, err := collect.LoadStudy(writeStudy(t, fmt.Sprintf(`
configs:
  - name: pg17
    dsn: %s
tests:
  - name: one
    sql: select 1
protocol:
  rounds: 2
  calibrate: {duration: 200ms, size_mib: 16, depth: 2}
`, pg.DSN())))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	stop := make(chan struct{})
	close(stop) // stopped before the first run
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test", Stop: stop}); !errors.Is(err, collect.ErrInterrupted) {
		t.Fatalf("first session: %v", err)
	}
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test", Resume: true}); err != nil {
		t.Fatalf("resumed: %v", err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range read[samples.Calibration](t, r) {
		if c.Error != "" || c.Device != disk.Device {
			t.Errorf("session %d %s %s: device %s, error %q", c.Session, c.Phase, c.Pattern, c.Device, c.Error)
		}
		got = append(got, fmt.Sprintf("s%d %s %s", c.Session, c.Phase, c.Pattern))
	}
	want := "s1 start write, s1 start sequential, s1 start random, s2 start write, s2 start sequential, s2 start random, " +
		"s2 end write, s2 end sequential, s2 end random"
	if strings.Join(got, ", ") != want {
		t.Errorf("calibrations:\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
}
