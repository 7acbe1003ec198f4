// Package cgroupio reads the I/O counters the kernel keeps for a cgroup:
// cgroup v2's io.stat ("MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N
// dios=N", one line per device) and cgroup v1 blkio's per-operation files
// (blkio.throttle.io_service_bytes and blkio.throttle.io_serviced, and
// their _recursive forms: "MAJ:MIN Read N" for each operation of each
// device, then "Total N").
//
// ParseIOStat and ParseRWStat go through a file line by line, bounded by
// parse.Lines: a line of another shape is a Warning and left out, and
// input without a single line of the file's kind is an error. IOStatSeq
// and RWStatSeq read by the same rules but yield each record (a device's
// line, a device's block, the group's Total) as they read it, in the
// memory of one record whatever the input's length (and, in v1, of the
// device numbers seen), as diskstats.ParseSeq does. The kernel's own
// lines are read by a fast path, any other by the general one, which
// agree on what both read. One exception to the parsers' rule that empty input is an error: a v2
// group that has done no I/O prints an empty io.stat, which is zero I/O
// and not a missing file. Counters the kernel does not print (dbytes and
// dios before Linux 5.x, Discard in older v1 kernels) are absent, never
// zero.
//
// Counters turns either into bytes and I/Os read and written per device
// number, the form the analysis compares with /proc/diskstats. The I/Os
// are the block layer's as the cgroup sees them, before the I/O scheduler
// merges them: not the device's completed requests.
package cgroupio
