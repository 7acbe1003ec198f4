package analyze

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/samples"
)

// diskSnap is one diskstats snapshot of a run.
type diskSnap struct {
	seq    int32
	phase  string
	offset float64
	at     float64 // seconds, from the snapshot's wall clock, when no offset
	snap   diskstats.Snapshot
}

// diskRoom is room for the disk figures of a part's runs, taken a run at
// a time: a study of 100,000 runs has as many figures over the run and a
// million intervals, which were two hundred thousand allocations, each
// rounded up to its size class.
type diskRoom struct {
	disks  []iostat.Stats
	series []DiskInterval
}

// newDiskRoom makes room for the figures of the runs of a part's disk
// fact rows: at most a figure over the run for each run, and an interval
// for each row but a run's first.
func newDiskRoom(rows []samples.DiskFact) diskRoom {
	runs := 0
	for i := range rows {
		if i == 0 || rows[i].RunID != rows[i-1].RunID {
			runs++
		}
	}
	return diskRoom{disks: make([]iostat.Stats, 0, runs), series: make([]DiskInterval, 0, max(len(rows)-runs, 0))}
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

// diskFigures computes the run's disk figures from its snapshots (two or
// more): over the whole run from the first ("before") to the last
// ("after"), and, with samples between, per interval; in room.
func (run *Run) diskFigures(snaps []diskSnap, room *diskRoom) {
	order := func(x, y diskSnap) int {
		return cmp.Or(cmp.Compare(phaseRank(x.phase), phaseRank(y.phase)), cmp.Compare(x.offset, y.offset), cmp.Compare(x.seq, y.seq))
	}
	if !slices.IsSortedFunc(snaps, order) { // as the collector wrote them, mostly
		slices.SortFunc(snaps, order)
	}
	first, last := snaps[0], snaps[len(snaps)-1]
	if first.phase != "before" || last.phase != "after" {
		return
	}
	dev := run.Device
	if dev == "" {
		dev = busiest(first.snap, last.snap)
		run.Device = dev
	}
	if dev == "" {
		return
	}
	run.DeviceNum = deviceNum(first.snap, dev)
	if st, ok := deviceBetween(&first, &last, dev); ok {
		if st.Reset {
			// Zero is not what the device did: it is unknown.
			run.diskReset = true
			run.warnf("diskstats: the counters of %s went backwards during the run (the device was re-created or its statistics reset): its disk figures are unknown", dev)
		} else {
			run.Disk = room.disk(&st)
		}
	}
	if len(snaps) > 2 && run.Disk != nil {
		run.Series = room.intervals(len(snaps) - 1)
		for i := 1; i < len(snaps); i++ {
			if st, ok := deviceBetween(&snaps[i-1], &snaps[i], dev); ok && !st.Reset {
				run.Series = append(run.Series, DiskInterval{OffsetS: snaps[i].offset, Stats: intervalStats(&st)})
			}
		}
	}
}

// deviceBetween is iostat's figures of device dev from snapshot a to b;
// false when either lacks it.
func deviceBetween(a, b *diskSnap, dev string) (iostat.Stats, bool) {
	before, after := deviceIn(&a.snap, dev), deviceIn(&b.snap, dev)
	if before == nil || after == nil {
		return iostat.Stats{}, false
	}
	return iostat.Of(before, after, snapSecs(a, b)), true
}

// deviceIn is Snapshot.Device in place: the counters of the device named,
// nil when the snapshot lacks it.
func deviceIn(s *diskstats.Snapshot, name string) *diskstats.Counters {
	for i := range s.Devices {
		if s.Devices[i].Name == name {
			return &s.Devices[i]
		}
	}
	return nil
}

// phaseRank orders a snapshot's phase: before, the samples, after; an
// unknown phase first.
func phaseRank(p string) int {
	switch p {
	case "before":
		return 0
	case "sample":
		return 1
	case "after":
		return 2
	}
	return 0
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

// deviceNum is a device's number in a snapshot, as cgroup files key it.
func deviceNum(s diskstats.Snapshot, name string) string {
	if d := deviceIn(&s, name); d != nil {
		// Not fmt: it is made once a run.
		var b [24]byte
		return string(strconv.AppendUint(append(strconv.AppendUint(b[:0], uint64(d.Major), 10), ':'), uint64(d.Minor), 10))
	}
	return ""
}

// snapSecs is the time between two snapshots: by their offsets in the run,
// or by their wall clocks when they have none.
func snapSecs(a, b *diskSnap) float64 {
	if d := b.offset - a.offset; d > 0 {
		return d
	}
	return b.at - a.at
}

// busiest is the whole disk that moved the most bytes between two
// snapshots: the device of an imported run, which names none.
func busiest(before, after diskstats.Snapshot) string {
	best, most := "", -1.0
	for _, st := range iostat.Between(before, after, 1, nil) {
		if b := st.ReadBytes + st.WriteBytes; b > most && !st.Reset {
			best, most = st.Device, b
		}
	}
	return best
}
