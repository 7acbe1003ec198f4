package facts

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/samples"
)

// A run's disk figures (disk_figures, disk_intervals) are iostat's figures
// of its device over the whole run and between consecutive snapshots,
// computed from its disk facts: what the analysis reports, stored so that
// it need not read every snapshot's counters again (a study of 100,000
// runs has 1.2 million).

// diskSnap is one diskstats snapshot of a run, with its counters of the
// devices its disk facts keep.
type diskSnap struct {
	seq    int32
	phase  string
	offset float64 // seconds from the start of the timed statement
	at     float64 // seconds, from the snapshot's wall clock, when no offset
	snap   diskstats.Snapshot
}

// snapsOf groups a run's disk fact rows into its snapshots (a snapshot's
// rows come together), appended to snaps.
func snapsOf(rows []samples.DiskFact, snaps []diskSnap) []diskSnap {
	counters := Counters(rows)
	for i := 0; i < len(rows); {
		f := &rows[i]
		j := i + 1
		for j < len(rows) && rows[j].Seq == f.Seq && rows[j].Phase == f.Phase {
			j++
		}
		sn := diskSnap{seq: f.Seq, phase: f.Phase, offset: float64(f.OffsetNs) / 1e9, at: float64(f.TakenAt.UnixNano()) / 1e9}
		if f.Device != "" { // else the snapshot lacks the device: one row, no counters
			sn.snap.Devices = counters[i:j:j]
		}
		snaps = append(snaps, sn)
		i = j
	}
	return snaps
}

// snapOrder orders a run's snapshots: before, the samples, after; within
// a phase by offset, then seq.
func snapOrder(x, y diskSnap) int {
	return cmp.Or(cmp.Compare(phaseRank(x.phase), phaseRank(y.phase)), cmp.Compare(x.offset, y.offset), cmp.Compare(x.seq, y.seq))
}

// phaseRank orders a snapshot's phase: before, the samples, after; an
// unknown phase first.
func phaseRank(p string) int {
	switch p {
	case "sample":
		return 1
	case "after":
		return 2
	}
	return 0
}

// series computes a run's disk figures from its snapshots, given a chunk
// at a time (collect gives a long run's as it spills them). With the run's
// device named, each chunk is folded into the intervals at once and only
// the first and the latest snapshot are kept: a 30-minute statement
// sampled at 10 Hz has 18,000. Without one (an import's run, given whole),
// the device is the busiest between the first and the last snapshot, and
// the snapshots are kept until then.
type series struct {
	run         samples.Run
	dev         string
	tail        []diskSnap // given, not yet folded
	first, prev diskSnap   // the first and the latest folded
	folded      int
	intervals   []samples.DiskInterval
	chunks      int
	// uncomputed says why the figures cannot be computed a chunk at a
	// time ("" when they can): a chunk sorted before one folded already,
	// or a run without a device given in several chunks.
	uncomputed string
}

// add takes the run's next snapshots.
func (s *series) add(rows []samples.DiskFact) {
	if len(rows) == 0 || s.uncomputed != "" {
		return
	}
	s.chunks++
	if s.dev == "" && s.chunks > 1 {
		s.drop("a run without a device given in chunks")
		return
	}
	s.tail = snapsOf(rows, s.tail)
	if s.dev != "" {
		s.fold()
	}
}

// drop gives up computing the figures a chunk at a time.
func (s *series) drop(why string) {
	s.uncomputed, s.tail, s.intervals = why, nil, nil
}

// fold sorts the snapshots not yet folded and adds their intervals.
func (s *series) fold() {
	if len(s.tail) == 0 {
		return
	}
	if !slices.IsSortedFunc(s.tail, snapOrder) { // as the collector wrote them, mostly
		slices.SortFunc(s.tail, snapOrder)
	}
	if s.folded > 0 && snapOrder(s.tail[0], s.prev) < 0 {
		s.drop("snapshots out of order")
		return
	}
	for _, sn := range s.tail {
		if s.folded == 0 {
			s.first = sn
		} else if c, ok := deviceBetween(&s.prev, &sn, s.dev); ok && !c.Reset {
			s.intervals = append(s.intervals, interval(s.run.RunID, sn.offset, snapSecs(&s.prev, &sn), &c))
		}
		s.prev = sn
		s.folded++
	}
	s.tail = s.tail[:0]
}

// finish returns the run's figures over the run (nil when it has none)
// and between its snapshots; false when they could not be computed a
// chunk at a time (uncomputed says why).
func (s *series) finish() (*samples.DiskFigure, []samples.DiskInterval, bool) {
	if s.uncomputed != "" {
		return nil, nil, false
	}
	if s.dev == "" && len(s.tail) >= 2 {
		if !slices.IsSortedFunc(s.tail, snapOrder) {
			slices.SortFunc(s.tail, snapOrder)
		}
		if first, last := s.tail[0], s.tail[len(s.tail)-1]; first.phase == "before" && last.phase == "after" {
			s.dev = busiest(first.snap, last.snap)
		}
	}
	if s.dev == "" {
		return nil, nil, true
	}
	s.fold()
	if s.folded < 2 || s.first.phase != "before" || s.prev.phase != "after" {
		return nil, nil, true
	}
	f := &samples.DiskFigure{RunID: s.run.RunID, Device: s.dev, DeviceNum: deviceNum(&s.first.snap, s.dev)}
	if c, ok := deviceBetween(&s.first, &s.prev, s.dev); ok {
		// Zero is not what the device did when its counters went
		// backwards: it is unknown (figure leaves the counts zero).
		*f = figure(f.RunID, f.Device, f.DeviceNum, snapSecs(&s.first, &s.prev), &c)
	}
	if !f.Known || s.folded == 2 {
		return f, nil, true
	}
	return f, s.intervals, true
}

// deviceBetween is what device dev did from snapshot a to b; false when
// either lacks it.
func deviceBetween(a, b *diskSnap, dev string) (iostat.Counts, bool) {
	before, after := deviceIn(&a.snap, dev), deviceIn(&b.snap, dev)
	if before == nil || after == nil {
		return iostat.Counts{}, false
	}
	return iostat.Increase(before, after), true
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

// deviceNum is a device's number in a snapshot, as cgroup files key it.
func deviceNum(s *diskstats.Snapshot, name string) string {
	if d := deviceIn(s, name); d != nil {
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
