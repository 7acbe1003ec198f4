package analyze

import (
	"fmt"
	"math"
	"slices"

	"github.com/pgstudy/pgstudy/analyze/iostat"
)

// DiskGroup is the medians over rounds of a test and configuration's disk
// figures, each run's taken over its timed statement.
type DiskGroup struct {
	Host   string `json:"host"`
	Test   string `json:"test"`
	Config string `json:"config"`
	Device string `json:"device"`
	N      int    `json:"n"`
	// Medians over the runs.
	Reads        float64 `json:"reads"`
	ReadsMerged  float64 `json:"reads_merged"`
	ReadMiB      float64 `json:"read_mib"`
	RAreqSzKiB   float64 `json:"rareq_sz_kib"`
	RPerS        float64 `json:"r_per_s"`
	RMiBPerS     float64 `json:"r_mib_per_s"`
	RAwaitMs     float64 `json:"r_await_ms"`
	Writes       float64 `json:"writes"`
	WritesMerged float64 `json:"writes_merged"`
	Discards     float64 `json:"discards"`
	Flushes      float64 `json:"flushes"`
	WriteMiB     float64 `json:"write_mib"`
	WAreqSzKiB   float64 `json:"wareq_sz_kib"`
	WPerS        float64 `json:"w_per_s"`
	WMiBPerS     float64 `json:"w_mib_per_s"`
	WAwaitMs     float64 `json:"w_await_ms"`
	AquSz        float64 `json:"aqu_sz"`
	UtilPct      float64 `json:"util_pct"`
	// Bounded counts the runs whose throughput came within 10% of the
	// device's limit.
	Bounded int `json:"bounded"`
}

const mib = 1 << 20

// boundedShare is how close to a device's limit a run must come to be
// called bounded by it.
const boundedShare = 0.9

func (a *Analysis) disks() {
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && r.Disk != nil })
	for _, k := range keys {
		runs := groups[k]
		g := DiskGroup{Host: k.Host, Test: k.Test, Config: k.Config, Device: runs[0].Device, N: len(runs)}
		med := func(f func(s *iostat.Stats) float64) float64 {
			xs := make([]float64, len(runs))
			for i, r := range runs {
				xs[i] = f(r.Disk)
			}
			return median(xs)
		}
		g.Reads = med(func(s *iostat.Stats) float64 { return s.Reads })
		g.ReadsMerged = med(func(s *iostat.Stats) float64 { return s.ReadsMerged })
		g.WritesMerged = med(func(s *iostat.Stats) float64 { return s.WritesMerged })
		g.Discards = med(func(s *iostat.Stats) float64 { return s.Discards })
		g.Flushes = med(func(s *iostat.Stats) float64 { return s.Flushes })
		g.ReadMiB = med(func(s *iostat.Stats) float64 { return s.ReadBytes / mib })
		g.RAreqSzKiB = med(func(s *iostat.Stats) float64 { return s.RAreqSzKiB })
		g.RPerS = med(func(s *iostat.Stats) float64 { return s.RPerS })
		g.RMiBPerS = med(func(s *iostat.Stats) float64 { return s.RKiBPerS / 1024 })
		g.RAwaitMs = med(func(s *iostat.Stats) float64 { return s.RAwaitMs })
		g.Writes = med(func(s *iostat.Stats) float64 { return s.Writes })
		g.WriteMiB = med(func(s *iostat.Stats) float64 { return s.WriteBytes / mib })
		g.WAreqSzKiB = med(func(s *iostat.Stats) float64 { return s.WAreqSzKiB })
		g.WPerS = med(func(s *iostat.Stats) float64 { return s.WPerS })
		g.WMiBPerS = med(func(s *iostat.Stats) float64 { return s.WKiBPerS / 1024 })
		g.WAwaitMs = med(func(s *iostat.Stats) float64 { return s.WAwaitMs })
		g.AquSz = med(func(s *iostat.Stats) float64 { return s.AquSz })
		g.UtilPct = med(func(s *iostat.Stats) float64 { return s.UtilPct })
		for _, r := range runs {
			if bounded, _ := a.boundedBy(r); len(bounded) > 0 {
				g.Bounded++
			}
		}
		a.Disks = append(a.Disks, g)
	}
}

// boundedBy lists the limits of the run's device that its throughput came
// within 10% of, over the whole statement or in its median interval; and
// those it went more than 10% above, which says the study's limit is not
// the device's (or that something else used the device).
func (a *Analysis) boundedBy(r *Run) (bounded, above []string) {
	l, ok := a.Limits[r.Device]
	if !ok || r.Disk == nil {
		return nil, nil
	}
	figures := []*iostat.Stats{r.Disk}
	if len(r.Series) > 0 {
		// The median interval by total throughput, so that the statement's
		// ramp up and tail do not hide a plateau at the limit.
		s := slices.Clone(r.Series)
		slices.SortFunc(s, func(x, y DiskInterval) int {
			return cmpFloat(x.Stats.RKiBPerS+x.Stats.WKiBPerS, y.Stats.RKiBPerS+y.Stats.WKiBPerS)
		})
		figures = append(figures, &s[len(s)/2].Stats)
	}
	check := func(what string, limit float64, f func(s *iostat.Stats) float64, unit string) {
		if limit <= 0 {
			return
		}
		// Bounded when any figure is within 10% of the limit; above it only
		// when every figure is more than 10% over (a throttled device's
		// bursts can lift one interval over its limit).
		in, over, lowest := -1.0, true, math.Inf(1)
		for _, s := range figures {
			v := f(s)
			lowest = min(lowest, v)
			if v >= boundedShare*limit && v <= limit/boundedShare {
				in = max(in, v)
			}
			over = over && v > limit/boundedShare
		}
		switch {
		case in >= 0:
			bounded = append(bounded, fmt.Sprintf("%s %.1f %s against a limit of %g", what, in, unit, limit))
		case over:
			above = append(above, fmt.Sprintf("%s %.1f %s against a limit of %g", what, lowest, unit, limit))
		}
	}
	check("read", l.ReadMiBs, func(s *iostat.Stats) float64 { return s.RKiBPerS / 1024 }, "MiB/s")
	check("write", l.WriteMiBs, func(s *iostat.Stats) float64 { return s.WKiBPerS / 1024 }, "MiB/s")
	check("read+write", l.MiBs, func(s *iostat.Stats) float64 { return (s.RKiBPerS + s.WKiBPerS) / 1024 }, "MiB/s")
	check("requests", l.IOPS, func(s *iostat.Stats) float64 { return s.RPerS + s.WPerS }, "IOPS")
	return bounded, above
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// median of xs, which it sorts.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
