package analyze

import (
	"math"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/samples"
)

// diskRoom is room for the disk figures of a part's runs, taken a run at
// a time: a study of 100,000 runs has as many figures over the run and a
// million intervals, which were two hundred thousand allocations, each
// rounded up to its size class.
type diskRoom struct {
	disks  []iostat.Stats
	series []DiskInterval
}

// disk keeps st in the room, or in its own memory when the room is full.
func (r *diskRoom) disk(st *iostat.Stats) *iostat.Stats {
	if len(r.disks) == cap(r.disks) {
		c := *st
		return &c
	}
	r.disks = append(r.disks, *st)
	return &r.disks[len(r.disks)-1]
}

// intervals is room for n intervals, empty, from the room when it has it.
func (r *diskRoom) intervals(n int) []DiskInterval {
	if cap(r.series)-len(r.series) < n {
		return make([]DiskInterval, 0, n)
	}
	s := r.series[len(r.series) : len(r.series) : len(r.series)+n]
	r.series = r.series[:len(r.series)+n]
	return s
}

// applyDiskFigures gives a part's runs their disk figures, over the run
// and per interval, from their rows of disk_figures and disk_intervals
// (a run's rows come together), in room made once for the part.
func applyDiskFigures(figures []samples.DiskFigure, intervals []samples.DiskInterval, byID map[int64]*Run) {
	room := diskRoom{disks: make([]iostat.Stats, 0, len(figures)), series: make([]DiskInterval, 0, len(intervals))}
	for i := range figures {
		f := &figures[i]
		run := byID[f.RunID]
		if run == nil {
			continue
		}
		run.Device, run.DeviceNum = f.Device, f.DeviceNum
		switch {
		case f.Reset:
			run.diskReset = true
			run.warnf("diskstats: the counters of %s went backwards during the run (the device was re-created or its statistics reset): its disk figures are unknown", f.Device)
		case f.Known:
			c := facts.FigureCounts(f)
			st := c.Stats(f.Device, f.Seconds)
			run.Disk = room.disk(&st)
		}
	}
	for i := 0; i < len(intervals); {
		j := i + 1
		for j < len(intervals) && intervals[j].RunID == intervals[i].RunID {
			j++
		}
		if run := byID[intervals[i].RunID]; run != nil {
			run.Series = room.intervals(j - i)
			for k := i; k < j; k++ {
				c := facts.IntervalCounts(&intervals[k])
				st := c.Stats("", intervals[k].Seconds)
				run.Series = append(run.Series, DiskInterval{OffsetS: intervals[k].OffsetS, Stats: IntervalStats{Seconds: st.Seconds,
					RPerS: st.RPerS, WPerS: st.WPerS, RKiBPerS: st.RKiBPerS, WKiBPerS: st.WKiBPerS, RAreqSzKiB: st.RAreqSzKiB,
					AquSz: st.AquSz, UtilPct: st.UtilPct}})
			}
		}
		i = j
	}
}

// diskRatesFromTime takes the rates of a run whose snapshots have no
// times (an import's) over the statement's own time, when it has one: the
// best window known, and said so (DiskRatesOver). Without one the rates
// stay unknown.
func (run *Run) diskRatesFromTime() {
	if run.Disk == nil || !math.IsNaN(run.Disk.RPerS) || !run.HasTime || run.TimeMs <= 0 {
		return
	}
	*run.Disk = run.Disk.Over(run.TimeMs / 1000)
	run.DiskRatesOver = "statement"
}
