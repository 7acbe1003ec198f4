package collect_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// TestExplainAnalyzeRolledBack: EXPLAIN ANALYZE executes the statement;
// after a writing test's timed run it must not change the data a second
// time, through either client, and its plan is still recorded.
func TestExplainAnalyzeRolledBack(t *testing.T) {
	pg := pgtest.Start(t, 17)
	pg.SQL(t, "create table tally (n int); insert into tally values (0)")
	dir := t.TempDir()
	path := filepath.Join(dir, "study.yaml")
	study := fmt.Sprintf(`
configs:
  - name: viapgx
    dsn: %[1]s
  - name: viapsql
    dsn: %[1]s
    client: psql
    psql: %[2]s -X
tests:
  - name: bump
    sql: update tally set n = n + 1
    explain_analyze: true
protocol:
  rounds: 3
`, pg.DSN(), pg.Psql())
	if err := os.WriteFile(path, []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("collect: %v %+v", err, sum)
	}
	// 3 rounds x 2 configurations, each timed run adding 1.
	if got := strings.TrimSpace(pg.SQL(t, "select n from tally")); got != "6" {
		t.Errorf("tally is %s after 6 timed runs, want 6: EXPLAIN ANALYZE's execution was kept", got)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	plans, err := samples.Read[samples.Plan](r)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range plans {
		if p.Kind == "explain-analyze" {
			n++
			if p.Error != "" || !strings.Contains(p.Text, `"Update"`) {
				t.Errorf("run %d: plan error %q, text %.200s", p.RunID, p.Error, p.Text)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d explain-analyze plans, want 6 (both clients, every run)", n)
	}
}
