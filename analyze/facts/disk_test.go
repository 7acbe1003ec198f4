package facts_test

import (
	"reflect"
	"testing"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/samples"
)

// TestCountersInto: counters made into room that held another part's are
// those Counters makes, a row without the device zero, the room reused
// when it fits.
func TestCountersInto(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	rows := []samples.DiskFact{
		{Device: "sda", Major: 8, Fields: 20, Reads: 10, ReadSectors: 80, Discards: p(1), DiscardsMerged: p(2), DiscardSectors: p(3),
			DiscardMs: p(4), Flushes: p(5), FlushMs: p(6)},
		{}, // a snapshot without the device
		{Device: "sda", Major: 8, Fields: 14, Reads: 12, WriteMs: 7},
	}
	want := facts.Counters(rows)
	stale := make([]diskstats.Counters, 5)
	for i := range stale {
		stale[i] = diskstats.Counters{Name: "stale", ReadsCompleted: 99, Discards: parse.Some(diskstats.Discards{Completed: 9})}
	}
	tests := []struct {
		name string
		room []diskstats.Counters
	}{
		{"none", nil},
		{"too little", stale[:1:1]},
		{"enough, stale", stale[:0]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := facts.CountersInto(tt.room, rows)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
			if cap(tt.room) >= len(rows) && &got[0] != &tt.room[:1][0] {
				t.Error("the room given was not used")
			}
		})
	}
	if want[1] != (diskstats.Counters{}) || !want[0].Discards.Valid || want[2].Flushes.Valid {
		t.Errorf("Counters: %+v", want)
	}
}
