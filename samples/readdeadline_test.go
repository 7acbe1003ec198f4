package samples

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
)

// slowFS is a file system whose opens of one table's parts take long:
// waiting, as a pgstudy stopped by Ctrl-Z, or on a slow disk, waits (the
// clock runs on, the processor is not used), or spinning, as the Parquet
// reader did on some damaged page headers.
type slowFS struct {
	fs.FS
	table string
	take  time.Duration
	spin  bool
}

func (s slowFS) Open(name string) (fs.File, error) {
	if strings.HasPrefix(name, s.table+"/") {
		if !s.spin {
			time.Sleep(s.take)
		}
		for end := time.Now().Add(s.take); s.spin && time.Now().Before(end); {
		}
	}
	return s.FS.Open(name)
}

// Stat takes no time: only reading a part does.
func (s slowFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(s.FS, name) }

// TestReadDeadlineCountsProcessorTime: a part whose read waits far longer
// than the deadline on the clock, using no processor time, is read, not
// called damaged.
func TestReadDeadlineCountsProcessorTime(t *testing.T) {
	shortDeadline(t)
	r, err := openFS(slowFS{FS: os.DirFS("example/capture"), table: "diskstats", take: 500 * time.Millisecond}, ".")
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	rows, err := ReadPart[Diskstats](r, "r000005.parquet")
	if err != nil || len(rows) == 0 {
		t.Fatalf("a read that waited %s on the clock: %d rows, %v", time.Since(begin), len(rows), err)
	}
	if d := time.Since(begin); d < 400*time.Millisecond {
		t.Fatalf("the read took %s: it did not wait, and tests nothing", d)
	}
}

// TestReadDeadlineSpinning: a read that spins is called damaged once it
// has used its deadline of processor time.
func TestReadDeadlineSpinning(t *testing.T) {
	shortDeadline(t)
	r, err := openFS(slowFS{FS: os.DirFS("example/capture"), table: "diskstats", take: 4 * time.Second, spin: true}, ".")
	if err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	_, err = ReadPart[Diskstats](r, "r000005.parquet")
	if err == nil || !strings.Contains(err.Error(), "diskstats/r000005.parquet: damaged part: the Parquet reader did not finish it in 100ms of processor time") {
		t.Fatalf("a read that spins: %v", err)
	}
	if d := time.Since(begin); d > 3*time.Second {
		t.Errorf("it was given up after %s", d)
	}
}

// shortDeadline makes a part's read deadline 100 ms of processor time.
func shortDeadline(t *testing.T) {
	deadline := readDeadline
	readDeadline = func(int64) time.Duration { return 100 * time.Millisecond }
	t.Cleanup(func() { readDeadline = deadline })
}
