package gencapture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/samples"
)

// The plans are copies of parse's fixtures; they must not drift apart.
func TestPlansAreParseFixtures(t *testing.T) {
	for _, tc := range tests {
		want, err := os.ReadFile(filepath.Join("..", "..", "..", "parse", "explain", "testdata", tc.plan))
		if err != nil {
			t.Fatal(err)
		}
		if got := fixture(tc.plan); got != string(want) {
			t.Errorf("fixtures/%s differs from parse/explain/testdata/%s", tc.plan, tc.plan)
		}
	}
}

func TestRunsAreDeterministic(t *testing.T) {
	opt := Options{Runs: 45, Seed: 7}
	a, b := Runs(opt), Runs(opt)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls gave different runs")
	}
	if len(a) != 45 || a[44].Round != 3 || a[44].RunID != 45 {
		t.Fatalf("%d runs, last %+v", len(a), a[len(a)-1])
	}
	if c := Runs(Options{Runs: 45, Seed: 8}); c[0].ElapsedNs == a[0].ElapsedNs {
		t.Error("another seed gave the same time")
	}
}

// The rows of a run read as the real ones do: diskstats with ten devices
// whose vda counters add up to the run's figures, row_to_json objects.
func TestRunRows(t *testing.T) {
	opt := Options{Runs: 40, Samples: 4, Settings: true}
	opt.defaults()
	g, err := newGen(opt)
	if err != nil {
		t.Fatal(err)
	}
	var batches []*samples.Batch
	runs := Runs(opt)
	for i, it := range schedule(opt.Runs) {
		batches = append(batches, g.run(it, runs[i]))
	}
	for i, b := range batches {
		r := runs[i]
		if len(b.Diskstats) != opt.Samples+2 {
			t.Fatalf("run %d: %d snapshots", r.RunID, len(b.Diskstats))
		}
		var first, last diskstats.Counters
		for j, d := range b.Diskstats {
			s, warns, err := diskstats.Parse(strings.NewReader(d.Text), "test")
			if err != nil || len(warns) > 0 || len(s.Devices) != 10 {
				t.Fatalf("run %d snapshot %d: %v %v, %d devices", r.RunID, j, err, warns, len(s.Devices))
			}
			vda, _ := s.Device("vda")
			if j == 0 {
				first = vda
			}
			last = vda
		}
		if got := int64(last.ReadBytes() - first.ReadBytes()); got != r.ReadBytes {
			t.Errorf("run %d: vda read %d bytes, want %d", r.RunID, got, r.ReadBytes)
		}
		if got := int64(last.ReadsCompleted - first.ReadsCompleted); got != r.Reads {
			t.Errorf("run %d: %d reads, want %d", r.RunID, got, r.Reads)
		}
		if *b.Run.WALPosAfter-*b.Run.WALPosBefore != r.WALBytes {
			t.Errorf("run %d: WAL positions differ by %d, want %d", r.RunID, *b.Run.WALPosAfter-*b.Run.WALPosBefore, r.WALBytes)
		}
		views := map[string]int{}
		for _, s := range b.Stats {
			var m map[string]any
			if err := json.Unmarshal([]byte(s.JSON), &m); err != nil {
				t.Fatalf("run %d: %s row %d: %v", r.RunID, s.View, s.Row, err)
			}
			views[s.View]++
		}
		io := 2 * 35
		if strings.HasPrefix(r.Config, "pg18") {
			io = 2 * 79
		}
		if views["pg_stat_io"] != io || views["pg_stat_wal"] != 2 || views["vacuum_counts"] != 2 {
			t.Errorf("run %d (%s): stats rows %v", r.RunID, r.Config, views)
		}
	}
	// Settings once per configuration and round: 40 runs are two rounds.
	var servers, settings int
	for _, b := range batches {
		servers += len(b.Servers)
		settings += len(b.Settings)
	}
	if servers != 8 || settings != 2*(2*378+2*398) {
		t.Errorf("%d servers rows and %d settings rows, want 8 and %d", servers, settings, 2*(2*378+2*398))
	}
}

func TestSplit(t *testing.T) {
	for _, total := range []int64{0, 1, 7, 1000, 987654321} {
		parts := split(total, []float64{0.7, 1.2, 0.9, 1.3})
		var sum int64
		for _, p := range parts {
			if p < 0 {
				t.Fatalf("split(%d): negative part %v", total, parts)
			}
			sum += p
		}
		if sum != total {
			t.Errorf("split(%d) adds up to %d", total, sum)
		}
	}
}
