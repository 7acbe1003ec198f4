package facts

import (
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/samples"
)

// diskFacts parses a run's diskstats snapshots into rows: the counters of
// the run's device (every device when it names none), or one row with an
// empty device for a snapshot that lacks it. A snapshot that could not be
// read has no row; what went wrong is said in problems and warns.
func diskFacts(run samples.Run, rows []samples.Diskstats, warns *Warnings, problems *[]string) []samples.DiskFact {
	dev := Device(run)
	var out []samples.DiskFact
	for _, d := range rows {
		s, ws, err := diskstats.Parse(strings.NewReader(d.Text), fmt.Sprintf("run %d diskstats %d", run.RunID, d.Seq))
		warns.Add("diskstats", ws, nil)
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("diskstats: %v", err))
			continue
		}
		base := samples.DiskFact{RunID: run.RunID, Seq: d.Seq, Phase: d.Phase, TakenAt: d.TakenAt, OffsetNs: d.OffsetNs}
		n := 0
		for _, c := range s.Devices {
			if dev != "" && c.Name != dev {
				continue
			}
			out = append(out, diskFact(base, c))
			n++
		}
		if n == 0 {
			out = append(out, base)
		}
	}
	return out
}

func diskFact(f samples.DiskFact, c diskstats.Counters) samples.DiskFact {
	i := func(v uint64) int64 { return int64(v) }
	p := func(v uint64) *int64 { x := int64(v); return &x }
	f.Device, f.Major, f.Minor, f.Fields = c.Name, int64(c.Major), int64(c.Minor), int32(c.Fields)
	f.Reads, f.ReadsMerged, f.ReadSectors, f.ReadMs = i(c.ReadsCompleted), i(c.ReadsMerged), i(c.ReadSectors), i(c.ReadTimeMs)
	f.Writes, f.WritesMerged, f.WriteSectors, f.WriteMs = i(c.WritesCompleted), i(c.WritesMerged), i(c.WriteSectors), i(c.WriteTimeMs)
	f.InFlight, f.IOMs, f.WeightedIOMs = i(c.InFlight), i(c.IOTimeMs), i(c.WeightedIOTimeMs)
	if d := c.Discards; d.Valid {
		f.Discards, f.DiscardsMerged, f.DiscardSectors, f.DiscardMs = p(d.V.Completed), p(d.V.Merged), p(d.V.Sectors), p(d.V.TimeMs)
	}
	if fl := c.Flushes; fl.Valid {
		f.Flushes, f.FlushMs = p(fl.V.Completed), p(fl.V.TimeMs)
	}
	return f
}

// Counters are the device counters of a run's disk fact rows, one per row
// (zero for a row of a snapshot without the device). A row's discard or
// flush counters are absent (not Valid) unless all of their columns are
// set.
func Counters(rows []samples.DiskFact) []diskstats.Counters {
	u := func(v int64) uint64 { return uint64(v) }
	out := make([]diskstats.Counters, len(rows))
	for k := range rows {
		f := &rows[k]
		if f.Device == "" {
			continue
		}
		out[k] = diskstats.Counters{Major: uint32(f.Major), Minor: uint32(f.Minor), Name: f.Device, Fields: int(f.Fields),
			ReadsCompleted: u(f.Reads), ReadsMerged: u(f.ReadsMerged), ReadSectors: u(f.ReadSectors), ReadTimeMs: u(f.ReadMs),
			WritesCompleted: u(f.Writes), WritesMerged: u(f.WritesMerged), WriteSectors: u(f.WriteSectors), WriteTimeMs: u(f.WriteMs),
			InFlight: u(f.InFlight), IOTimeMs: u(f.IOMs), WeightedIOTimeMs: u(f.WeightedIOMs)}
		if f.Discards != nil && f.DiscardsMerged != nil && f.DiscardSectors != nil && f.DiscardMs != nil {
			out[k].Discards = parse.Some(diskstats.Discards{Completed: u(*f.Discards), Merged: u(*f.DiscardsMerged), Sectors: u(*f.DiscardSectors), TimeMs: u(*f.DiscardMs)})
		}
		if f.Flushes != nil && f.FlushMs != nil {
			out[k].Flushes = parse.Some(diskstats.Flushes{Completed: u(*f.Flushes), TimeMs: u(*f.FlushMs)})
		}
	}
	return out
}
