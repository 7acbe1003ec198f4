// Package iostat computes the disk figures of `iostat -x` (sysstat) from two
// /proc/diskstats snapshots, with sysstat's definitions, so that a reader
// can set pgstudy's numbers beside iostat's and find them equal.
//
// The definitions follow sysstat 12.6 (iostat.c write_ext_stat and
// rd_stats.c compute_ext_disk_stats):
//
//   - a rate (r/s, rrqm/s, rkB/s, ...) is the counter's increase over the
//     interval in seconds; kB are KiB (1024 bytes), as iostat -k prints them;
//   - %rrqm is merged / (merged + completed) × 100;
//   - r_await is the increase of the read time (ms) over the reads
//     completed, merged reads not counted; rareq-sz is sectors read over
//     reads completed, in KiB; both are 0 when nothing completed;
//   - aqu-sz is the weighted I/O time (ms) per millisecond of interval;
//   - %util is the I/O time (ms) per millisecond of interval × 100, not
//     capped at 100.
//
// iostat measures the interval with /proc/uptime, in hundredths of a
// second; the caller gives it here, from any clock, in seconds.
package iostat

import (
	"math"

	"github.com/pgstudy/pgstudy/parse/diskstats"
)

// Stats are iostat -x's figures for one device over one interval.
type Stats struct {
	Device  string
	Seconds float64
	// counts completed in the interval
	Reads, ReadsMerged, Writes, WritesMerged, Discards, DiscardsMerged, Flushes float64
	// IOMs and WeightedMs are the busy and queue-weighted milliseconds
	// counted, from which Over takes %util and aqu-sz.
	IOMs, WeightedMs                    float64
	ReadBytes, WriteBytes, DiscardBytes float64
	// rates and derived, with iostat's names in comments
	RPerS, WPerS, DPerS, FPerS             float64 // r/s w/s d/s f/s
	RMergedPerS, WMergedPerS, DMergedPerS  float64 // rrqm/s wrqm/s drqm/s
	RMergedPct, WMergedPct, DMergedPct     float64 // %rrqm %wrqm %drqm
	RKiBPerS, WKiBPerS, DKiBPerS           float64 // rkB/s wkB/s dkB/s (iostat -k)
	RAreqSzKiB, WAreqSzKiB, DAreqSzKiB     float64 // rareq-sz wareq-sz dareq-sz
	RAwaitMs, WAwaitMs, DAwaitMs, FAwaitMs float64 // r_await w_await d_await f_await
	AquSz                                  float64 // aqu-sz
	UtilPct                                float64 // %util
	// HasDiscards and HasFlushes say whether both snapshots carry the
	// discard (Linux 4.18+) and flush (5.5+) counters; without them the
	// d and f figures are 0, as iostat prints them.
	HasDiscards, HasFlushes bool
	Reset                   bool // a counter went backwards (device re-created/stats reset): the interval is not measurable; all figures zero
}

// minSeconds is the shortest interval that gets rates: below a
// microsecond no clock a caller reads means anything, and a rate could
// overflow float64.
const minSeconds = 1e-6

// Counts are the increases of one device's counters over an interval:
// what the device did, from which Stats takes iostat's figures. The
// times (ms) are counted modulo 2^32 where the kernel's wrapped.
type Counts struct {
	Reads, ReadsMerged, ReadSectors, ReadMs     float64
	Writes, WritesMerged, WriteSectors, WriteMs float64
	IOMs, WeightedMs                            float64
	// Zero unless HasDiscards and HasFlushes say both snapshots carry
	// them.
	Discards, DiscardsMerged, DiscardSectors, DiscardMs float64
	Flushes, FlushMs                                    float64
	HasDiscards, HasFlushes                             bool
	Reset                                               bool // a counter went backwards: nothing above is known
}

// Increase is how much each counter grew from before to after.
//
// The kernel prints the request, merge and sector counters as unsigned
// longs (64 bits on the hosts pgstudy measures) and the six times as
// 32-bit unsigned ints, which wrap every 2^32 ms (49.7 days of I/O time;
// the weighted time, growing by the queue depth each millisecond, much
// sooner). So a time that is smaller in after than in before, both fitting
// in 32 bits, has wrapped, and its increase is taken modulo 2^32, as
// sysstat 12.6 does by keeping them in unsigned ints. Any other decrease
// (a count, or a time too large for 32 bits) means the device's counters
// started again (device removed and re-added, statistics reset): the
// interval is marked Reset and every count is 0. iostat instead, when
// its request count and every sector count went down, reports the
// interval as if before were all zeros, which turns the counts since the
// restart into one interval's rate (and otherwise takes a count that went
// down as a wrap); neither measures the interval, so it is refused here.
//
// The counters come by pointer: an analysis of 100,000 runs takes a
// million intervals, and copies of the counters and figures were a third
// of their time.
func Increase(before, after *diskstats.Counters) Counts {
	c := Counts{HasDiscards: before.Discards.Valid && after.Discards.Valid, HasFlushes: before.Flushes.Valid && after.Flushes.Valid}
	var d deltas
	c.Reads = d.count(before.ReadsCompleted, after.ReadsCompleted)
	c.ReadsMerged = d.count(before.ReadsMerged, after.ReadsMerged)
	c.ReadSectors = d.count(before.ReadSectors, after.ReadSectors)
	c.ReadMs = d.ms(before.ReadTimeMs, after.ReadTimeMs)
	c.Writes = d.count(before.WritesCompleted, after.WritesCompleted)
	c.WritesMerged = d.count(before.WritesMerged, after.WritesMerged)
	c.WriteSectors = d.count(before.WriteSectors, after.WriteSectors)
	c.WriteMs = d.ms(before.WriteTimeMs, after.WriteTimeMs)
	c.IOMs = d.ms(before.IOTimeMs, after.IOTimeMs)
	c.WeightedMs = d.ms(before.WeightedIOTimeMs, after.WeightedIOTimeMs)
	if c.HasDiscards {
		b, a := before.Discards.V, after.Discards.V
		c.Discards = d.count(b.Completed, a.Completed)
		c.DiscardsMerged = d.count(b.Merged, a.Merged)
		c.DiscardSectors = d.count(b.Sectors, a.Sectors)
		c.DiscardMs = d.ms(b.TimeMs, a.TimeMs)
	}
	if c.HasFlushes {
		b, a := before.Flushes.V, after.Flushes.V
		c.Flushes = d.count(b.Completed, a.Completed)
		c.FlushMs = d.ms(b.TimeMs, a.TimeMs)
	}
	if d.reset {
		return Counts{HasDiscards: c.HasDiscards, HasFlushes: c.HasFlushes, Reset: true}
	}
	return c
}

// Stats is iostat's figures of device over an interval of seconds in
// which it did c (rates are 0 when seconds is not a finite number of at
// least a microsecond; the counts and per-request figures are still
// given). After a reset every figure is 0.
func (c *Counts) Stats(device string, seconds float64) Stats {
	s := Stats{Device: device, Seconds: seconds, HasDiscards: c.HasDiscards, HasFlushes: c.HasFlushes}
	if c.Reset {
		s.Reset = true
		return s
	}
	s.Reads, s.ReadsMerged, s.ReadBytes = c.Reads, c.ReadsMerged, c.ReadSectors*diskstats.SectorBytes
	s.Writes, s.WritesMerged, s.WriteBytes = c.Writes, c.WritesMerged, c.WriteSectors*diskstats.SectorBytes
	s.Discards, s.DiscardsMerged, s.DiscardBytes = c.Discards, c.DiscardsMerged, c.DiscardSectors*diskstats.SectorBytes
	s.Flushes = c.Flushes

	s.RMergedPct = mergedPct(c.ReadsMerged, c.Reads)
	s.WMergedPct = mergedPct(c.WritesMerged, c.Writes)
	s.DMergedPct = mergedPct(c.DiscardsMerged, c.Discards)
	s.RAreqSzKiB = per(s.ReadBytes/1024, c.Reads)
	s.WAreqSzKiB = per(s.WriteBytes/1024, c.Writes)
	s.DAreqSzKiB = per(s.DiscardBytes/1024, c.Discards)
	s.RAwaitMs = per(c.ReadMs, c.Reads)
	s.WAwaitMs = per(c.WriteMs, c.Writes)
	s.DAwaitMs = per(c.DiscardMs, c.Discards)
	s.FAwaitMs = per(c.FlushMs, c.Flushes)

	s.IOMs, s.WeightedMs = c.IOMs, c.WeightedMs
	s.over(seconds)
	return s
}

// delta computes iostat's figures for the interval from before to after,
// which lasted seconds. Device is after's name.
func delta(before, after *diskstats.Counters, seconds float64) Stats {
	c := Increase(before, after)
	return c.Stats(after.Name, seconds)
}

// Over is s with its rates taken over seconds: the interval's own length,
// or, where the snapshots' times are unknown (an import's), another
// window the caller names. Without a finite length of at least a
// microsecond the rates are NaN: unknown, not zero.
func (s Stats) Over(seconds float64) Stats {
	s.over(seconds)
	return s
}

// over is Over in place.
func (s *Stats) over(seconds float64) {
	s.Seconds = seconds
	if !(seconds >= minSeconds) || math.IsInf(seconds, 1) {
		nan := math.NaN()
		s.RPerS, s.WPerS, s.DPerS, s.FPerS = nan, nan, nan, nan
		s.RMergedPerS, s.WMergedPerS, s.DMergedPerS = nan, nan, nan
		s.RKiBPerS, s.WKiBPerS, s.DKiBPerS = nan, nan, nan
		s.AquSz, s.UtilPct = nan, nan
		return
	}
	rate := func(x float64) float64 { return x / seconds }
	s.RPerS, s.WPerS, s.DPerS, s.FPerS = rate(s.Reads), rate(s.Writes), rate(s.Discards), rate(s.Flushes)
	s.RMergedPerS, s.WMergedPerS, s.DMergedPerS = rate(s.ReadsMerged), rate(s.WritesMerged), rate(s.DiscardsMerged)
	s.RKiBPerS, s.WKiBPerS, s.DKiBPerS = rate(s.ReadBytes/1024), rate(s.WriteBytes/1024), rate(s.DiscardBytes/1024)
	s.AquSz = rate(s.WeightedMs) / 1000 // ms in the queue per ms
	s.UtilPct = rate(s.IOMs) / 10       // ms busy per ms, in percent
}

// deltas takes counter differences and remembers whether any went
// backwards in a way that is not a wrap.
type deltas struct{ reset bool }

// count is the increase of a request, merge or sector counter.
func (d *deltas) count(before, after uint64) float64 {
	if after < before {
		d.reset = true
		return 0
	}
	return float64(after - before)
}

// ms is the increase of a time counter, which the kernel prints as a
// 32-bit unsigned int: smaller after a wrap.
func (d *deltas) ms(before, after uint64) float64 {
	switch {
	case after >= before:
		return float64(after - before)
	case before <= math.MaxUint32: // and so after too
		return float64(after + (1 << 32) - before)
	}
	d.reset = true
	return 0
}

// mergedPct is iostat's %rrqm: the share of requests merged into others.
func mergedPct(merged, completed float64) float64 {
	if merged+completed == 0 {
		return 0
	}
	return merged / (merged + completed) * 100
}

// per is x per request, 0 without requests, as iostat prints it.
func per(x, requests float64) float64 {
	if requests == 0 {
		return 0
	}
	return x / requests
}
