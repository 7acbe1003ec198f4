package iostat

// The peer check's disk: a folder on a disk of its own, the whole disk
// under it, and a file of random bytes to read.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"golang.org/x/sys/unix"
)

// peerDir returns a temporary folder on a block device, and that device's
// whole disk as /proc/diskstats names it: the test's temporary folder, or,
// when that is not on a block device (tmpfs), one in the package's folder.
func peerDir(t *testing.T) (dir, disk string) {
	t.Helper()
	// A disk of the test's own: what other processes read and write
	// cannot enter the intervals compared.
	// Not pgtest.Missing: without CI the test goes on, on the shared disk,
	// rather than being skipped; only under CI=true is the lack a failure.
	if d, err := pgtest.TryPrivateDisk(t, 768); err == nil {
		return d.Dir, d.Device
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("a disk of the test's own: %v (CI=true, so this is a failure: on a shared disk other processes' I/O enters the intervals)", err)
	} else {
		t.Logf("no disk of the test's own (%v): other processes' I/O on the shared disk may enter the intervals", err)
	}
	dir = t.TempDir()
	disk, err := wholeDisk(dir)
	if err == nil {
		return dir, disk
	}
	t.Logf("temporary folder %s: %v; using the package's folder", dir, err)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err = os.MkdirTemp(wd, "peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	disk, err = wholeDisk(dir)
	if err != nil {
		pgtest.Missing(t, "neither the temporary folder nor %s is on a block device: %v", wd, err)
	}
	return dir, disk
}

// wholeDisk names the whole disk holding path: the block device of its
// file system (from stat, or from /proc/self/mountinfo's mount source when
// the file system reports an anonymous device, as btrfs and overlay do),
// and that device's parent when it is a partition.
func wholeDisk(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", fmt.Errorf("stat %s: %w", path, err)
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev))
	if _, err := os.Stat(sys); err != nil {
		src, err := mountSource(path)
		if err != nil {
			return "", err
		}
		if err := unix.Stat(src, &st); err != nil {
			return "", fmt.Errorf("stat %s (the source of the mount holding %s): %w", src, path, err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFBLK {
			return "", fmt.Errorf("%s (the source of the mount holding %s) is not a block device", src, path)
		}
		sys = fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev))
	}
	dev, err := filepath.EvalSymlinks(sys)
	if err != nil {
		return "", fmt.Errorf("the disk of %s: %w", path, err)
	}
	if _, err := os.Stat(filepath.Join(dev, "partition")); err == nil {
		dev = filepath.Dir(dev)
	}
	return filepath.Base(dev), nil
}

// mountSource returns the device file mounted where path lives, from
// /proc/self/mountinfo: the source of the last mount on the longest mount
// point above path.
func mountSource(path string) (string, error) {
	path, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	best, source, fstype := -1, "", ""
	for line := range strings.Lines(string(b)) {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		f := strings.Fields(line)
		sep := -1
		for i, x := range f {
			if x == "-" {
				sep = i
				break
			}
		}
		if len(f) < 5 || sep < 0 || sep+2 >= len(f) {
			continue
		}
		mp := unescapeMount(f[4])
		if mp != "/" && path != mp && !strings.HasPrefix(path, mp+"/") {
			continue
		}
		if len(mp) >= best {
			best, source, fstype = len(mp), unescapeMount(f[sep+2]), f[sep+1]
		}
	}
	if !strings.HasPrefix(source, "/dev/") {
		return "", fmt.Errorf("%s is on %s (source %q), not a block device", path, fstype, source)
	}
	return source, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// writeRandomFile writes size bytes of random data (so that no file
// system can compress them away or leave holes) and syncs them.
func writeRandomFile(path string, size int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	rng := rand.NewChaCha8([32]byte{1})
	buf := make([]byte, 1<<20)
	for n := 0; n < size; n += len(buf) {
		rng.Read(buf)
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return f.Close()
}
