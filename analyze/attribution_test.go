package analyze_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/samples"
)

// TestServerIOFromRows adds to a copy of the sample capture runs that are
// copies of its first one (its diskstats snapshots included) with the
// server's cgroup counters as collect records them: v2's io.stat with the
// server reading a quarter of the device's bytes (the others guard names
// it), with the server reading them all (quiet), counters that went
// backwards (unknown, said), and no counters with the reason collect
// gave (blank, the reason in the tables' notes). The sample's own runs,
// recorded without a cgroup, stay blank.
func TestServerIOFromRows(t *testing.T) {
	dir, base, n := serverIOCapture(t)
	dev := base.Runs[0].Disk.ReadBytes
	a := analyzeDir(t, dir)
	byID := map[int64]*analyze.Run{}
	for _, run := range a.Runs {
		byID[run.RunID] = run
	}
	quarter, all, back, none := byID[n+1], byID[n+2], byID[n+3], byID[n+4]
	if s := quarter.Server; s == nil || math.Abs(s.ReadBytes-dev/4) > 1 || math.Abs(s.OthersReadBytes-0.75*dev) > 1 || s.Reads == nil || s.Source != "cgroup v2 io.stat" {
		t.Errorf("the quarter run: %+v", s)
	}
	if s := all.Server; s == nil || math.Abs(s.ReadBytes-dev) > 1 || s.OthersReadBytes != 0 {
		t.Errorf("the run whose reads were all the server's: %+v", s)
	}
	if back.Server != nil || !strings.Contains(strings.Join(back.Problems, " "), "went backwards") {
		t.Errorf("counters that went backwards: %+v %v", back.Server, back.Problems)
	}
	if none.Server != nil || !strings.Contains(none.ServerMissing, "root cgroup") || base.Runs[1].Server != nil {
		t.Errorf("no counters: %+v %q", none.Server, none.ServerMissing)
	}
	var named []int64
	for _, f := range a.Findings {
		if f.Guard == "others-io" {
			named = append(named, f.Runs...)
			if !strings.Contains(f.Message, "read") || !strings.Contains(f.Message, "(75%)") || !strings.Contains(f.Message, serverGroup) {
				t.Errorf("others-io: %s", f.Message)
			}
		}
	}
	if len(named) != 1 || named[0] != n+1 {
		t.Errorf("others-io named runs %v, want %d alone", named, n+1)
	}
	checkServerColumns(t, a, n, dev)
}

const serverGroup = "/sys/fs/cgroup/system.slice/postgresql.service/io.stat"

// serverIOCapture makes TestServerIOFromRows's capture: the sample with
// four runs added after its own (n of them), each a copy of its first
// with cgroup rows.
func serverIOCapture(t *testing.T) (dir string, base *analyze.Analysis, n int64) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "capture")
	if err := os.CopyFS(dir, os.DirFS("../samples/example/capture")); err != nil {
		t.Fatal(err)
	}
	r, err := samples.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := samples.Read[samples.Diskstats](r)
	if err != nil {
		t.Fatal(err)
	}
	base = analyzeDir(t, dir)
	first := base.Runs[0]
	if first.Disk == nil || first.DeviceNum == "" || first.Disk.ReadBytes < 64<<20 {
		t.Fatalf("the sample's first run: %+v", first)
	}
	w, runs := newSession(t, dir)
	n = int64(len(runs))
	stat := func(read float64) string {
		return fmt.Sprintf("%s rbytes=%.0f wbytes=0 rios=%.0f wios=0 dbytes=0 dios=0\n", first.DeviceNum, read, read/(128<<10))
	}
	add := func(id int64, probes ...samples.Probe) {
		run := runs[0]
		run.RunID = id
		b := &samples.Batch{Run: run}
		for _, d := range disk {
			if d.RunID == runs[0].RunID {
				d.RunID = id
				b.Diskstats = append(b.Diskstats, d)
			}
		}
		for _, p := range probes {
			p.RunID = id
			b.Probes = append(b.Probes, p)
		}
		if err := w.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	v2 := func(phase, text string) samples.Probe {
		return samples.Probe{Phase: phase, Name: "cgroup io.stat", Command: serverGroup, Stdout: text}
	}
	dev := first.Disk.ReadBytes
	add(n+1, v2("before", stat(1<<30)), v2("after", stat(1<<30+dev/4)))
	add(n+2, v2("before", stat(1<<30)), v2("after", stat(1<<30+dev)))
	add(n+3, v2("before", stat(1<<31)), v2("after", stat(1<<30)))
	add(n+4, samples.Probe{Phase: "before", Name: "cgroup io", Error: "the server's I/O is not told apart from the device's: the server runs in the root cgroup"})
	w.Close()
	return dir, base, n
}

// checkServerColumns: the runs table holds the server's and the others'
// bytes where the cgroup counted them, and nothing (unknown) elsewhere,
// and its note says why.
func checkServerColumns(t *testing.T, a *analyze.Analysis, n int64, dev float64) {
	t.Helper()
	for _, tb := range a.DetailTables() {
		if tb.Name != "runs" {
			continue
		}
		if !strings.Contains(tb.Note, "the server runs in the root cgroup") {
			t.Errorf("the runs table's note does not say why the server's I/O is blank: %s", tb.Note)
		}
		col := map[string]int{}
		for i, c := range tb.Columns {
			col[c.Key] = i
		}
		for _, row := range tb.Rows {
			id, server, others := row[col["run"]].(int64), row[col["server_read_bytes"]], row[col["others_read_bytes"]]
			switch {
			case id == n+1 && (server != dev/4 || others != 0.75*dev):
				t.Errorf("run %d: server read %v bytes, others %v, want %g and %g", id, server, others, dev/4, 0.75*dev)
			case id != n+1 && id != n+2 && (server != nil || others != nil):
				t.Errorf("run %d, without cgroup counters: server read %v, others %v, want blank (unknown)", id, server, others)
			}
		}
	}
}
