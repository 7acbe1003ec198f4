package samples

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// zstdPages are pages of the kinds a capture holds, of the sizes around
// zstd's block (128 KiB) and pageWindow: real /proc/diskstats text, a
// plain column of rising 64-bit counters, text of random words, random
// bytes and zeros.
func zstdPages(t *testing.T) map[string][]byte {
	t.Helper()
	snap, err := os.ReadFile("../parse/diskstats/testdata/linux-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := map[string]func(n int) []byte{
		"diskstats": func(n int) []byte { return bytes.Repeat(snap, n/len(snap)+1)[:n] },
		"counters": func(n int) []byte {
			b := make([]byte, 0, n+8)
			for v := uint64(1e9); len(b) < n; v += uint64(rng.IntN(5000)) {
				b = binary.LittleEndian.AppendUint64(b, v)
			}
			return b[:n]
		},
		"text":   func(n int) []byte { return []byte(randomText(n)) },
		"random": func(n int) []byte { b := make([]byte, n); rand.NewChaCha8([32]byte{byte(n)}).Read(b); return b },
		"zeros":  func(n int) []byte { return make([]byte, n) },
	}
	sizes := []int{1, 1000, 1024, 1025, 5000, 128<<10 - 1, 128 << 10, 128<<10 + 1, 300 << 10, 700 << 10, pageWindow - 1, pageWindow, pageWindow + 1}
	pages := map[string][]byte{}
	for kind, make := range kinds {
		for _, n := range sizes {
			pages[kind+"/"+strconv.Itoa(n)] = make(n)
		}
	}
	return pages
}

// TestZstdSmallWindow: a page shorter than pageWindow, encoded by the
// encoders of that window, is the bytes arrow's codec writes, at each
// level, one encoder after another on the same pooled ones.
func TestZstdSmallWindow(t *testing.T) {
	z := boundedZstd{mustArrowZstd(t)}
	pages := zstdPages(t)
	for round := range 2 {
		for name, src := range pages {
			for _, level := range []int{compress.DefaultCompressionLevel, 1, 3, 7, 11} {
				got, want := z.EncodeLevel(nil, src, level), z.Codec.EncodeLevel(nil, src, level)
				if !bytes.Equal(got, want) {
					t.Fatalf("round %d, %q (%d bytes), level %d: %d bytes, arrow's codec %d", round, name, len(src), level, len(got), len(want))
				}
			}
		}
	}
}

// TestZstdPageMemory: encoding a short page with no encoder kept (the
// garbage collector emptied the pools, as it does between the collector's
// spills) allocates a few MiB, where arrow's encoder allocated its 16 MiB
// history.
func TestZstdPageMemory(t *testing.T) {
	z := boundedZstd{mustArrowZstd(t)}
	src := zstdPages(t)["diskstats/"+strconv.Itoa(300<<10)]
	alloc := func(encode func() []byte) uint64 {
		runtime.GC()
		runtime.GC() // a pool's items go at the second collection
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		encode()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	level := compress.DefaultCompressionLevel
	if got := alloc(func() []byte { return z.EncodeLevel(nil, src, level) }); got > 6<<20 {
		t.Errorf("a 300 KiB page allocated %.1f MiB; want under 6", float64(got)/(1<<20))
	}
	if got := alloc(func() []byte { return z.Codec.EncodeLevel(nil, src, level) }); got < 16<<20 {
		t.Errorf("arrow's encoder allocated %.1f MiB for a 300 KiB page; the test expects its 16 MiB history", float64(got)/(1<<20))
	}
}

func mustArrowZstd(t *testing.T) compress.Codec {
	t.Helper()
	c, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := c.(boundedZstd)
	if !ok {
		t.Fatalf("zstd codec is %T", c)
	}
	return b.Codec
}
