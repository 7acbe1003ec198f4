package facts_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// exampleRuns opens the embedded sample capture and reads its runs.
func exampleRuns(t *testing.T) (*samples.Reader, []samples.Run) {
	t.Helper()
	r, err := samples.Example()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := samples.Read[samples.Run](r)
	if err != nil {
		t.Fatal(err)
	}
	return r, runs
}

// chunked is Of computed by a Builder given the rows n at a time, as
// collect gives a long run's rows while it spills them.
func chunked(run samples.Run, disk []samples.Diskstats, stats []samples.Stat, n int) facts.Set {
	b := facts.NewBuilder(run)
	var disks []samples.DiskFact
	var views []samples.ViewFact
	for len(disk) > n || len(stats) > n {
		d, st := disk[:min(n, len(disk))], stats[:min(n, len(stats))]
		disks = append(disks, b.Disk(d)...)
		views = append(views, b.Stats(st)...)
		disk, stats = disk[len(d):], stats[len(st):]
	}
	batch := &samples.Batch{Run: run, Diskstats: disk, Stats: stats}
	b.AddTo(batch)
	return facts.Set{Runs: batch.RunFacts, Disks: append(disks, batch.DiskFacts...), Figures: batch.DiskFigures,
		Intervals: batch.Intervals, IO: batch.IOFacts, Views: append(views, batch.ViewFacts...), Problems: batch.FactProblems}
}

// TestBuilderChunksGiveOf checks that a run's facts computed a few rows at
// a time are those of one pass, on the real runs of the sample capture
// (PostgreSQL 17 and 18: pg_stat_io, pg_stat_wal, pg_aios sampled during
// the statement), and on the same runs with every third snapshot cut
// short appended, whose parser warnings are counted over the whole run.
func TestBuilderChunksGiveOf(t *testing.T) {
	r, runs := exampleRuns(t)
	disks, err := samples.Read[samples.Diskstats](r)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := samples.Read[samples.Stat](r)
	if err != nil {
		t.Fatal(err)
	}
	diskOf, statsOf := map[int64][]samples.Diskstats{}, map[int64][]samples.Stat{}
	for _, d := range disks {
		diskOf[d.RunID] = append(diskOf[d.RunID], d)
	}
	for _, s := range stats {
		statsOf[s.RunID] = append(statsOf[s.RunID], s)
	}
	var aios, problems, intervals int
	for _, run := range runs[:min(6, len(runs))] {
		disk := diskOf[run.RunID]
		damaged := make([]samples.Diskstats, len(disk))
		for i, d := range disk {
			damaged[i] = d
			if i%3 == 0 {
				damaged[i].Text = d.Text + " 259       0 nvme0n1 1 2 3\n" // a line cut short
			}
		}
		for _, disk := range [][]samples.Diskstats{disk, damaged} {
			want := facts.Of(run, disk, statsOf[run.RunID])
			if len(want.Disks) < len(disk)/2 || len(want.Runs) != 1 {
				t.Fatalf("run %d: %d disk facts of %d snapshots, %d run facts", run.RunID, len(want.Disks), len(disk), len(want.Runs))
			}
			for _, v := range want.Views {
				if v.View == "pg_aios" {
					aios++
				}
			}
			problems += len(want.Problems)
			intervals += len(want.Intervals)
			for _, n := range []int{1, 2, 5} {
				if got := chunked(run, disk, statsOf[run.RunID], n); !reflect.DeepEqual(got, want) {
					t.Errorf("run %d, %d rows at a time: the facts differ from one pass:\n got %+v\nwant %+v", run.RunID, n, got, want)
				}
			}
		}
	}
	if aios == 0 || problems == 0 || intervals == 0 {
		t.Errorf("the runs compared have %d pg_aios facts, %d problems and %d disk intervals: the test compares nothing it means to",
			aios, problems, intervals)
	}
}

// TestBuilderChunksOutOfOrder: a run whose snapshots come in chunks out
// of order (a later chunk holding a snapshot taken before one given
// already), or without a device to keep, has no disk figures computed a
// chunk at a time: its run_facts row says so (null figure_rows), and the
// analysis computes them from the raw text. Given whole, the same rows
// have their figures.
func TestBuilderChunksOutOfOrder(t *testing.T) {
	r, runs := exampleRuns(t)
	run := runs[0]
	disk, err := samples.ReadPart[samples.Diskstats](r, fmt.Sprintf("r%06d.parquet", run.RunID))
	if err != nil {
		t.Fatal(err)
	}
	if len(disk) < 4 {
		t.Fatalf("run %d has %d snapshots; the test needs samples between before and after", run.RunID, len(disk))
	}
	swapped := slices.Clone(disk)
	swapped[1], swapped[len(swapped)-2] = swapped[len(swapped)-2], swapped[1]
	noDevice := run
	noDevice.Devices = ""
	for _, c := range []struct {
		name string
		run  samples.Run
		disk []samples.Diskstats
	}{{"out of order", run, swapped}, {"no device", noDevice, disk}} {
		whole := facts.Of(c.run, c.disk, nil)
		if len(whole.Figures) != 1 || len(whole.Intervals) == 0 || whole.Runs[0].FigureRows == nil || *whole.Runs[0].IntervalRows != int64(len(whole.Intervals)) {
			t.Fatalf("%s, given whole: %d figures, %d intervals, run facts %+v", c.name, len(whole.Figures), len(whole.Intervals), whole.Runs[0])
		}
		got := chunked(c.run, c.disk, nil, 2)
		if len(got.Figures) != 0 || len(got.Intervals) != 0 || got.Runs[0].FigureRows != nil || got.Runs[0].IntervalRows != nil {
			t.Errorf("%s, two snapshots at a time: %d figures, %d intervals, figure rows %v: want none, and null counts",
				c.name, len(got.Figures), len(got.Intervals), got.Runs[0].FigureRows)
		}
		if !reflect.DeepEqual(got.Disks, whole.Disks) {
			t.Errorf("%s: the disk facts differ", c.name)
		}
	}
}

// TestFactsOfRowsWithoutRunID: an import gives its rows to the facts before
// they are committed, with no run id yet; the facts, and the problems'
// words, are those of the run they are given for.
func TestFactsOfRowsWithoutRunID(t *testing.T) {
	r, runs := exampleRuns(t)
	var run samples.Run
	var disk []samples.Diskstats
	var stats []samples.Stat
	var err error
	for _, run = range runs { // the first with rows read one by one (pg_aios)
		if disk, err = samples.ReadPart[samples.Diskstats](r, fmt.Sprintf("r%06d.parquet", run.RunID)); err != nil {
			t.Fatal(err)
		}
		if stats, err = samples.ReadPart[samples.Stat](r, fmt.Sprintf("r%06d.parquet", run.RunID)); err != nil {
			t.Fatal(err)
		}
		if len(facts.Of(run, disk, stats).Views) > 0 {
			break
		}
	}
	disk = append(disk, samples.Diskstats{Seq: 999, Phase: "sample", Text: "   8       0 sda 1 2\n"}) // cut short
	stats = append(stats, samples.Stat{Phase: "after", View: "pg_settings", JSON: "{"})
	want := facts.Of(run, disk, stats)
	for i := range disk {
		disk[i].RunID = 0
	}
	for i := range stats {
		stats[i].RunID = 0
	}
	got := facts.Of(run, disk, stats)
	if !reflect.DeepEqual(got, want) {
		t.Error("the facts of rows without a run id differ from those of the run's rows")
	}
	if len(got.Problems) < 2 || len(got.Views) == 0 || len(got.Disks) == 0 {
		t.Fatalf("%d problems, %d view rows, %d disk rows: the test needs some of each", len(got.Problems), len(got.Views), len(got.Disks))
	}
	for _, p := range got.Problems {
		if p.RunID != run.RunID || strings.Contains(p.Message, "run 0") {
			t.Errorf("problem of run %d: %q", p.RunID, p.Message)
		}
	}
	for _, v := range got.Views {
		if v.RunID != run.RunID {
			t.Errorf("view fact of run %d, want %d", v.RunID, run.RunID)
		}
	}
}
