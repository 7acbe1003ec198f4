package collect_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// stopAfter closes stop once n runs have ended.
type stopAfter struct {
	n    int
	stop chan struct{}
	once sync.Once
	logs []string
}

func (p *stopAfter) Begin(int, int)        {}
func (p *stopAfter) RunStart(collect.Item) {}
func (p *stopAfter) RunEnd(collect.Item, string, time.Duration, string) {
	if p.n--; p.n == 0 {
		p.once.Do(func() { close(p.stop) })
	}
}
func (p *stopAfter) Logf(format string, args ...any) {
	p.logs = append(p.logs, fmt.Sprintf(format, args...))
}
func (p *stopAfter) End() {}

// TestCompactAtTheEnd: a study stopped part way is left as written; the
// resumed collect that finishes it compacts the capture, which an analysis
// reads whole and a further --resume accepts (it has nothing left to run);
// with NoCompact the parts stay one per run.
func TestCompactAtTheEnd(t *testing.T) {
	pg := pgtest.Start(t, 15)
	s, err := collect.ParseStudy("study.yaml", []byte(fmt.Sprintf(`
configs:
  - {name: a, dsn: %[1]q}
  - {name: b, dsn: %[1]q, settings: {work_mem: 8MB}}
tests:
  - {name: one, sql: "select count(*) from generate_series(1, 1000)"}
protocol: {rounds: 3}
`, pg.DSN())))
	if err != nil {
		t.Fatal(err)
	}
	runsParts := func(dir string) []string {
		r, err := samples.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := r.Parts("runs")
		if err != nil {
			t.Fatal(err)
		}
		return parts
	}
	out := filepath.Join(t.TempDir(), "capture")
	p := &stopAfter{n: 2, stop: make(chan struct{})}
	if sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, Progress: p, Stop: p.stop}); !errors.Is(err, collect.ErrInterrupted) || sum.Ran != 2 {
		t.Fatalf("first session: %v %+v", err, sum)
	}
	if got := runsParts(out); !slices.Equal(got, []string{"r000001.parquet", "r000002.parquet"}) {
		t.Errorf("a study stopped part way: runs parts %v, want them as written", got)
	}
	p = &stopAfter{stop: make(chan struct{})}
	if sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, Resume: true, Progress: p}); err != nil || sum.Done != 6 {
		t.Fatalf("resume: %v %+v", err, sum)
	}
	if got := runsParts(out); !slices.Equal(got, []string{"r000001-000006.parquet"}) {
		t.Errorf("a finished study: runs parts %v, want one compacted part (logs %q)", got, p.logs)
	}
	if !slices.ContainsFunc(p.logs, func(l string) bool { return len(l) > 0 && l[:9] == "compacted" }) {
		t.Errorf("collect did not say it compacted: %q", p.logs)
	}
	r, _ := samples.Open(out)
	if runs, err := samples.Read[samples.Run](r); err != nil || len(runs) != 6 || len(r.Captures()) != 2 {
		t.Errorf("%d runs, %d sessions after compaction: %v", len(runs), len(r.Captures()), err)
	}
	if sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, Resume: true}); err != nil || sum.Ran != 0 || sum.Done != 6 {
		t.Errorf("resume of a compacted, finished capture: %v %+v", err, sum)
	}

	plain := filepath.Join(t.TempDir(), "capture")
	if _, err := collect.Collect(context.Background(), s, collect.Options{Out: plain, NoCompact: true}); err != nil {
		t.Fatal(err)
	}
	if got := runsParts(plain); len(got) != 6 {
		t.Errorf("NoCompact: runs parts %v, want one per run", got)
	}
}
