package collect

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The calibration's reads and writes go around the page cache (O_DIRECT),
// so that what they time is the device: Linux only, the rest of the
// calibration (calibrate.go) is portable and calls these.

// directIO says whether this build can calibrate a device.
const directIO = true

// directBuffer is page-aligned memory of n bytes, as O_DIRECT needs.
func directBuffer(n int) ([]byte, func(), error) {
	buf, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %d bytes: %w", n, err)
	}
	return buf, func() { unix.Munmap(buf) }, nil
}

// writeCalibrationFile makes path, which must not exist, and fills it with
// size bytes of pseudo-random data (a device that compresses or skips
// zeros must not read faster than it would PostgreSQL's pages) in 1 MiB
// O_DIRECT writes, then syncs it: its blocks are on the device, none in
// the page cache. It stops early, with ctx's error, when ctx ends.
func writeCalibrationFile(ctx context.Context, path string, size int64) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_DIRECT|unix.O_CLOEXEC, 0o600)
	if errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("create %s with O_DIRECT: %w: its file system cannot read around the page cache (tmpfs, some overlays), so it has no device ceiling to measure", path, err)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer unix.Close(fd)
	const chunk = 1 << 20
	buf, free, err := directBuffer(chunk)
	if err != nil {
		return err
	}
	defer free()
	rng := rand.NewChaCha8([32]byte{'p', 'g', 's', 't', 'u', 'd', 'y'})
	for off := int64(0); off < size; off += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		rng.Read(buf)
		if _, err := unix.Pwrite(fd, buf, off); err != nil {
			return fmt.Errorf("write %s at %d: %w", path, off, err)
		}
	}
	if err := unix.Fsync(fd); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// readResult is what one pattern of reads did.
type readResult struct {
	Bytes, Requests int64
	Elapsed         time.Duration
}

// directReads reads path (size bytes, a multiple of block) with O_DIRECT
// for d: depth readers, each with one request of block bytes in flight.
// Sequential readers take the file's blocks in turn from one cursor (the
// device sees one sequential stream, depth requests deep), going back to
// the start at the end; random readers pick aligned blocks anywhere in
// the file. Elapsed runs from the first request to the end of the last.
// The readers stop early when ctx ends, and the error says so.
func directReads(ctx context.Context, path string, size, block int64, random bool, depth int, d time.Duration) (readResult, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return readResult{}, fmt.Errorf("open %s with O_DIRECT: %w", path, err)
	}
	defer unix.Close(fd)
	blocks := size / block
	if blocks < 1 {
		return readResult{}, fmt.Errorf("%s holds %d bytes, less than one request of %d", path, size, block)
	}
	var (
		cursor, nbytes, nreqs atomic.Int64
		wg                    sync.WaitGroup
		mu                    sync.Mutex
		firstErr              error
	)
	start := time.Now()
	deadline := start.Add(d)
	for w := range depth {
		buf, free, err := directBuffer(int(block))
		if err != nil {
			return readResult{}, err
		}
		wg.Go(func() {
			defer free()
			rng := rand.New(rand.NewPCG(uint64(w)+1, uint64(size)))
			for time.Now().Before(deadline) && ctx.Err() == nil {
				var n int64
				if random {
					n = rng.Int64N(blocks)
				} else {
					n = (cursor.Add(1) - 1) % blocks
				}
				got, err := unix.Pread(fd, buf, n*block)
				if err == nil && int64(got) != block {
					err = fmt.Errorf("short read: %d bytes at %d", got, n*block)
				}
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, fmt.Errorf("O_DIRECT read of %s: %w", path, err))
					mu.Unlock()
					return
				}
				nbytes.Add(block)
				nreqs.Add(1)
			}
		})
	}
	wg.Wait()
	res := readResult{Bytes: nbytes.Load(), Requests: nreqs.Load(), Elapsed: time.Since(start)}
	return res, cmpErr(firstErr, ctx.Err())
}

func cmpErr(old, err error) error {
	if old != nil {
		return old
	}
	return err
}

// freeBytes is what the file system holding dir has free for an
// unprivileged user, and its size.
func freeBytes(dir string) (free, total int64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return int64(st.Bavail) * st.Bsize, int64(st.Blocks) * st.Bsize, nil
}

// sameDevice says whether two paths are on one file system.
func sameDevice(a, b string) bool {
	var sa, sb unix.Stat_t
	return unix.Stat(a, &sa) == nil && unix.Stat(b, &sb) == nil && sa.Dev == sb.Dev
}
