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

// TestLargePage: a value larger than the Parquet reader's default page
// limits (64 MiB compressed, 256 MiB decompressed), stored uncompressed
// as a capture written without compression keeps it, reads back whole.
func TestLargePage(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 72 MiB value")
	}
	w, dir := mustCreate(t, Options{Compression: CompressionNone})
	text := randomText(72 << 20)
	b := &Batch{Run: Run{RunID: 1, Status: "ok"}, Outputs: []Output{{Statement: 1, Stream: "stdout", Text: text}}}
	if err := w.Commit(b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	outs, err := Read[Output](mustOpen(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Text != text {
		t.Errorf("read %d outputs, the value differs", len(outs))
	}
}
