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

// delta computes iostat's figures for the interval from before to after,
// which lasted seconds (rates are 0 when seconds is not a finite number of
// at least a microsecond; the counts and per-request figures are still
// given). Device is after's name.
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
// interval is marked Reset and every figure is 0. iostat instead, when
// its request count and every sector count went down, reports the
// interval as if before were all zeros, which turns the counts since the
// restart into one interval's rate (and otherwise takes a count that went
// down as a wrap); neither measures the interval, so it is refused here.
//
// The counters come by pointer and the figures are filled in place: an
// analysis of 100,000 runs takes a million intervals, and copies of the
// counters and figures were a third of their time.
func delta(before, after *diskstats.Counters, seconds float64) Stats {
	s := Stats{
		Device:      after.Name,
		Seconds:     seconds,
		HasDiscards: before.Discards.Valid && after.Discards.Valid,
		HasFlushes:  before.Flushes.Valid && after.Flushes.Valid,
	}
	var d deltas
	reads := d.count(before.ReadsCompleted, after.ReadsCompleted)
	readsMerged := d.count(before.ReadsMerged, after.ReadsMerged)
	readSectors := d.count(before.ReadSectors, after.ReadSectors)
	readMs := d.ms(before.ReadTimeMs, after.ReadTimeMs)
	writes := d.count(before.WritesCompleted, after.WritesCompleted)
	writesMerged := d.count(before.WritesMerged, after.WritesMerged)
	writeSectors := d.count(before.WriteSectors, after.WriteSectors)
	writeMs := d.ms(before.WriteTimeMs, after.WriteTimeMs)
	ioMs := d.ms(before.IOTimeMs, after.IOTimeMs)
	weightedMs := d.ms(before.WeightedIOTimeMs, after.WeightedIOTimeMs)
	var discards, discardsMerged, discardSectors, discardMs, flushes, flushMs float64
	if s.HasDiscards {
		b, a := before.Discards.V, after.Discards.V
		discards = d.count(b.Completed, a.Completed)
		discardsMerged = d.count(b.Merged, a.Merged)
		discardSectors = d.count(b.Sectors, a.Sectors)
		discardMs = d.ms(b.TimeMs, a.TimeMs)
	}
	if s.HasFlushes {
		b, a := before.Flushes.V, after.Flushes.V
		flushes = d.count(b.Completed, a.Completed)
		flushMs = d.ms(b.TimeMs, a.TimeMs)
	}
	if d.reset {
		s.Reset = true
		return s
	}

	s.Reads, s.ReadsMerged, s.ReadBytes = reads, readsMerged, readSectors*diskstats.SectorBytes
	s.Writes, s.WritesMerged, s.WriteBytes = writes, writesMerged, writeSectors*diskstats.SectorBytes
	s.Discards, s.DiscardsMerged, s.DiscardBytes = discards, discardsMerged, discardSectors*diskstats.SectorBytes
	s.Flushes = flushes

	s.RMergedPct = mergedPct(readsMerged, reads)
	s.WMergedPct = mergedPct(writesMerged, writes)
	s.DMergedPct = mergedPct(discardsMerged, discards)
	s.RAreqSzKiB = per(s.ReadBytes/1024, reads)
	s.WAreqSzKiB = per(s.WriteBytes/1024, writes)
	s.DAreqSzKiB = per(s.DiscardBytes/1024, discards)
	s.RAwaitMs = per(readMs, reads)
	s.WAwaitMs = per(writeMs, writes)
	s.DAwaitMs = per(discardMs, discards)
	s.FAwaitMs = per(flushMs, flushes)

	s.IOMs, s.WeightedMs = ioMs, weightedMs
	s.over(seconds)
	return s
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
