package iostat

import (
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/diskstats"
)

// fuzzCounters decodes a pair of counter lines and an interval from
// arbitrary bytes: a byte for each line's field count, 8 bytes of seconds,
// then the 17 counters of before and of after, 8 bytes each (little
// endian; missing bytes read as zero).
func fuzzCounters(in []byte) (before, after diskstats.Counters, seconds float64) {
	next := func() uint64 {
		var b [8]byte
		n := copy(b[:], in)
		in = in[n:]
		return binary.LittleEndian.Uint64(b[:])
	}
	fields := func(b byte) int { return [3]int{14, 18, 20}[int(b)%3] }
	var f [2]int
	for i := range f {
		f[i] = 20
		if len(in) > 0 {
			f[i], in = fields(in[0]), in[1:]
		}
	}
	seconds = math.Float64frombits(next())
	line := func(fields int) diskstats.Counters {
		d := diskstats.Counters{Name: "fuzz", Fields: fields}
		d.ReadsCompleted, d.ReadsMerged, d.ReadSectors, d.ReadTimeMs = next(), next(), next(), next()
		d.WritesCompleted, d.WritesMerged, d.WriteSectors, d.WriteTimeMs = next(), next(), next(), next()
		d.InFlight, d.IOTimeMs, d.WeightedIOTimeMs = next(), next(), next()
		disc := diskstats.Discards{Completed: next(), Merged: next(), Sectors: next(), TimeMs: next()}
		fl := diskstats.Flushes{Completed: next(), TimeMs: next()}
		if fields >= 18 {
			d.Discards = parse.Some(disc)
		}
		if fields == 20 {
			d.Flushes = parse.Some(fl)
		}
		return d
	}
	return line(f[0]), line(f[1]), seconds
}

// encodeCounters is fuzzCounters' inverse, for the seeds.
func encodeCounters(before, after [17]uint64, seconds float64) []byte {
	b := []byte{2, 2}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(seconds))
	for _, c := range append(before[:], after[:]...) {
		b = binary.LittleEndian.AppendUint64(b, c)
	}
	return b
}

func FuzzDelta(f *testing.F) {
	var zero, some, more [17]uint64
	for i := range some {
		some[i], more[i] = uint64(i+1)*1000, uint64(i+1)*3000
	}
	wrap := more
	wrap[3] = 5 // read time wrapped
	f.Add([]byte{})
	f.Add(encodeCounters(zero, zero, 1))
	f.Add(encodeCounters(some, more, 1))
	f.Add(encodeCounters(more, some, 1))
	f.Add(encodeCounters(some, wrap, 0.5))
	f.Add(encodeCounters(some, more, 1e-300))
	f.Add(encodeCounters(some, more, math.NaN()))
	f.Add(encodeCounters(zero, [17]uint64{math.MaxUint64, math.MaxUint64, math.MaxUint64, math.MaxUint32}, 1e-6))
	f.Fuzz(func(t *testing.T, in []byte) {
		before, after, seconds := fuzzCounters(in)
		s := delta(&before, &after, seconds)
		if s.Device != "fuzz" || !(s.Seconds == seconds || math.IsNaN(seconds)) {
			t.Fatalf("device or seconds: %+v", s)
		}
		v := reflect.ValueOf(s)
		allZero := true
		for i := range v.NumField() {
			if v.Field(i).Kind() != reflect.Float64 || v.Type().Field(i).Name == "Seconds" {
				continue
			}
			x := v.Field(i).Float()
			name := v.Type().Field(i).Name
			isRate := strings.HasSuffix(name, "PerS") || name == "AquSz" || name == "UtilPct"
			if math.IsNaN(x) && isRate && !(seconds >= minSeconds && !math.IsInf(seconds, 1)) {
				continue // unknown without a usable interval
			}
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				t.Fatalf("%s = %v: %+v", v.Type().Field(i).Name, x, s)
			}
			allZero = allZero && x == 0
		}
		if want := wantReset(before, after); s.Reset != want {
			t.Fatalf("Reset = %v, want %v:\nbefore %+v\nafter  %+v", s.Reset, want, before, after)
		}
		if s.Reset && !allZero {
			t.Fatalf("reset interval with figures: %+v", s)
		}
		if !s.Reset && s.Reads != float64(after.ReadsCompleted-before.ReadsCompleted) {
			t.Fatalf("Reads = %v, want %d", s.Reads, after.ReadsCompleted-before.ReadsCompleted)
		}
	})
}

// wantReset restates delta's rule: a count that goes down, or a time that
// goes down from beyond 32 bits.
func wantReset(b, a diskstats.Counters) bool {
	counts := [][2]uint64{
		{b.ReadsCompleted, a.ReadsCompleted}, {b.ReadsMerged, a.ReadsMerged}, {b.ReadSectors, a.ReadSectors},
		{b.WritesCompleted, a.WritesCompleted}, {b.WritesMerged, a.WritesMerged}, {b.WriteSectors, a.WriteSectors},
	}
	times := [][2]uint64{
		{b.ReadTimeMs, a.ReadTimeMs}, {b.WriteTimeMs, a.WriteTimeMs},
		{b.IOTimeMs, a.IOTimeMs}, {b.WeightedIOTimeMs, a.WeightedIOTimeMs},
	}
	if b.Discards.Valid && a.Discards.Valid {
		bd, ad := b.Discards.V, a.Discards.V
		counts = append(counts, [2]uint64{bd.Completed, ad.Completed}, [2]uint64{bd.Merged, ad.Merged}, [2]uint64{bd.Sectors, ad.Sectors})
		times = append(times, [2]uint64{bd.TimeMs, ad.TimeMs})
	}
	if b.Flushes.Valid && a.Flushes.Valid {
		bf, af := b.Flushes.V, a.Flushes.V
		counts = append(counts, [2]uint64{bf.Completed, af.Completed})
		times = append(times, [2]uint64{bf.TimeMs, af.TimeMs})
	}
	for _, c := range counts {
		if c[1] < c[0] {
			return true
		}
	}
	for _, c := range times {
		if c[1] < c[0] && c[0] > math.MaxUint32 {
			return true
		}
	}
	return false
}
