package collect

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"golang.org/x/sys/unix"
)

// resident counts the pages of a file in the page cache, with mincore.
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(data)
	vec := make([]byte, (len(data)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestEvict: the pages of every file under a folder leave the page cache.
func TestEvict(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "base", "5")
	os.MkdirAll(sub, 0o755)
	var files []string
	for i, size := range []int{8 << 20, 3 << 20} {
		path := filepath.Join(sub, string(rune('a'+i)))
		if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		os.ReadFile(path)
		files = append(files, path)
	}
	if resident(t, files[0]) == 0 {
		pgtest.Missing(t, "this file system does not keep pages in the page cache (tmpfs?): set TMPDIR to a folder on a disk")
	}
	res, err := evict([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || res.Bytes != 11<<20 {
		t.Errorf("evict: %+v, want 2 files of 11 MiB", res)
	}
	for _, f := range files {
		if n := resident(t, f); n != 0 {
			t.Errorf("%s: %d pages still cached after evict", f, n)
		}
	}
	if _, err := evict([]string{filepath.Join(dir, "missing")}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("evict of a missing folder: %v", err)
	}
}

// TestDropCachesError: where the page cache cannot be dropped, the message
// says why and names the alternative.
func TestDropCachesError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "open", Path: "/proc/sys/vm/drop_caches", Err: syscall.EACCES}, "permission denied"},
		{&os.PathError{Op: "open", Path: "/proc/sys/vm/drop_caches", Err: syscall.EROFS}, "read-only here, as in most containers"},
	} {
		msg := dropCachesError(tc.err).Error()
		for _, want := range []string{tc.want, "/proc/sys/vm/drop_caches is not writable", "Use `evict PATH...` instead"} {
			if !strings.Contains(msg, want) {
				t.Errorf("message lacks %q: %s", want, msg)
			}
		}
	}
	if os.Geteuid() == 0 {
		// These test machines are VMs where root may drop the cache.
		if err := CanDropCaches(); err != nil {
			pgtest.Missing(t, "root cannot drop the page cache here: %v", err)
		}
	}
}

func TestDeviceOf(t *testing.T) {
	disk, mount, err := deviceOf(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if mount == "" {
		t.Errorf("no mountinfo line for the temporary folder")
	}
	if disk != "" {
		if _, err := os.Stat(filepath.Join("/sys/block", disk)); err != nil {
			t.Errorf("device %q is not a whole disk: %v", disk, err)
		}
		found := false
		for _, d := range wholeDisks() {
			found = found || d == disk
		}
		if !found {
			t.Errorf("%s is not among the whole disks %v", disk, wholeDisks())
		}
	}
}

// TestDiskstatsFile: a snapshot read with pread on a kept-open file is the
// file, whole, and the buffer grows for a file larger than it.
func TestDiskstatsFile(t *testing.T) {
	d, err := openDiskstats()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.buf = make([]byte, 8) // smaller than any /proc/diskstats
	for i := 0; i < 3; i++ {
		snap := d.read()
		want, _ := os.ReadFile(diskstatsPath)
		if snap.Err != nil || len(snap.Text) != len(want) || !strings.HasSuffix(snap.Text, "\n") {
			t.Fatalf("read %d: %d bytes (%v), the file has %d", i, len(snap.Text), snap.Err, len(want))
		}
	}
}
