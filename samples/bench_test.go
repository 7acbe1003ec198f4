package samples

import (
	"fmt"
	"strings"
	"testing"
)

// diskstatsText imitates one /proc/diskstats snapshot of about size bytes:
// many devices, counters that change between snapshots.
func diskstatsText(seq, size int) string {
	var sb strings.Builder
	for dev := 0; sb.Len() < size; dev++ {
		n := uint64(seq+1) * uint64(dev*7919+13)
		fmt.Fprintf(&sb, "%4d %7d nvme%dn%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n",
			259, dev, dev/4, dev%4+1, n*3, n/7, n*11, n*5, n*2, n/3, n*17, n*9, seq%4, n*13, n*19, 0, 0, 0, 0, n, n*23)
	}
	return sb.String()
}

// BenchmarkCommit commits runs of the size a collector makes with a 100 ms
// diskstats sampler over a one-minute statement: 600 snapshots of ~4 KB,
// plus a few statements and a plan. Every part is synced, as in real use.
func BenchmarkCommit(b *testing.B) {
	w, _ := mustCreate(b, Options{})
	snaps := make([]Diskstats, 600)
	var size int64
	for i := range snaps {
		snaps[i] = Diskstats{Seq: int32(i), Phase: "sample", OffsetNs: int64(i) * 1e8, Text: diskstatsText(i, 4<<10)}
		size += int64(len(snaps[i].Text))
	}
	plan := Plan{Kind: "explain", Format: "text", Text: strings.Repeat("Seq Scan on t  (cost=0.00..35.50 rows=2550 width=4)\n", 40)}
	stmts := []Statement{{Seq: 1, Phase: "timed", SQL: "select count(*) from t"}}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		batch := &Batch{
			Run:        Run{RunID: int64(i + 1), Status: "ok"},
			Diskstats:  snaps,
			Plans:      []Plan{plan},
			Statements: stmts,
		}
		if err := w.Commit(batch); err != nil {
			b.Fatal(err)
		}
	}
}
