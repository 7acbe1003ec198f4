package facts

import (
	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/samples"
)

// The rows of disk_figures and disk_intervals hold the device's counts
// (what it did), not iostat's figures: the figures are the analysis's
// definitions, computed as it reads the rows (iostat.Counts.Stats), so
// that a change to them needs no new facts.

// figure is a run's row of disk_figures with the counts c over the run.
func figure(id int64, dev, num string, seconds float64, c *iostat.Counts) samples.DiskFigure {
	return samples.DiskFigure{RunID: id, Device: dev, DeviceNum: num, Known: !c.Reset, Reset: c.Reset, Seconds: seconds,
		Reads: c.Reads, ReadsMerged: c.ReadsMerged, ReadSectors: c.ReadSectors, ReadMs: c.ReadMs,
		Writes: c.Writes, WritesMerged: c.WritesMerged, WriteSectors: c.WriteSectors, WriteMs: c.WriteMs,
		IOMs: c.IOMs, WeightedIOMs: c.WeightedMs, Discards: c.Discards, DiscardsMerged: c.DiscardsMerged,
		DiscardSectors: c.DiscardSectors, DiscardMs: c.DiscardMs, Flushes: c.Flushes, FlushMs: c.FlushMs,
		HasDiscards: c.HasDiscards, HasFlushes: c.HasFlushes}
}

// FigureCounts is the counts of a row of disk_figures (zero unless Known).
func FigureCounts(f *samples.DiskFigure) iostat.Counts {
	return iostat.Counts{Reads: f.Reads, ReadsMerged: f.ReadsMerged, ReadSectors: f.ReadSectors, ReadMs: f.ReadMs,
		Writes: f.Writes, WritesMerged: f.WritesMerged, WriteSectors: f.WriteSectors, WriteMs: f.WriteMs,
		IOMs: f.IOMs, WeightedMs: f.WeightedIOMs, Discards: f.Discards, DiscardsMerged: f.DiscardsMerged,
		DiscardSectors: f.DiscardSectors, DiscardMs: f.DiscardMs, Flushes: f.Flushes, FlushMs: f.FlushMs,
		HasDiscards: f.HasDiscards, HasFlushes: f.HasFlushes, Reset: f.Reset}
}

// interval is a run's row of disk_intervals: the counts a series reads of
// an interval that ends at offset and lasts seconds.
func interval(id int64, offset, seconds float64, c *iostat.Counts) samples.DiskInterval {
	return samples.DiskInterval{RunID: id, OffsetS: offset, Seconds: seconds, Reads: c.Reads, ReadSectors: c.ReadSectors,
		Writes: c.Writes, WriteSectors: c.WriteSectors, IOMs: c.IOMs, WeightedIOMs: c.WeightedMs}
}

// IntervalCounts is the counts of a row of disk_intervals: those a series
// reads, the others zero.
func IntervalCounts(iv *samples.DiskInterval) iostat.Counts {
	return iostat.Counts{Reads: iv.Reads, ReadSectors: iv.ReadSectors, Writes: iv.Writes, WriteSectors: iv.WriteSectors,
		IOMs: iv.IOMs, WeightedMs: iv.WeightedIOMs}
}
