package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Disk is a block device of a test's own, mounted on Dir.
type Disk struct {
	// Dir is where its file system is mounted.
	Dir string
	// Device is its name in /sys/block and /proc/diskstats ("loop3").
	Device string
	// MajMin is its device number as cgroup files take it ("7:3").
	MajMin string
}

// PrivateDisk makes a block device that no other process uses: an ext4 file
// system of sizeMiB on a loop device that reads and writes its backing file
// (in a temporary folder) with direct I/O, so that nothing is cached twice.
// Its /proc/diskstats line counts only what is done on it, whatever else the
// machine reads or writes, and a blkio throttle on it slows it alone. It
// needs root, losetup and mkfs.ext4: without them the test is skipped
// (fails when CI=true). Pass it to Start with OnDisk to put a cluster on it.
// It is unmounted and detached when the test ends.
func PrivateDisk(t testing.TB, sizeMiB int) *Disk {
	t.Helper()
	d, err := TryPrivateDisk(t, sizeMiB)
	if err != nil {
		missing(t, "pgtest: %v", err)
	}
	return d
}

// TryPrivateDisk is PrivateDisk for a test that can do without one: it
// returns why it could not make the disk instead of skipping.
func TryPrivateDisk(t testing.TB, sizeMiB int) (*Disk, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil, errors.New("a private disk (a loop device) needs root")
	}
	for _, tool := range []string{"losetup", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("a private disk needs %s: %w", tool, err)
		}
	}
	run := func(name string, args ...string) (string, error) {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return strings.TrimSpace(string(out)), nil
	}
	// Not t.TempDir: its parent is private to root, and the server's OS
	// user must reach the mount point.
	dir, err := os.MkdirTemp("", "pgstudy-disk-")
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		return nil, err
	}
	if err := os.Truncate(img, int64(sizeMiB)<<20); err != nil {
		return nil, err
	}
	if _, err := run("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", img); err != nil {
		return nil, err
	}
	dev, err := run("losetup", "--direct-io=on", "--find", "--show", img)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if _, err := run("losetup", "-d", dev); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return nil, err
	}
	if _, err := run("mount", dev, mnt); err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if _, err := run("umount", mnt); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	name := filepath.Base(dev)
	majmin, err := os.ReadFile(filepath.Join("/sys/block", name, "dev"))
	if err != nil {
		return nil, fmt.Errorf("the device number of %s: %w", dev, err)
	}
	return &Disk{Dir: mnt, Device: name, MajMin: strings.TrimSpace(string(majmin))}, nil
}

// OnDisk makes Start put the cluster's folder on a private disk.
func OnDisk(d *Disk) Option {
	return func(c *config) { c.parent = d.Dir }
}

// Missing skips the test, or fails it when CI=true: for what a test needs
// and the machine may lack (a binary, root, a kernel feature). The message
// says what is missing and how to get it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	missing(t, format, args...)
}

// blkioRoot is where cgroup v1 mounts its blkio controller.
const blkioRoot = "/sys/fs/cgroup/blkio"

// Throttle is a cgroup v1 blkio group whose processes' reads of one disk
// the kernel limits, as a cloud volume's provisioned throughput does.
type Throttle struct {
	// Group is the group's folder; its blkio.throttle.* files set limits.
	Group string
	disk  *Disk
	dir   string // where the start script is
}

// NewThrottle makes a blkio group for reads of d, without a limit until
// SetRead; the test is skipped (fails when CI=true) where no group can be
// made (no root, or no cgroup v1 blkio controller). When the test ends,
// whatever is left in the group goes back to the root group and the
// group is removed.
func NewThrottle(t testing.TB, d *Disk) *Throttle {
	t.Helper()
	group := filepath.Join(blkioRoot, fmt.Sprintf("pgstudy-test-%d-%s", os.Getpid(), d.Device))
	if err := os.Mkdir(group, 0o755); err != nil {
		missing(t, "pgtest: throttling reads needs a cgroup v1 blkio group, and one cannot be made (root and cgroup v1 needed): %v", err)
	}
	t.Cleanup(func() {
		if procs, err := os.ReadFile(filepath.Join(group, "cgroup.procs")); err == nil {
			for _, pid := range strings.Fields(string(procs)) {
				os.WriteFile(filepath.Join(blkioRoot, "cgroup.procs"), []byte(pid), 0o644)
			}
		}
		if err := os.Remove(group); err != nil {
			t.Logf("pgtest: remove %s: %v", group, err)
		}
	})
	return &Throttle{Group: group, disk: d, dir: t.TempDir()}
}

// SetRead limits the group's reads of the disk to bytesPerSecond.
func (th *Throttle) SetRead(t testing.TB, bytesPerSecond int64) {
	t.Helper()
	rule := fmt.Sprintf("%s %d", th.disk.MajMin, bytesPerSecond)
	if err := os.WriteFile(filepath.Join(th.Group, "blkio.throttle.read_bps_device"), []byte(rule), 0o644); err != nil {
		t.Fatalf("pgtest: throttle reads of %s: %v", th.disk.Device, err)
	}
}

// StartCmd is c.StartCmd run in the group: the postmaster and every
// backend it forks are throttled.
func (th *Throttle) StartCmd(t testing.TB, c *Cluster) string {
	t.Helper()
	script := filepath.Join(th.dir, fmt.Sprintf("start-%d.sh", c.Port))
	text := fmt.Sprintf("echo $$ > %s/cgroup.procs\nexec %s\n", th.Group, c.StartCmd())
	if err := os.WriteFile(script, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + script
}
