// Package diskstats reads /proc/diskstats snapshots: one line per device,
// "major minor name" and the 11, 15 or 17 counters the kernel prints
// (reads, merges, sectors, milliseconds, then discards and flushes where
// the kernel has them), recording how many it printed.
//
// ParseSeq goes through the text line by line, bounded by parse.Lines,
// and yields each device line's counters as it reads it (parsed in one
// pass over the line; a device's name is made a string once, its
// optional groups are values in the record) and hands each line of another shape
// to a callback as a Warning; it holds one line, so a long series of
// snapshots reads in the memory of its longest line. Parse reads the same
// way and gathers the counters into a Snapshot, in slices allocated in
// chunks. Input without a single diskstats line is an error.
package diskstats
