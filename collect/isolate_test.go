package collect_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// adaptTemplate is a template of pgstudy init for the test's servers: its
// DSNs and pg_ctlcluster commands replaced, minutes made seconds, the
// sysbench table as small as the test's, and fewer rounds.
func adaptTemplate(t *testing.T, name string, servers map[string]*pgtest.Cluster, rounds int) string {
	t.Helper()
	text := string(collect.Templates[name])
	for port, pg := range servers {
		text = strings.ReplaceAll(text, "postgres://postgres@127.0.0.1:"+port+"/bench", pg.DSN())
		major := port[2:]
		text = strings.ReplaceAll(text, "pg_ctlcluster "+major+" main start", pg.StartCmd())
		text = strings.ReplaceAll(text, "pg_ctlcluster "+major+" main stop", pg.StopCmd())
	}
	for old, repl := range map[string]string{"duration: 5m": "duration: 1s", "warmup: 1m": "warmup: 1s", "--table-size=1000000": "--table-size=10000",
		"rounds: 3": fmt.Sprintf("rounds: %d", rounds), "rounds: 5": fmt.Sprintf("rounds: %d", rounds), "rounds: 6": fmt.Sprintf("rounds: %d", rounds), "sample: 10s": "sample: 500ms"} {
		text = strings.ReplaceAll(text, old, repl)
	}
	if strings.Contains(text, "127.0.0.1:54") || strings.Contains(text, "pg_ctlcluster") {
		t.Fatalf("the %s template still names a server of its own:\n%s", name, text)
	}
	return writeStudy(t, text)
}

// prepareBench makes the tables the templates' tests read: pgbench's, and
// sysbench's when sysbench is asked for.
func prepareBench(t *testing.T, pg *pgtest.Cluster, sysbench bool) {
	t.Helper()
	if out, err := exec.Command(pg.Pgbench(), "-i", "-s", "1", "-q", pg.DSN()).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	if !sysbench {
		return
	}
	if _, err := exec.LookPath("sysbench"); err != nil {
		pgtest.Missing(t, "sysbench")
	}
	cfg := pgConfig(t, pg)
	prepare := fmt.Sprintf("sysbench oltp_point_select --db-driver=pgsql --pgsql-host=%s --pgsql-port=%s --pgsql-user=%s --pgsql-db=%s --tables=1 --table-size=10000 prepare",
		cfg["host"], cfg["port"], cfg["user"], cfg["dbname"])
	if out, err := exec.Command("sh", "-c", prepare).CombinedOutput(); err != nil {
		t.Fatalf("sysbench prepare: %v\n%s", err, out)
	}
}

// autoConf is the entries of a server's postgresql.auto.conf, sorted:
// ALTER SYSTEM writes a changed entry at the end, so the file holds the
// same entries as found in another order.
func autoConf(t *testing.T, pg *pgtest.Cluster) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pg.DataDir, "postgresql.auto.conf"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			entries = append(entries, l)
		}
	}
	slices.Sort(entries)
	return strings.Join(entries, "\n")
}

// TestThroughputTemplateSharedServer runs the throughput template of
// pgstudy init against a real 17 and 18, its two 18 configurations on one
// server: every run of "pg18" runs with the server's own io_method and
// every run of "pg18-sync" with sync (read back before each run, and no
// settings-ran finding), postgresql.auto.conf has the entries it was
// found with, and the 18 server, which was down and which collect started, is
// stopped at the end.
func TestThroughputTemplateSharedServer(t *testing.T) {
	pg17, pg18 := pgtest.Start(t, 17), pgtest.Start(t, 18)
	prepareBench(t, pg17, true)
	prepareBench(t, pg18, true)
	// An entry of the server's own that pgstudy must leave as it is, and
	// io_method's, written by hand: the default configuration runs with it.
	pg18.SQL(t, "alter system set io_method = 'worker'")
	pg18.SQL(t, "alter system set log_min_duration_statement = '5s'")
	found := autoConf(t, pg18)
	pg18.Stop(t)
	study := adaptTemplate(t, "throughput", map[string]*pgtest.Cluster{"5417": pg17, "5418": pg18}, 2)
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"})
	if err != nil || sum.Failed != 0 || sum.Ran != 18 {
		t.Fatalf("collect: %v %+v", err, sum)
	}
	if reachable(pg18) {
		t.Error("the 18 server, down before collect, is still up after it")
	}
	if !reachable(pg17) {
		t.Error("the 17 server, up before collect and without start: or stop:, is down after it")
	}
	if got := autoConf(t, pg18); got != found {
		t.Errorf("postgresql.auto.conf after collect:\n%s\nwant, as found:\n%s", got, found)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pg17": "", "pg18": "worker", "pg18-sync": "sync"}
	got := readBackValues(t, r, "io_method")
	for _, run := range read[samples.Run](t, r) {
		if got[run.RunID] != want[run.Config] {
			t.Errorf("run %d (%s, %s, round %d): read back io_method %q, want %q", run.RunID, run.Config, run.Test, run.Round, got[run.RunID], want[run.Config])
		}
	}
	a, err := analyze.Analyze([]analyze.Input{{Name: out, Reader: r}}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Findings {
		if f.Guard == "settings-ran" {
			t.Errorf("finding on an isolated capture: %s", f.Message)
		}
	}
	if err := exec.Command("sh", "-c", pg18.StartCmd()).Run(); err != nil {
		t.Fatal(err)
	}
	if m := pg18.SQL(t, "show io_method"); m != "worker" {
		t.Errorf("io_method %s after collect, want worker", m)
	}
}

// readBackValues are the values of a setting the collector read back
// before each run, by run ("" where the server has no such setting).
func readBackValues(t *testing.T, r *samples.Reader, name string) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	re := regexp.MustCompile(`"name":"` + name + `","setting":"([^"]*)"`)
	for _, st := range read[samples.Stat](t, r) {
		if st.View == "pg_settings" {
			if m := re.FindStringSubmatch(st.JSON); m != nil {
				out[st.RunID] = m[1]
			}
		}
	}
	return out
}

func reachable(pg *pgtest.Cluster) bool {
	return exec.Command(pg.Psql(), "-X", "-d", pg.DSN(), "-c", "select 1").Run() == nil
}

// TestSettingsDefeated: a before statement changes a setting behind
// pgstudy's back (ALTER SYSTEM and a reload), as the old collector left
// another configuration's ALTER SYSTEM in force. The settings-ran guard
// names the runs: those of the configuration declaring another value, and
// those of the configuration declaring none, which ran with the value a
// third declares. It does so from the read-back before each run, and, on a
// capture made without it, from the pg_settings rows of each
// configuration and round. collect puts postgresql.auto.conf back.
func TestSettingsDefeated(t *testing.T) {
	pg := pgtest.Start(t, 17)
	found := autoConf(t, pg)
	study := writeStudy(t, fmt.Sprintf(`
configs:
  - {name: plain, dsn: %[1]q}
  - {name: cp7, dsn: %[1]q, settings: {checkpoint_timeout: 7min}}
  - {name: cp10, dsn: %[1]q, settings: {checkpoint_timeout: 600s}}
tests:
  - name: one
    before:
      - alter system set checkpoint_timeout = '7min'
      - select pg_reload_conf(), pg_sleep(0.5)
    sql: select 1
protocol:
  rounds: 2
`, pg.DSN()))
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	for _, readBack := range []bool{true, false} {
		if !readBack {
			collect.WithoutReadBack(t)
		}
		out := filepath.Join(t.TempDir(), "capture")
		if sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test"}); err != nil || sum.Failed != 0 {
			t.Fatalf("collect: %v %+v", err, sum)
		}
		if got := autoConf(t, pg); got != found {
			t.Errorf("postgresql.auto.conf after collect: %q, want %q", got, found)
		}
		r, err := samples.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		runs := map[string][]int64{}
		for _, run := range read[samples.Run](t, r) {
			runs[run.Config] = append(runs[run.Config], run.RunID)
		}
		a, err := analyze.Analyze([]analyze.Input{{Name: out, Reader: r}}, analyze.Options{})
		if err != nil {
			t.Fatal(err)
		}
		how := "read back before each run"
		if !readBack {
			how = "as pg_settings was read once per configuration and round, in " // then the runs
		}
		want := map[string]string{
			"plain": fmt.Sprintf("plain does not declare checkpoint_timeout, but runs %d, %d ran with checkpoint_timeout = 420s (source configuration file; %s",
				runs["plain"][0], runs["plain"][1], how),
			"cp10": fmt.Sprintf("cp10 declares checkpoint_timeout = 600s, but runs %d, %d ran with checkpoint_timeout = 420s (source configuration file; %s",
				runs["cp10"][0], runs["cp10"][1], how),
		}
		got := map[string]string{}
		for _, f := range a.Findings {
			if f.Guard == "settings-ran" {
				if f.Severity != analyze.Error {
					t.Errorf("severity %s: %s", f.Severity, f.Message)
				}
				got[f.Config] = f.Message
			}
		}
		for cfg, w := range want {
			if !strings.HasPrefix(got[cfg], w) {
				t.Errorf("read back %v, %s: finding %q\nwant it to start %q", readBack, cfg, got[cfg], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("read back %v: findings %q", readBack, got)
		}
	}
}

// TestSweepTemplate runs the sweep template of pgstudy init against a real
// 18 (io_uring left out where the server lacks it, evict for drop-caches
// where the page cache cannot be dropped): each of its configurations, one
// server, ran with its own io_method and effective_io_concurrency, read
// back before each run; postgresql.auto.conf has the entries it was found
// with; and the server, down before collect, is left up with
// --leave-running.
func TestSweepTemplate(t *testing.T) {
	pg := pgtest.Start(t, 18)
	prepareBench(t, pg, false)
	found := autoConf(t, pg)
	study := adaptTemplate(t, "sweep", map[string]*pgtest.Cluster{"5418": pg}, 1)
	text, err := os.ReadFile(study)
	if err != nil {
		t.Fatal(err)
	}
	methods := "sync, worker"
	if pg.SQL(t, "select 'io_uring' = any(enumvals) from pg_settings where name = 'io_method'") == "t" {
		methods += ", io_uring"
	}
	adapted := strings.ReplaceAll(string(text), "[sync, worker, io_uring]", "["+methods+"]")
	if collect.CanDropCaches() != nil {
		adapted = strings.ReplaceAll(adapted, "drop-caches", "evict")
	}
	s, err := collect.ParseStudy("sweep.yaml", []byte(adapted))
	if err != nil {
		t.Fatal(err)
	}
	pg.Stop(t)
	out := filepath.Join(t.TempDir(), "capture")
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "test", LeaveRunning: true})
	if err != nil || sum.Failed != 0 || sum.Ran != len(s.Configs) {
		t.Fatalf("collect: %v %+v", err, sum)
	}
	if !reachable(pg) {
		t.Error("the server collect started is down after a collect with --leave-running")
	}
	if got := autoConf(t, pg); got != found {
		t.Errorf("postgresql.auto.conf after collect: %q, want %q", got, found)
	}
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	method, eic := readBackValues(t, r, "io_method"), readBackValues(t, r, "effective_io_concurrency")
	for _, run := range read[samples.Run](t, r) {
		cfg := s.Config(run.Config)
		if method[run.RunID] != cfg.Settings["io_method"] || eic[run.RunID] != cfg.Settings["effective_io_concurrency"] {
			t.Errorf("run %d (%s): read back io_method %q, effective_io_concurrency %q", run.RunID, run.Config, method[run.RunID], eic[run.RunID])
		}
	}
	a, err := analyze.Analyze([]analyze.Input{{Name: out, Reader: r}}, analyze.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Findings {
		if f.Guard == "settings-ran" || f.Severity == analyze.Error {
			t.Errorf("finding: %s %s", f.Guard, f.Message)
		}
	}
}

// stopAfterFirst closes stop when the first run ends: Ctrl-C during it.
type stopAfterFirst struct {
	stop chan struct{}
	once sync.Once
}

func (p *stopAfterFirst) Begin(int, int)        {}
func (p *stopAfterFirst) RunStart(collect.Item) {}
func (p *stopAfterFirst) RunEnd(collect.Item, string, time.Duration, string) {
	p.once.Do(func() { close(p.stop) })
}
func (p *stopAfterFirst) Logf(string, ...any) {}
func (p *stopAfterFirst) End()                {}

// TestResumeRestoresFirstFound: postgresql.auto.conf as the first session
// found it is in the capture, so a collect resumed after a kill (here: a
// stop after the first run, then the entry a kill during the next one
// would have left, written by hand) puts back the entries of before the
// study, not those the kill left.
func TestResumeRestoresFirstFound(t *testing.T) {
	pg := pgtest.Start(t, 17)
	found := autoConf(t, pg)
	s, err := collect.ParseStudy("study.yaml", []byte(fmt.Sprintf(`
configs:
  - {name: a, dsn: %[1]q}
  - {name: b, dsn: %[1]q, settings: {checkpoint_timeout: 7min}}
tests:
  - {name: one, sql: select 1}
protocol: {rounds: 1, order: fixed}
`, pg.DSN())))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture")
	p := &stopAfterFirst{stop: make(chan struct{})}
	if sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, Progress: p, Stop: p.stop}); !errors.Is(err, collect.ErrInterrupted) || sum.Ran != 1 {
		t.Fatalf("first session: %v %+v", err, sum)
	}
	pg.SQL(t, "alter system set checkpoint_timeout = '7min'")
	if sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, Resume: true}); err != nil || sum.Ran != 1 {
		t.Fatalf("resume: %v %+v", err, sum)
	}
	if got := autoConf(t, pg); got != found {
		t.Errorf("postgresql.auto.conf after the resumed collect: %q, want %q, as the first session found it", got, found)
	}
}
