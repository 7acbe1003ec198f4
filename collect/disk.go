package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The collector copies /proc/diskstats verbatim; it never parses it. What
// it does need to know is which block device holds a data directory, and
// the whole disks of the machine, both from sysfs.

const diskstatsPath = "/proc/diskstats"

// snapshot is one verbatim copy of /proc/diskstats.
type snapshot struct {
	At     time.Time // wall clock and monotonic
	Text   string
	Err    error
	Before bool
}

func readDiskstats() snapshot {
	at := time.Now()
	b, err := os.ReadFile(diskstatsPath)
	return snapshot{At: at, Text: string(b), Err: err}
}

// diskstatsFile keeps /proc/diskstats open and reads it with one pread per
// snapshot: opening it each time costs five more system calls, which on a
// small VM was a third of the sampler's CPU.
type diskstatsFile struct {
	f   *os.File
	buf []byte
}

func openDiskstats() (*diskstatsFile, error) {
	f, err := os.Open(diskstatsPath)
	if err != nil {
		return nil, err
	}
	return &diskstatsFile{f: f, buf: make([]byte, 16<<10)}, nil
}

func (d *diskstatsFile) read() snapshot {
	at := time.Now()
	for {
		n, err := d.f.ReadAt(d.buf, 0)
		if err != nil && err != io.EOF {
			return snapshot{At: at, Err: err}
		}
		if n < len(d.buf) {
			return snapshot{At: at, Text: string(d.buf[:n])}
		}
		d.buf = make([]byte, 2*len(d.buf)) // the file may not have fit
	}
}

func (d *diskstatsFile) Close() error { return d.f.Close() }

// startSampler takes a snapshot of /proc/diskstats at each tick until
// stopped: one read of a small file per tick, into memory.
func startSampler(every time.Duration) *ticking[snapshot] {
	if every <= 0 {
		return ended[snapshot]()
	}
	ds, err := openDiskstats()
	if err != nil {
		return ended(snapshot{At: time.Now(), Err: err})
	}
	return startTicking(context.Background(), every, func(int) ([]snapshot, bool) {
		return []snapshot{ds.read()}, true
	}, func() { ds.Close() })
}

// DeviceOf names the whole disk that holds path, as a study's disk
// devices and limits name it; "" when no block device holds it.
func DeviceOf(path string) (string, error) {
	disk, _, err := deviceOf(path)
	return disk, err
}

// wholeDisks lists the machine's whole disks: every block device in
// /sys/block except loop and RAM devices.
func wholeDisks() []string {
	entries, err := os.ReadDir("/sys/block")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram") || strings.HasPrefix(n, "zram") {
			continue
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// queueFiles are the settings of a device's request queue that decide how
// reads reach it.
var queueFiles = []string{"read_ahead_kb", "scheduler", "rotational", "logical_block_size", "physical_block_size",
	"max_sectors_kb", "max_hw_sectors_kb", "nr_requests", "nomerges"}

// evictResult counts what evict dropped.
type evictResult struct {
	Files int
	Bytes int64
}

// evict asks the kernel to drop the cached pages of every file under the
// paths. Dirty pages cannot be dropped, so each file is synced first.
func evict(paths []string) (evictResult, error) {
	var res evictResult
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && path != root {
				return nil // a server's temporary file, gone
			}
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			f, err := os.Open(path)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			defer f.Close()
			if err := dropFilePages(f); err != nil {
				return fmt.Errorf("posix_fadvise %s: %w", path, err)
			}
			if info, err := d.Info(); err == nil {
				res.Bytes += info.Size()
			}
			res.Files++
			return nil
		})
		if err != nil {
			return res, fmt.Errorf("evict %s: %w", root, err)
		}
	}
	return res, nil
}
