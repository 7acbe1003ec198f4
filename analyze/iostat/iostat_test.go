package iostat

import (
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/diskstats"
)

// fixture reads a pair of snapshots made by testdata/capture.sh (suffix
// "" for the 20-field copies, "-18field" or "-14field" for the cut ones)
// and the seconds between them.
func fixture(t testing.TB, suffix string) (before, after diskstats.Snapshot, seconds float64) {
	t.Helper()
	read := func(name string) diskstats.Snapshot {
		f, err := os.Open("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s, warns, err := diskstats.Parse(f, name)
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v", name, err, warns)
		}
		return s
	}
	b, err := os.ReadFile("testdata/interval.txt")
	if err != nil {
		t.Fatal(err)
	}
	seconds, err = strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		t.Fatalf("interval.txt: %v", err)
	}
	return read("before" + suffix + ".txt"), read("after" + suffix + ".txt"), seconds
}

// TestDeltaFixture checks every figure for vda between the two captured
// snapshots against values worked out by hand from the files (the
// differences of vda's counters in after.txt and before.txt, over the
// seconds of interval.txt), in the three shapes of /proc/diskstats.
func TestDeltaFixture(t *testing.T) {
	// vda's counters, after.txt minus before.txt:
	//   reads 1024, merged 0, sectors 131072, 87 ms
	//   writes 297, merged 33, sectors 36608, 62 ms
	//   io 136 ms, weighted 169 ms
	//   discards 3, merged 0, sectors 32776, 6 ms; flushes 2, 14 ms
	const sec = 1.184873 // interval.txt
	all := Stats{
		Device: "vda", Seconds: sec,
		Reads: 1024, ReadBytes: 131072 * 512,
		Writes: 297, WritesMerged: 33, WriteBytes: 36608 * 512,
		Discards: 3, DiscardBytes: 32776 * 512,
		Flushes: 2,
		RPerS:   1024 / sec, WPerS: 297 / sec, DPerS: 3 / sec, FPerS: 2 / sec,
		WMergedPerS: 33 / sec,
		WMergedPct:  10, // 33 of 330 requests
		RKiBPerS:    65536 / sec, WKiBPerS: 18304 / sec, DKiBPerS: 16388 / sec,
		RAreqSzKiB: 64, WAreqSzKiB: 18304.0 / 297, DAreqSzKiB: 16388.0 / 3,
		RAwaitMs: 87.0 / 1024, WAwaitMs: 62.0 / 297, DAwaitMs: 2, FAwaitMs: 7,
		AquSz:   0.169 / sec,
		UtilPct: 13.6 / sec,
		IOMs:    136, WeightedMs: 169,
		HasDiscards: true, HasFlushes: true,
	}
	noFlushes := all
	noFlushes.HasFlushes = false
	noFlushes.Flushes, noFlushes.FPerS, noFlushes.FAwaitMs = 0, 0, 0
	noDiscards := noFlushes
	noDiscards.HasDiscards = false
	noDiscards.Discards, noDiscards.DiscardBytes, noDiscards.DPerS = 0, 0, 0
	noDiscards.DKiBPerS, noDiscards.DAreqSzKiB, noDiscards.DAwaitMs = 0, 0, 0

	for _, tc := range []struct {
		name, suffix string
		want         Stats
	}{
		{"20 fields", "", all},
		{"18 fields", "-18field", noFlushes},
		{"14 fields", "-14field", noDiscards},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, after, seconds := fixture(t, tc.suffix)
			if seconds != sec {
				t.Fatalf("interval.txt says %v s; the expected values are for %v s: work them out again", seconds, sec)
			}
			got := Between(before, after, seconds, []string{"vda"})
			if len(got) != 1 {
				t.Fatalf("Between: %d stats, want 1", len(got))
			}
			checkStats(t, got[0], tc.want)
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// checkStats compares every field, the floats to 1e-12 relative.
func checkStats(t *testing.T, got, want Stats) {
	t.Helper()
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		name := g.Type().Field(i).Name
		gf, wf := g.Field(i), w.Field(i)
		if gf.Kind() == reflect.Float64 {
			a, b := gf.Float(), wf.Float()
			if !near(a, b) {
				t.Errorf("%s = %v, want %v", name, a, b)
			}
			continue
		}
		if !reflect.DeepEqual(gf.Interface(), wf.Interface()) {
			t.Errorf("%s = %v, want %v", name, gf.Interface(), wf.Interface())
		}
	}
}

// TestBetweenFixture: with no names, the whole disks that have done I/O
// (vda; not the idle loop and zram devices); named devices as asked, idle
// or not, missing ones left out.
func TestBetweenFixture(t *testing.T) {
	before, after, seconds := fixture(t, "")
	for _, tc := range []struct {
		name    string
		devices []string
		want    []string
	}{
		{"all", nil, []string{"vda"}},
		{"named idle", []string{"loop0", "vda"}, []string{"loop0", "vda"}},
		{"missing", []string{"sdz", "vda"}, []string{"vda"}},
		{"none present", []string{"sdz"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range Between(before, after, seconds, tc.devices) {
				got = append(got, s.Device)
				if s.Device == "loop0" && (s.Reset || s.Reads != 0 || s.UtilPct != 0 || !s.HasFlushes) {
					t.Errorf("idle loop0: %+v", s)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("devices %v, want %v", got, tc.want)
			}
		})
	}
}

// diskLine prints a 20-field /proc/diskstats line whose counters are all n.
func diskLine(major, minor int, name string, n uint64) string {
	c := strconv.FormatUint(n, 10)
	return strconv.Itoa(major) + " " + strconv.Itoa(minor) + " " + name + strings.Repeat(" "+c, 17) + "\n"
}

func snapshot(t testing.TB, text string) diskstats.Snapshot {
	t.Helper()
	s, warns, err := diskstats.Parse(strings.NewReader(text), "test")
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %v", err, warns)
	}
	return s
}

// TestBetweenPartitions: the whole disks of a host with partitions on
// every common kind of disk, in the kernel's order, each once.
func TestBetweenPartitions(t *testing.T) {
	names := []string{
		"sda", "sda1", "sda2", "sdaa", "sdaa10", "nvme0n1", "nvme0n1p1", "nvme0n10", "nvme0n10p3",
		"mmcblk0", "mmcblk0p1", "mmcblk0boot0", "mmcblk0rpmb", "vda", "vda1", "xvda", "xvda1",
		"dm-0", "dm-1", "dm-10", "md0", "md0p1", "md127", "loop0", "loop0p1", "nbd0", "nbd0p1", "sr0", "zram0",
	}
	var b, a strings.Builder
	for i, n := range names {
		b.WriteString(diskLine(8, i, n, 10))
		a.WriteString(diskLine(8, i, n, 20))
	}
	got := Between(snapshot(t, b.String()), snapshot(t, a.String()), 1, nil)
	var disks []string
	for _, s := range got {
		disks = append(disks, s.Device)
		if s.Reads != 10 || s.RPerS != 10 || s.Reset {
			t.Errorf("%s: %+v", s.Device, s)
		}
	}
	want := []string{"sda", "sdaa", "nvme0n1", "nvme0n10", "mmcblk0", "mmcblk0boot0", "mmcblk0rpmb", "vda", "xvda",
		"dm-0", "dm-1", "dm-10", "md0", "md127", "loop0", "nbd0", "sr0", "zram0"}
	if !slices.Equal(disks, want) {
		t.Errorf("whole disks\n got %v\nwant %v", disks, want)
	}
}

func TestIsPartition(t *testing.T) {
	all := []string{"sda", "sda1", "nvme0n1", "nvme0n1p1", "mmcblk0", "mmcblk0p2", "dm-1", "dm-12", "loop3", "loop3p1", "md0", "md0p1"}
	for _, tc := range []struct {
		name string
		all  []string
		want bool
	}{
		{"sda", all, false},
		{"sda1", all, true},
		{"sda1", nil, true}, // by name alone
		{"sdab12", nil, true},
		{"sda0", nil, false}, // partitions count from 1
		{"nvme0n1", all, false},
		{"nvme0n1p1", all, true},
		{"nvme0n1p1", nil, true},
		{"nvme12n3p45", nil, true},
		{"nvme0n12", all, false}, // another namespace, not nvme0n1's partition 2
		{"nvme0c0n1", nil, false},
		{"mmcblk0p2", nil, true},
		{"mmcblk0boot0", all, false},
		{"mmcblk0rpmb", all, false},
		{"vdb3", nil, true},
		{"vdb", nil, false},
		{"xvdf1", nil, true},
		{"xvdf", nil, false},
		{"hda2", nil, true},
		{"dm-1", all, false},
		{"dm-12", all, false}, // not dm-1's partition 2
		{"md0", all, false},
		{"md0p1", all, true},
		{"md127", nil, false},
		{"loop3", all, false},
		{"loop3p1", all, true},
		{"loop3p1", nil, false}, // unknown family, its disk not listed
		{"loop31", all, false},  // loop3's partitions are loop3pN
		{"zram0", all, false},
		{"sr0", nil, false},
		{"sd", nil, false},
		{"", all, false},
	} {
		if got := isPartition(tc.name, tc.all); got != tc.want {
			t.Errorf("IsPartition(%q, %v) = %v, want %v", tc.name, tc.all, got, tc.want)
		}
	}
}

// counters builds a 20-field line's counters, all set to n.
func counters(n uint64) diskstats.Counters {
	return diskstats.Counters{
		Name: "sda", Fields: 20,
		ReadsCompleted: n, ReadsMerged: n, ReadSectors: n, ReadTimeMs: n,
		WritesCompleted: n, WritesMerged: n, WriteSectors: n, WriteTimeMs: n,
		InFlight: n, IOTimeMs: n, WeightedIOTimeMs: n,
		Discards: parse.Some(diskstats.Discards{Completed: n, Merged: n, Sectors: n, TimeMs: n}),
		Flushes:  parse.Some(diskstats.Flushes{Completed: n, TimeMs: n}),
	}
}

// TestDeltaBackwards: a count that goes down is a reset; a time that goes
// down within 32 bits is a wrap of the kernel's unsigned int, counted
// modulo 2^32; one that goes down from beyond 32 bits is a reset.
func TestDeltaBackwards(t *testing.T) {
	const top = math.MaxUint32
	type mod func(b, a *diskstats.Counters)
	for _, tc := range []struct {
		name  string
		mod   mod
		reset bool
		check func(t *testing.T, s Stats)
	}{
		{"reads", func(b, a *diskstats.Counters) { a.ReadsCompleted = 99 }, true, nil},
		{"reads merged", func(b, a *diskstats.Counters) { a.ReadsMerged = 99 }, true, nil},
		{"read sectors", func(b, a *diskstats.Counters) { a.ReadSectors = 0 }, true, nil},
		{"writes", func(b, a *diskstats.Counters) { a.WritesCompleted = 99 }, true, nil},
		{"writes merged", func(b, a *diskstats.Counters) { a.WritesMerged = 99 }, true, nil},
		{"write sectors", func(b, a *diskstats.Counters) { a.WriteSectors = 99 }, true, nil},
		{"discards", func(b, a *diskstats.Counters) { a.Discards.V.Completed = 99 }, true, nil},
		{"discards merged", func(b, a *diskstats.Counters) { a.Discards.V.Merged = 99 }, true, nil},
		{"discard sectors", func(b, a *diskstats.Counters) { a.Discards.V.Sectors = 99 }, true, nil},
		{"flushes", func(b, a *diskstats.Counters) { a.Flushes.V.Completed = 99 }, true, nil},
		{"device re-created", func(b, a *diskstats.Counters) { *a = counters(7) }, true, nil},
		{"64-bit count past 2^32", func(b, a *diskstats.Counters) {
			b.ReadsCompleted, a.ReadsCompleted = top+5, top+1005
		}, false, func(t *testing.T, s Stats) {
			if s.Reads != 1000 {
				t.Errorf("Reads = %v, want 1000", s.Reads)
			}
		}},
		{"read time wraps", func(b, a *diskstats.Counters) {
			b.ReadTimeMs, a.ReadTimeMs = top-9, 90 // 100 ms
		}, false, func(t *testing.T, s Stats) {
			if s.RAwaitMs != 1 {
				t.Errorf("RAwaitMs = %v, want 1 (100 ms over 100 reads)", s.RAwaitMs)
			}
		}},
		{"io time wraps", func(b, a *diskstats.Counters) {
			b.IOTimeMs, a.IOTimeMs = top, 499 // 500 ms
		}, false, func(t *testing.T, s Stats) {
			if s.UtilPct != 50 {
				t.Errorf("UtilPct = %v, want 50", s.UtilPct)
			}
		}},
		{"weighted time wraps", func(b, a *diskstats.Counters) {
			b.WeightedIOTimeMs, a.WeightedIOTimeMs = top-999, 2000 // 3000 ms
		}, false, func(t *testing.T, s Stats) {
			if s.AquSz != 3 {
				t.Errorf("AquSz = %v, want 3", s.AquSz)
			}
		}},
		{"flush time wraps", func(b, a *diskstats.Counters) {
			b.Flushes.V.TimeMs, a.Flushes.V.TimeMs = top, 99 // 100 ms
		}, false, func(t *testing.T, s Stats) {
			if s.FAwaitMs != 1 {
				t.Errorf("FAwaitMs = %v, want 1", s.FAwaitMs)
			}
		}},
		{"time beyond 32 bits goes down", func(b, a *diskstats.Counters) {
			b.WriteTimeMs, a.WriteTimeMs = top+1, 5
		}, true, nil},
		{"discard time beyond 32 bits goes down", func(b, a *diskstats.Counters) {
			b.Discards.V.TimeMs, a.Discards.V.TimeMs = 1<<40, 1<<39
		}, true, nil},
		{"in flight goes down", func(b, a *diskstats.Counters) { // a gauge
			b.InFlight, a.InFlight = 1<<40, 0
		}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, a := counters(100), counters(200)
			tc.mod(&b, &a)
			s := delta(&b, &a, 1)
			if s.Reset != tc.reset {
				t.Fatalf("Reset = %v, want %v: %+v", s.Reset, tc.reset, s)
			}
			if s.Reset {
				want := Stats{Device: "sda", Seconds: 1, HasDiscards: true, HasFlushes: true, Reset: true}
				if s != want {
					t.Errorf("reset interval with figures: %+v", s)
				}
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

// TestDeltaSeconds: without a usable interval, the rates are unknown
// (NaN), the counts and per-request figures are there; an interval
// without I/O gives zeros, not NaN.
func TestDeltaSeconds(t *testing.T) {
	b, a := counters(100), counters(300) // 200 of each; 1 ms a request
	for _, tc := range []struct {
		name    string
		seconds float64
		rates   bool
	}{
		{"two seconds", 2, true},
		{"a microsecond", 1e-6, true},
		{"zero", 0, false},
		{"below a microsecond", 1e-7, false},
		{"negative", -1, false},
		{"NaN", math.NaN(), false},
		{"infinite", math.Inf(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := delta(&b, &a, tc.seconds)
			if s.Reads != 200 || s.RAwaitMs != 1 || s.RAreqSzKiB != 0.5 || s.WMergedPct != 50 || s.FAwaitMs != 1 {
				t.Errorf("counts or per-request figures: %+v", s)
			}
			for _, r := range []float64{s.RPerS, s.WPerS, s.RKiBPerS, s.WKiBPerS, s.RMergedPerS, s.AquSz, s.UtilPct} {
				if got := !math.IsNaN(r); got != tc.rates {
					t.Errorf("a rate is %v; rates wanted: %v: %+v", r, tc.rates, s)
				}
			}
			if o := s.Over(4); !near(o.RPerS, 50) || !near(o.UtilPct, 5) || !near(o.AquSz, 0.05) || o.Reads != 200 || o.Seconds != 4 {
				t.Errorf("over 4 s: %+v", o)
			}
			if tc.rates && (!near(s.RPerS, 200/tc.seconds) || !near(s.UtilPct, 20/tc.seconds) || !near(s.AquSz, 0.2/tc.seconds)) {
				t.Errorf("rates: %+v", s)
			}
		})
	}
	t.Run("idle", func(t *testing.T) {
		c := counters(5)
		s := delta(&c, &c, 1)
		want := Stats{Device: "sda", Seconds: 1, HasDiscards: true, HasFlushes: true}
		if s != want {
			t.Errorf("%+v, want %+v", s, want)
		}
	})
}
