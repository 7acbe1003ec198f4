package samples

import (
	"runtime"
	"strings"
	"testing"
)

// TestDecompressionBomb: a diskstats part whose text decompresses to 96
// MiB from a few kilobytes (a zstd bomb; a snapshot of /proc/diskstats is
// a few kilobytes) is refused by its footer's sizes, before it is decoded,
// and reading it costs no memory near its decompressed size.
func TestDecompressionBomb(t *testing.T) {
	w, dir := mustCreate(t, Options{})
	b := fullBatch(w.CaptureID(), 1, 1, 1, nil)
	b.Diskstats[0].Text = strings.Repeat("x", 96<<20)
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	b = nil
	w.Close()
	runtime.GC()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Read[Diskstats](r)
	runtime.ReadMemStats(&after)
	mustContain(t, err, "diskstats", "r000001.parquet", "the columns read decompress to", "more than a part of diskstats holds (at most 67108864)")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("refusing the part allocated %d MiB", grew>>20)
	}
	// The other tables of the run read as written.
	if runs, err := Read[Run](r); err != nil || len(runs) != 1 {
		t.Errorf("runs: %d, %v", len(runs), err)
	}
}
