package vacuum

import (
	"bytes"
	"io"
	"iter"
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// seqMemory streams size bytes of the fixtures matching glob under
// testdata/verbose, over and over, read as they are made, through seq:
// each copy must give the records whole reads of one copy give, and the
// live heap must stay under 32 MiB.
func seqMemory(t *testing.T, glob string, size int,
	whole func(io.Reader, string) ([]Record, []parse.Warning, error),
	seq func(io.Reader, string, func(parse.Warning)) iter.Seq2[Record, error]) {
	t.Helper()
	const limit = 32 << 20
	var one []byte
	for _, f := range golden.Files(t, "verbose", glob) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		one = append(one, b...)
	}
	recs, _, err := whole(bytes.NewReader(one), "x")
	if err != nil {
		t.Fatal(err)
	}
	copies := size / len(one)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	var peak uint64
	n := 0
	start := time.Now()
	for r, err := range seq(parsetest.Repeat(one, copies), "x", nil) {
		if err != nil {
			t.Fatal(err)
		}
		if want := recs[n%len(recs)]; r.Table != want.Table || r.Operation != want.Operation {
			t.Fatalf("record %d: %s of %s; want %s of %s", n, r.Operation, r.Table, want.Operation, want.Table)
		}
		if n++; n%256 == 0 {
			metrics.Read(live)
			peak = max(peak, live[0].Value.Uint64())
		}
	}
	t.Logf("%d MB, %d records in %v; peak live heap %.1f MiB", copies*len(one)/1e6, n, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20))
	if n != copies*len(recs) {
		t.Errorf("%d records; want %d", n, copies*len(recs))
	}
	if peak == 0 || peak > limit {
		t.Errorf("peak live heap %d MiB; want under %d MiB", peak>>20, limit>>20)
	}
}
