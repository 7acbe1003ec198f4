package facts_test

import (
	"reflect"
	"testing"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/samples"
)

// TestCounters: a row's counters are its columns', a row without the
// device zero, and the discard and flush counters absent unless all of
// their columns are set.
func TestCounters(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	rows := []samples.DiskFact{
		{Device: "sda", Major: 8, Fields: 20, Reads: 10, ReadSectors: 80, Discards: p(1), DiscardsMerged: p(2), DiscardSectors: p(3),
			DiscardMs: p(4), Flushes: p(5), FlushMs: p(6)},
		{}, // a snapshot without the device
		{Device: "sda", Major: 8, Fields: 14, Reads: 12, WriteMs: 7, Discards: p(1), Flushes: p(2)},
	}
	want := []diskstats.Counters{
		{Major: 8, Name: "sda", Fields: 20, ReadsCompleted: 10, ReadSectors: 80,
			Discards: parse.Some(diskstats.Discards{Completed: 1, Merged: 2, Sectors: 3, TimeMs: 4}),
			Flushes:  parse.Some(diskstats.Flushes{Completed: 5, TimeMs: 6})},
		{},
		{Major: 8, Name: "sda", Fields: 14, ReadsCompleted: 12, WriteTimeMs: 7},
	}
	if got := facts.Counters(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
