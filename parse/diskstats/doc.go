// Package diskstats reads /proc/diskstats snapshots: one line per device,
// "major minor name" and the 11, 15 or 17 counters the kernel prints
// (reads, merges, sectors, milliseconds, then discards and flushes where
// the kernel has them), recording how many it printed.
//
// Parse goes through the snapshot line by line, bounded by parse.Lines: a
// line of another shape is a Warning and left out, device names are
// interned, and the counters of every line go into slices allocated in
// chunks; input without a single diskstats line is an error.
package diskstats
