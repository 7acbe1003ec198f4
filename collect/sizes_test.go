package collect_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/parse/pgstat"
	"github.com/pgstudy/pgstudy/samples"
)

// TestRelationSizes: every configuration and round records the size of
// each user relation (tables, indexes, TOAST), and what it records is what
// pg_relation_size, pg_total_relation_size and reltuples say; each
// configuration's client is recorded once, psql by its own --version and
// pgx by its module's version.
func TestRelationSizes(t *testing.T) {
	pg := pgtest.Start(t, 17)
	loadData(t, pg)
	pg.SQL(t, "create table notes (id int, body text); insert into notes select g, repeat(md5(g::text), 200) from generate_series(1, 50) g")
	path := writeStudy(t, fmt.Sprintf(`
configs:
  - name: viapgx
    dsn: %s
  - name: viapsql
    dsn: %s
    client: psql
    psql: %s -X
tests:
  - name: seqscan
    sql: select count(*) from accounts
protocol:
  rounds: 2
  cold: []
`, pg.DSN(), pg.DSN(), pg.Psql()))
	r := collectStudy(t, path)
	runs := map[int64]samples.Run{}
	for _, run := range read[samples.Run](t, r) {
		runs[run.RunID] = run
	}
	// What the server says now; the study changed no row.
	want := map[string]string{}
	for _, line := range strings.Split(pg.SQL(t, `select c.relname || '|' || c.relkind::text || '|' || pg_relation_size(c.oid) || '|' || `+
		`pg_total_relation_size(c.oid) || '|' || c.reltuples from pg_class c join pg_namespace n on n.oid = c.relnamespace `+
		`where n.nspname = 'public' or (n.nspname = 'pg_toast' and c.relkind = 't')`), "\n") {
		if f := strings.SplitN(line, "|", 2); len(f) == 2 {
			want[f[0]] = f[1]
		}
	}
	got := map[string]map[string]string{} // config/round, relation
	for _, st := range read[samples.Stat](t, r) {
		if st.View != "relation_sizes" {
			continue
		}
		rs, err := pgstat.ParseRelationSize(st.JSON, "relation_sizes")
		if err != nil {
			t.Fatal(err)
		}
		run := runs[st.RunID]
		key := fmt.Sprintf("%s/%d", run.Config, run.Round)
		if got[key] == nil {
			got[key] = map[string]string{}
		}
		got[key][rs.Name] = fmt.Sprintf("%s|%.0f|%.0f|%g", rs.Kind, rs.Bytes.V, rs.TotalBytes.V, rs.Tuples.V)
		if rs.Kind == "i" && rs.Table != "accounts" || rs.Kind == "t" && rs.Table != "notes" && rs.Table != "accounts" || rs.Kind == "r" && rs.Table != "" {
			t.Errorf("%s: %s (kind %s) belongs to %q", key, rs.Name, rs.Kind, rs.Table)
		}
	}
	if rels := got["viapgx/1"]; !strings.HasPrefix(rels["accounts"], "r|") || !strings.HasSuffix(rels["accounts"], "|200000") {
		t.Errorf("accounts: %q, want a table of 200000 rows", rels["accounts"])
	}
	if len(got) != 4 {
		t.Errorf("relation sizes recorded for %d configuration rounds, want 4: %v", len(got), got)
	}
	for key, rels := range got {
		if len(rels) != 6 { // accounts, its two indexes, notes and their TOAST tables
			t.Errorf("%s: %d relations, want 6: %v", key, len(rels), rels)
		}
		for name, v := range rels {
			if want[name] != v {
				t.Errorf("%s: %s recorded as %s; the server says %s", key, name, v, want[name])
			}
		}
	}
	checkClientSteps(t, read[samples.Step](t, r), runs, pg)
}

// checkClientSteps: one client step per configuration: psql's own
// version line, and pgx's module version from the build information.
func checkClientSteps(t *testing.T, steps []samples.Step, runs map[int64]samples.Run, pg *pgtest.Cluster) {
	t.Helper()
	clients := map[string][]samples.Step{}
	for _, st := range steps {
		if st.Phase == "client" {
			clients[runs[st.RunID].Config] = append(clients[runs[st.RunID].Config], st)
		}
	}
	if len(clients["viapgx"]) != 1 || len(clients["viapsql"]) != 1 {
		t.Fatalf("client steps: %+v, want one per configuration", clients)
	}
	// A test binary's build information lists no modules; pgstudy's does
	// (checked by hand: the README says so).
	st := clients["viapgx"][0]
	if bi, ok := debug.ReadBuildInfo(); ok && slices.ContainsFunc(bi.Deps, func(m *debug.Module) bool { return m.Path == "github.com/jackc/pgx/v5" }) {
		if !regexp.MustCompile(`^github.com/jackc/pgx/v5 v5\.\d+\.\d+`).MatchString(st.Output) || st.Detail != "go build info" {
			t.Errorf("pgx client: %+v", st)
		}
	} else if st.Output != "" || st.Error != "the build information names no github.com/jackc/pgx module" {
		t.Errorf("pgx client, without build information: %+v", st)
	}
	st = clients["viapsql"][0]
	if st.Detail != pg.Psql()+" -X --version" || !regexp.MustCompile(`^psql \(PostgreSQL\) \d+`).MatchString(st.Output) || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Errorf("psql client: %+v", st)
	}
}

// collectStudy collects the study at path and opens its capture.
func collectStudy(t *testing.T, path string) *samples.Reader {
	t.Helper()
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	if sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"}); err != nil || sum.Failed != 0 {
		t.Fatalf("collect: %+v %v", sum, err)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
