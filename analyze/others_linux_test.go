package analyze_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// TestServerIOAndOthers runs a server in a cgroup of its own (a blkio
// group, its reads throttled to 40 MiB/s so that a cold scan of the
// table lasts long enough to be disturbed) on a disk of the test's own,
// and times a cold sequential scan twice: alone, and with dd reading
// another file of the same disk with O_DIRECT from outside the group all
// along. Alone, the server's reads are the device's and the others guard
// is quiet; disturbed, the server's reads are the same scan's, the
// device's include dd's, and the guard names every run.
func TestServerIOAndOthers(t *testing.T) {
	disk := pgtest.PrivateDisk(t, 320)
	throttle := pgtest.NewThrottle(t, disk)
	throttle.SetRead(t, 40<<20)
	pg := pgtest.Start(t, 17, pgtest.WithSetting("autovacuum", "off"), pgtest.OnDisk(disk))
	loadAccounts(t, pg)
	if dev := dataDevice(t, pg); dev != disk.Device {
		t.Fatalf("the data directory is on %s, not on the test's own disk %s", dev, disk.Device)
	}
	other := filepath.Join(disk.Dir, "other")
	if out, err := exec.Command("dd", "if=/dev/urandom", "of="+other, "bs=1M", "count=64", "conv=fsync", "status=none").CombinedOutput(); err != nil {
		t.Fatalf("dd: %v %s", err, out)
	}
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
  cold: [stop-all, drop-caches, start, wait-ready 1m]
`, pg.DSN(), throttle.StartCmd(t, pg), pg.StopCmd())

	alone := analyse(t, collectStudy(t, study), analyze.Options{})
	checkServerIO(t, alone, throttle.Group)
	for _, r := range alone.Runs {
		if d := r.Disk.ReadBytes - r.Server.ReadBytes; d > 1<<20 || d < -1<<20 {
			t.Errorf("run %d alone: the device read %.1f MiB, the server %.1f: nothing else reads this disk", r.RunID, r.Disk.ReadBytes/(1<<20), r.Server.ReadBytes/(1<<20))
		}
	}
	if len(alone.ReadAmps) != 1 || alone.ReadAmps[0].ServerRatio == nil || *alone.ReadAmps[0].ServerRatio < 0.99 || *alone.ReadAmps[0].ServerRatio > 1.2 {
		t.Errorf("read amplification of the server alone: %+v", alone.ReadAmps)
	}
	if f := findings(alone, "others-io"); len(f) > 0 {
		t.Errorf("the others guard fired without another reader: %+v", f)
	}

	stop := reader(t, other)
	disturbed := analyse(t, collectStudy(t, study), analyze.Options{})
	stop()
	checkServerIO(t, disturbed, throttle.Group)
	for i, r := range disturbed.Runs {
		if r.Server.OthersReadBytes < 8<<20 {
			t.Errorf("run %d with dd reading: others read %.1f MiB, want dd's reads", r.RunID, r.Server.OthersReadBytes/(1<<20))
		}
		if q := alone.Runs[i].Server.ReadBytes; r.Server.ReadBytes < 0.9*q || r.Server.ReadBytes > 1.1*q {
			t.Errorf("run %d with dd reading: the server read %.1f MiB, alone %.1f: the scan reads the same", r.RunID, r.Server.ReadBytes/(1<<20), q/(1<<20))
		}
	}
	// The device's ratio counts dd's reads; the server's does not.
	if g := disturbed.ReadAmps; len(g) != 1 || g[0].Ratio == nil || *g[0].Ratio < 2 || g[0].ServerRatio == nil || *g[0].ServerRatio > 1.2 {
		t.Errorf("read amplification with dd reading: %+v", g)
	}
	f := findings(disturbed, "others-io")
	if len(f) != 1 || len(f[0].Runs) != 3 || f[0].Severity != analyze.Warning ||
		!strings.Contains(f[0].Message, "between the diskstats snapshots before and after the run") || !strings.Contains(f[0].Message, "cgroup v1 blkio.throttle") {
		t.Errorf("others-io: %+v", f)
	}
}

// checkServerIO: every run has the server's I/O from the group it ran
// in, and the server's reads are the scan's: at least what PostgreSQL
// read (pg_stat_io), and not much more than the read-ahead adds.
func checkServerIO(t *testing.T, a *analyze.Analysis, group string) {
	t.Helper()
	if len(a.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(a.Runs))
	}
	for _, r := range a.Runs {
		if r.Server == nil || r.Disk == nil || r.PGReads == nil {
			t.Fatalf("run %d: server %+v, disk %v, pg reads %v (missing: %s)", r.RunID, r.Server, r.Disk != nil, r.PGReads, r.ServerMissing)
		}
		s := r.Server
		t.Logf("run %d: device read %.1f MiB in %.0f requests, server %.1f MiB in %v I/Os, PostgreSQL %.1f MiB; written: device %.1f, server %.1f MiB",
			r.RunID, r.Disk.ReadBytes/(1<<20), r.Disk.Reads, s.ReadBytes/(1<<20), *s.Reads, *r.PGReads/(1<<20), r.Disk.WriteBytes/(1<<20), s.WriteBytes/(1<<20))
		if !strings.HasPrefix(s.Group, group+"/") {
			t.Errorf("run %d: counters from %s, want the group %s", r.RunID, s.Group, group)
		}
		// PostgreSQL's count may exceed the group's by a few catalog
		// blocks a new backend reads after the cold start, which the
		// kernel can serve from its cache (seen: 139 reads, 1.1 MiB, in
		// client backend/relation/normal on a loaded machine).
		if s.ReadBytes < *r.PGReads-2<<20 || s.ReadBytes > 1.2*(*r.PGReads)+4<<20 {
			t.Errorf("run %d: the server read %.1f MiB, PostgreSQL %.1f: not the scan's reads", r.RunID, s.ReadBytes/(1<<20), *r.PGReads/(1<<20))
		}
	}
}

// reader runs dd reading path with O_DIRECT, over and over, from outside
// the server's group, until the returned function is called.
func reader(t *testing.T, path string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", "while :; do dd if="+path+" of=/dev/null bs=1M iflag=direct status=none || exit 1; sleep 0.1; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	// It is reading when the device's counters move.
	deadline := time.Now().Add(10 * time.Second)
	for before := readSectors(t, path); readSectors(t, path) == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("dd does not read")
		}
	}
	return stop
}

// readSectors is the sectors read from the disk that holds path.
func readSectors(t *testing.T, path string) string {
	t.Helper()
	dev, err := collect.DeviceOf(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 5 && f[2] == dev {
			return f[5]
		}
	}
	t.Fatalf("no %s in /proc/diskstats", dev)
	return ""
}
