package collect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The parts of the collector's disk handling that ask Linux itself: device
// numbers of a file (sysfs, mountinfo), the page cache (drop_caches,
// posix_fadvise). disk_other.go stands in for them elsewhere.

// needLinux says why collect cannot run on this system: here it can.
func needLinux() error { return nil }

// deviceOf names the whole disk that holds path ("nvme1n1" for a file on
// nvme1n1p2), and the mountinfo line of its file system. It returns an
// empty name when the file system has no block device (tmpfs, overlay).
func deviceOf(path string) (disk, mount string, err error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", "", fmt.Errorf("find the device of %s: %w", path, err)
	}
	mount = mountOf(st.Dev)
	maj, min := unix.Major(st.Dev), unix.Minor(st.Dev)
	if maj == 0 {
		return "", mount, nil
	}
	link, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", maj, min))
	if err != nil {
		return "", mount, fmt.Errorf("find the device of %s (%d:%d): %w", path, maj, min, err)
	}
	if _, err := os.Stat(filepath.Join(link, "partition")); err == nil {
		link = filepath.Dir(link)
	}
	return filepath.Base(link), mount, nil
}

// mountOf is the line of /proc/self/mountinfo for a device number.
func mountOf(dev uint64) string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	want := fmt.Sprintf("%d:%d", unix.Major(dev), unix.Minor(dev))
	var found string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[2] == want {
			found = line // the last one is the one on top
		}
	}
	return found
}

// dropCaches writes dirty pages out and empties the kernel's page cache.
func dropCaches() error {
	unix.Sync()
	f, err := os.OpenFile("/proc/sys/vm/drop_caches", os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString("3\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return dropCachesError(err)
	}
	return nil
}

// CanDropCaches says whether drop-caches can work here, and if not, why,
// in words that name the alternative.
func CanDropCaches() error {
	f, err := os.OpenFile("/proc/sys/vm/drop_caches", os.O_WRONLY, 0)
	if err != nil {
		return dropCachesError(err)
	}
	return f.Close()
}

func dropCachesError(err error) error {
	why := "it needs root"
	if errors.Is(err, syscall.EROFS) {
		why = "/proc/sys is read-only here, as in most containers"
	} else if os.Geteuid() == 0 {
		why = "root is not allowed to here, as in a container"
	}
	return fmt.Errorf("drop-caches cannot empty the page cache: /proc/sys/vm/drop_caches is not writable (%v); %s. "+
		"Use `evict PATH...` instead, which asks the kernel to drop the cached pages of the files under PATH "+
		"(posix_fadvise DONTNEED) and works for any user who can read them", errors.Unwrap(err), why)
}

// dropFilePages writes a file's dirty pages out and asks the kernel to
// drop its cached pages.
func dropFilePages(f *os.File) error {
	fd := int(f.Fd())
	_ = unix.Fdatasync(fd)
	return unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED)
}
