package iostat

import (
	"strings"
	"testing"
)

// BenchmarkBetween computes the figures of every whole disk of a host with
// 20 block devices (6 disks, 9 partitions, 2 dm, an md, 2 idle loop), as the
// analysis does for each pair of 1-second snapshots.
func BenchmarkBetween(b *testing.B) {
	names := []string{
		"sda", "sda1", "sda2", "sdb", "sdb1", "nvme0n1", "nvme0n1p1", "nvme0n1p2", "nvme0n1p3",
		"nvme1n1", "nvme1n1p1", "mmcblk0", "mmcblk0p1", "vda", "vda1", "dm-0", "dm-1", "md0", "loop0", "loop1",
	}
	var bt, at strings.Builder
	for i, n := range names {
		var x, y uint64 = 1000, 2000
		if strings.HasPrefix(n, "loop") {
			x, y = 0, 0
		}
		bt.WriteString(diskLine(259, i, n, x))
		at.WriteString(diskLine(259, i, n, y))
	}
	before, after := snapshot(b, bt.String()), snapshot(b, at.String())
	if got := len(Between(before, after, 1, nil)); got != 9 {
		b.Fatalf("%d disks, want 9", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		Between(before, after, 1, nil)
	}
}
