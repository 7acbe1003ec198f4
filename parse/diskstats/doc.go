// Package diskstats reads /proc/diskstats snapshots: one line per device,
// "major minor name" and the 11, 15 or 17 counters the kernel prints
// (reads, merges, sectors, milliseconds, then discards and flushes where
// the kernel has them), recording how many it printed.
//
// Reader goes through the text line by line, bounded by parse.Lines, and
// stops at each device line (its counters, parsed in one pass over the
// line, allocating only for a device name it has not seen) and at each
// line of another shape (a Warning); it holds one line, so a long series
// of snapshots reads in the memory of its longest line. Parse gathers what Reader reads into a Snapshot, the
// counters in slices allocated in chunks. Input without a single
// diskstats line is an error.
package diskstats
