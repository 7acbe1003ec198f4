package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
// system of sizeMiB on a loop device whose backing file is in memory (a
// tmpfs of its own). Its /proc/diskstats line counts only what is done on
// it, whatever else the machine reads or writes; its speed does not depend
// on what the machine's disk is doing either (another process reading the
// disk at full speed), and a blkio throttle on it slows it alone. The page
// cache of its file system is dropped by drop_caches like any other, so a
// cold read is a read of the device. It
// needs root, losetup and mkfs.ext4: without them the test is skipped
// (fails when CI=true). Pass it to Start with OnDisk to put a cluster on it.
// It is unmounted and detached when the test ends.
func PrivateDisk(t testing.TB, sizeMiB int) *Disk {
	t.Helper()
	d, err := TryPrivateDisk(t, sizeMiB)
	if err != nil {
		Missing(t, "pgtest: %v", err)
	}
	return d
}

// TryPrivateDisk is PrivateDisk for a test that can do without one: it
// returns why it could not make the disk instead of skipping. The disk is
// an ext4 image in a tmpfs of its own, attached to a loop device and
// mounted; cleanups undo each step, last first.
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
	// Not t.TempDir: its parent is private to root, and the server's OS
	// user must reach the mount point.
	dir, err := os.MkdirTemp("", "pgstudy-disk-")
	if err != nil {
		return nil, err
	}
	img, err := diskImage(t, dir, sizeMiB)
	if err != nil {
		return nil, err
	}
	dev, err := runTool("losetup", "--find", "--show", img)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		if _, err := runTool("losetup", "-d", dev); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return nil, err
	}
	if _, err := runTool("mount", dev, mnt); err != nil {
		return nil, err
	}
	// Cleanups run last first: this unmount before the detach above.
	t.Cleanup(func() {
		if _, err := runTool("umount", mnt); err != nil {
			t.Errorf("pgtest: %v", err)
			if _, err := runTool("umount", "-l", mnt); err != nil {
				t.Errorf("pgtest: %v", err)
			}
		}
	})
	name := filepath.Base(dev)
	majmin, err := os.ReadFile(filepath.Join("/sys/block", name, "dev"))
	if err != nil {
		return nil, fmt.Errorf("the device number of %s: %w", dev, err)
	}
	return &Disk{Dir: mnt, Device: name, MajMin: strings.TrimSpace(string(majmin))}, nil
}

// diskImage makes, in dir, a tmpfs of its own holding an ext4 image of
// sizeMiB, and returns the image's path. Its cleanup unmounts the tmpfs
// and then removes dir, never through a file system still mounted.
func diskImage(t testing.TB, dir string, sizeMiB int) (string, error) {
	mounted := map[string]bool{}
	t.Cleanup(func() {
		for m := range mounted {
			if _, err := runTool("umount", m); err != nil {
				t.Errorf("pgtest: %v", err)
				if _, err := runTool("umount", "-l", m); err != nil {
					t.Errorf("pgtest: %v; %s is left", err, dir)
					return
				}
			}
		}
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	backing := filepath.Join(dir, "ram")
	if err := os.Mkdir(backing, 0o700); err != nil {
		return "", err
	}
	if _, err := runTool("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm,mode=0700", sizeMiB+16), "pgstudy-disk", backing); err != nil {
		return "", err
	}
	mounted[backing] = true
	img := filepath.Join(backing, "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		return "", err
	}
	if err := os.Truncate(img, int64(sizeMiB)<<20); err != nil {
		return "", err
	}
	if _, err := runTool("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", img); err != nil {
		return "", err
	}
	return img, nil
}

// runTool runs a system tool and returns its output, or an error with
// the command line and what it printed.
func runTool(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// OnDisk makes Start put the cluster's folder on a private disk.
func OnDisk(d *Disk) Option {
	return func(c *config) { c.parent = d.Dir }
}

// blkioRoot is where cgroup v1 mounts its blkio controller; v2Root is the
// unified hierarchy, used where there is no v1 blkio.
const (
	blkioRoot = "/sys/fs/cgroup/blkio"
	v2Root    = "/sys/fs/cgroup"
)

// Throttle is a cgroup (v1 blkio, else v2 with the io controller) whose
// processes' reads of one disk the kernel limits, as a cloud volume's
// provisioned throughput does.
type Throttle struct {
	// Group is the group's folder.
	Group string
	disk  *Disk
	v2    bool
	dir   string // where the start script is
}

// NewThrottle makes a group for reads of d, without a limit until SetRead;
// the test is skipped (fails when CI=true) where no group can be made (no
// root, neither v1 blkio nor v2 io). When the test ends, whatever is left
// in the group goes back to the root group and the group is removed.
func NewThrottle(t testing.TB, d *Disk) *Throttle {
	t.Helper()
	name := fmt.Sprintf("pgstudy-test-%d-%s", os.Getpid(), d.Device)
	root, v2 := blkioRoot, false
	if _, err := os.Stat(filepath.Join(blkioRoot, "blkio.throttle.read_bps_device")); err != nil {
		root, v2 = v2Root, true
		ctl, _ := os.ReadFile(filepath.Join(v2Root, "cgroup.controllers"))
		if !slices.Contains(strings.Fields(string(ctl)), "io") {
			Missing(t, "pgtest: throttling reads needs cgroup v1 blkio or v2 with the io controller; this machine has neither")
		}
	}
	var enable error
	if v2 {
		// A v2 group gets the io controller from its parent; a root that
		// holds processes (a container's) cannot give it.
		enable = os.WriteFile(filepath.Join(v2Root, "cgroup.subtree_control"), []byte("+io"), 0o644)
	}
	group := filepath.Join(root, name)
	if err := os.Mkdir(group, 0o755); err != nil {
		Missing(t, "pgtest: throttling reads needs a cgroup, and one cannot be made in %s (root needed): %v", root, err)
	}
	t.Cleanup(func() {
		if procs, err := os.ReadFile(filepath.Join(group, "cgroup.procs")); err == nil {
			for _, pid := range strings.Fields(string(procs)) {
				os.WriteFile(filepath.Join(root, "cgroup.procs"), []byte(pid), 0o644)
			}
		}
		if err := os.Remove(group); err != nil {
			t.Errorf("pgtest: remove the cgroup %s: %v", group, err)
		}
	})
	th := &Throttle{Group: group, disk: d, v2: v2, dir: t.TempDir()}
	if file, _ := th.ReadRule("0"); !exists(file) {
		Missing(t, "pgtest: the cgroup %s has no %s, so its reads cannot be throttled (enabling the io controller: %v)", group, filepath.Base(file), enable)
	}
	return th
}

// ReadRule is the file of the group and the line that limit its reads of
// the disk to bytesPerSecond (a number, or a shell arithmetic expression
// for a step to write).
func (th *Throttle) ReadRule(bytesPerSecond string) (file, line string) {
	if th.v2 {
		return filepath.Join(th.Group, "io.max"), fmt.Sprintf("%s rbps=%s", th.disk.MajMin, bytesPerSecond)
	}
	return filepath.Join(th.Group, "blkio.throttle.read_bps_device"), fmt.Sprintf("%s %s", th.disk.MajMin, bytesPerSecond)
}

// SetRead limits the group's reads of the disk to bytesPerSecond.
func (th *Throttle) SetRead(t testing.TB, bytesPerSecond int64) {
	t.Helper()
	file, line := th.ReadRule(fmt.Sprint(bytesPerSecond))
	if err := os.WriteFile(file, []byte(line), 0o644); err != nil {
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

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
