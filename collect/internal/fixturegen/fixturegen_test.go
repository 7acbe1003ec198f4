package fixturegen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

var majors = []int{13, 14, 15, 16, 17, 18}

func TestFixtures(t *testing.T) {
	if os.Getenv("PGSTUDY_FIXTURES") != "1" {
		t.Skip("fixturegen writes the parsers' fixtures from real servers; it is not a test. " +
			"Run parse/regenerate (or PGSTUDY_FIXTURES=1 go test ./collect/internal/fixturegen -run . -count=1 -v " +
			"after scripts/install-deps --all-versions)")
	}
	out := testdataDir(t)
	// After every subtest: the README.md of each folder, from the files in it.
	t.Cleanup(func() {
		if !t.Failed() {
			writeReadmes(t, out)
		}
	})
	for _, major := range majors {
		t.Run(fmt.Sprintf("pg%d", major), func(t *testing.T) {
			t.Parallel()
			g := start(t, major, out, nil)
			g.vacuum(t)
			g.explain(t)
			if major >= 17 {
				g.psqlSession(t)
			}
		})
		t.Run(fmt.Sprintf("pg%d-autovacuum", major), func(t *testing.T) {
			t.Parallel()
			autovacuum(t, major, out)
		})
	}
	t.Run("pg17-long-timing", func(t *testing.T) {
		t.Parallel()
		g := start(t, 17, out, nil)
		g.writePsql(t, "psql", "pg17-long-timing.txt", "\\timing on\nselect pg_sleep(61);\n")
	})
}

// testdataDir is parse in the repository this package is in, or
// $PGSTUDY_FIXTURES_DIR when set (to compare two runs without touching the
// committed fixtures); each kind of fixture goes in its folder under it.
func testdataDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("PGSTUDY_FIXTURES_DIR"); d != "" {
		return d
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("cannot find the repository root from the package folder: %v", err)
	}
	return filepath.Join(root, "parse")
}

// gen is one running server and where its fixtures go.
type gen struct {
	major int
	c     *pgtest.Cluster
	out   string
}

func start(t *testing.T, major int, out string, settings map[string]string) *gen {
	t.Helper()
	s := map[string]string{
		"autovacuum":   "off", // nothing may change the tables between statements
		"lc_messages":  "C",
		"log_timezone": "UTC",
		"timezone":     "UTC",
	}
	for k, v := range settings {
		s[k] = v
	}
	return &gen{major: major, c: pgtest.Start(t, major, pgtest.WithSettings(s)), out: out}
}

func (g *gen) name(kase, ext string) string {
	return fmt.Sprintf("pg%d-%s.%s", g.major, kase, ext)
}

// write writes a fixture file under the testdata folder kind.
func (g *gen) write(t *testing.T, kind, name string, data []byte) {
	t.Helper()
	dir := filepath.Join(g.out, folders[kind])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s/%s (%d bytes)", kind, name, len(data))
}

// connect opens a session to the cluster that records every notice.
func (g *gen) connect(t *testing.T) (*pgconn.PgConn, *[]*pgconn.Notice) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(g.c.DSN())
	if err != nil {
		t.Fatal(err)
	}
	notices := new([]*pgconn.Notice)
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { *notices = append(*notices, n) }
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pg%d: connect: %v", g.major, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn, notices
}

// exec1 runs sql (one or more statements, simple protocol) and returns the
// results; any error fails the test.
func exec1(t *testing.T, conn *pgconn.PgConn, sql string) []*pgconn.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", sql, r.Err)
		}
	}
	return res
}

// sql runs each statement on its own (each in its own transaction).
func (g *gen) sql(t *testing.T, stmts ...string) {
	t.Helper()
	conn, _ := g.connect(t)
	for _, s := range stmts {
		exec1(t, conn, s)
	}
	conn.Close(context.Background())
}

// restart stops the server with a fast shutdown (a checkpoint) and starts it
// again, so that the next statement finds shared buffers empty.
func (g *gen) restart(t *testing.T) {
	t.Helper()
	for _, cmd := range []string{g.c.StopCmd(), g.c.StartCmd()} {
		if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
	}
}

// clientEnv is the environment of psql and pgbench: no PG* variables but
// those pointing at the cluster, and a UTF-8 C locale.
func (g *gen) clientEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") || strings.HasPrefix(kv, "LC_") || strings.HasPrefix(kv, "LANG") {
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "LC_ALL=C.UTF-8"), g.c.Env()...)
}

// psql runs Debian's psql -X -e with input on its standard input and returns
// its standard output and standard error as one stream, as
// `psql ... 2>&1 | tee` would have them.
func (g *gen) psql(t *testing.T, input string) []byte {
	t.Helper()
	cmd := exec.Command(g.c.Psql(), "-X", "-e")
	cmd.Env = g.clientEnv()
	cmd.Stdin = strings.NewReader(input)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b // the same writer: one pipe
	if err := cmd.Run(); err != nil {
		t.Fatalf("psql: %v\n%s", err, b.String())
	}
	return b.Bytes()
}

func (g *gen) writePsql(t *testing.T, kind, name, input string) {
	t.Helper()
	g.write(t, kind, name, g.psql(t, input))
}

// --- VACUUM VERBOSE ---------------------------------------------------------

// vacuumTable makes table t afresh, always the same: 50,000 rows, a primary
// key and a second index, every tenth row with a 4 kB payload of random
// hexadecimal text (it goes to the TOAST table; pglz cannot compress it), and
// dead tuples from an UPDATE of an indexed column and a DELETE, after a
// first VACUUM ANALYZE. Then the server restarts so that the vacuum reads.
func (g *gen) vacuumTable(t *testing.T) {
	t.Helper()
	g.sql(t,
		"drop table if exists t",
		"create table t (id int primary key, k int not null, payload text)",
		"create index t_k on t (k)",
		`select setseed(0.25);
		 insert into t
		 select i, (i * 7919) % 10007,
		        case when i % 10 = 0
		             then (select string_agg(md5(random()::text || i || g), '') from generate_series(1, 128) as g)
		             else md5(i::text) end
		 from generate_series(1, 50000) as i`,
		"vacuum analyze t",
		"update t set k = k + 1 where id % 5 = 0",
		"delete from t where id % 7 = 0",
	)
	g.restart(t)
}

var vacuumCases = []struct {
	name string
	set  []string // SET statements before the VACUUM
	stmt string
}{
	{"vacuum-verbose", nil, "vacuum (verbose) t;"},
	{"vacuum-verbose-analyze", nil, "vacuum (verbose, analyze) t;"},
	{"vacuum-verbose-freeze", nil, "vacuum (verbose, freeze) t;"},
	// vacuum_freeze_table_age = 0 makes a plain VACUUM aggressive.
	{"vacuum-aggressive", []string{"set vacuum_freeze_table_age = 0;"}, "vacuum (verbose) t;"},
	{"vacuum-verbose-io", []string{"set track_io_timing = on;"}, "vacuum (verbose) t;"},
}

func (g *gen) vacuum(t *testing.T) {
	for _, vc := range vacuumCases {
		// The notices, on one copy of the table.
		g.vacuumTable(t)
		conn, notices := g.connect(t)
		for _, s := range vc.set {
			exec1(t, conn, s)
		}
		*notices = nil
		exec1(t, conn, vc.stmt)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for _, n := range *notices {
			if err := enc.Encode(noticeJSON{n.Severity, n.Code, n.Message, n.Detail, n.Hint, n.Where}); err != nil {
				t.Fatal(err)
			}
		}
		conn.Close(context.Background())
		g.write(t, "vacuum", g.name(vc.name, "notices.jsonl"), b.Bytes())

		// What psql prints, on another, identical copy.
		g.vacuumTable(t)
		input := "\\timing on\n" + strings.Join(vc.set, "\n")
		if len(vc.set) > 0 {
			input += "\n"
		}
		g.writePsql(t, "vacuum", g.name(vc.name, "psql.txt"), input+vc.stmt+"\n")
	}
}

// noticeJSON is one line of a .notices.jsonl fixture: the fields the
// collector records of a notice (samples.Notice), as pgx received them.
type noticeJSON struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Detail   string `json:"detail"`
	Hint     string `json:"hint"`
	Where    string `json:"where"`
}

// --- autovacuum in the server log -------------------------------------------

// Two versions log with the prefix pgBadger's documentation suggests for
// stderr logs; the others with '%m [%p] %q%u@%d ' (the default from 13 to 18
// is '%m [%p] ').
var pgbadgerPrefix = map[int]bool{14: true, 17: true}

func autovacuum(t *testing.T, major int, out string) {
	prefix := "%m [%p] %q%u@%d "
	if pgbadgerPrefix[major] {
		prefix = "%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h "
	}
	g := start(t, major, out, map[string]string{
		"autovacuum":                  "on",
		"autovacuum_naptime":          "1s",
		"log_autovacuum_min_duration": "0",
		"log_line_prefix":             prefix,
		"logging_collector":           "off",
	})
	g.sql(t,
		"create table t (id int primary key, k int not null, payload text)",
		"create index t_k on t (k)",
		`select setseed(0.25);
		 insert into t
		 select i, (i * 7919) % 10007,
		        case when i % 10 = 0
		             then (select string_agg(md5(random()::text || i || g), '') from generate_series(1, 128) as g)
		             else md5(i::text) end
		 from generate_series(1, 50000) as i`,
	)
	toast := "pg_toast.pg_toast_" + g.c.SQL(t, "select 't'::regclass::oid")
	// The insert makes autovacuum analyze t and, from 13 on, vacuum it and
	// its TOAST table.
	waitLog(t, g, 0,
		`automatic analyze of table "postgres.public.t"`,
		`automatic vacuum of table "postgres.public.t"`,
		`automatic vacuum of table "postgres.`+toast+`"`)
	time.Sleep(2 * time.Second)
	from := fileSize(g.c.Log)
	// One transaction: an ANALYZE that ends between two of them would
	// overwrite the dead tuples counted for the first with its own estimate,
	// and t might then stay below the vacuum threshold.
	g.sql(t, `update t set k = k + 1 where id % 5 = 0;
		delete from t where id % 3 = 0`) // a third of the TOAST rows too: above the 20% scale factor
	waitLog(t, g, from,
		`automatic vacuum of table "postgres.public.t"`,
		`automatic vacuum of table "postgres.`+toast+`"`,
		`automatic analyze of table "postgres.public.t"`)
	time.Sleep(2 * time.Second)
	if out, err := exec.Command("sh", "-c", g.c.StopCmd()).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	log, err := os.ReadFile(g.c.Log)
	if err != nil {
		t.Fatal(err)
	}
	// The only path of this machine in the log is the socket folder, a
	// temporary folder named differently on every run.
	log = bytes.ReplaceAll(log, []byte(g.c.SocketDir), []byte("/var/run/postgresql"))
	g.write(t, "autovacuum", g.name("autovacuum", "log"), log)
}

// waitLog waits until the server log, from offset on, holds every one of
// the strings.
func waitLog(t *testing.T, g *gen, offset int64, want ...string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, _ := os.ReadFile(g.c.Log)
		if int64(len(b)) >= offset {
			b = b[offset:]
		}
		var missing []string
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				missing = append(missing, w)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pg%d: the server log does not show %q after 2 minutes; log from offset %d:\n%s", g.major, missing, offset, b)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// --- EXPLAIN ----------------------------------------------------------------

var explainCases = []struct {
	name string
	prep string   // run before the server restarts
	set  []string // SET statements before the EXPLAIN
	sql  string
	txn  bool // inside BEGIN ... ROLLBACK
}{
	{
		name: "parallel-seqscan",
		set: []string{
			"set parallel_setup_cost = 0", "set parallel_tuple_cost = 0",
			"set min_parallel_table_scan_size = 0", "set max_parallel_workers_per_gather = 2",
			"set enable_indexonlyscan = off", "set enable_indexscan = off", "set enable_bitmapscan = off",
		},
		sql: "select count(*) from pgbench_accounts",
	},
	{
		name: "bitmap-heapscan",
		set:  []string{"set enable_seqscan = off", "set enable_indexscan = off", "set max_parallel_workers_per_gather = 0"},
		sql:  "select sum(abalance) from pgbench_accounts where aid between 10001 and 30000",
	},
	{
		name: "index-only-scan",
		prep: "vacuum pgbench_accounts", // sets the visibility map again after the UPDATEs rolled back
		set:  []string{"set enable_seqscan = off", "set enable_bitmapscan = off", "set max_parallel_workers_per_gather = 0"},
		sql:  "select count(*) from pgbench_accounts where aid between 10001 and 60000",
	},
	{
		name: "update",
		sql:  "update pgbench_accounts set abalance = abalance + 1 where aid between 1 and 1000",
		txn:  true,
	},
}

func (g *gen) explain(t *testing.T) {
	t.Helper()
	cmd := exec.Command(g.c.Pgbench(), "-i", "-q", "-s", "1")
	cmd.Env = g.clientEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	// ANALYZE samples 300 rows per unit of statistics target at random:
	// with 1000 for aid it reads all 100,000 rows, so the estimates in the
	// plans are the same on every run.
	g.sql(t, "alter table pgbench_accounts alter column aid set statistics 1000", "analyze pgbench_accounts")

	// What the collector captures: a plain EXPLAIN (FORMAT JSON), default settings.
	conn, _ := g.connect(t)
	g.write(t, "explain", g.name("plain-seqscan", "json"),
		planText(exec1(t, conn, "explain (format json) select count(*), sum(abalance) from pgbench_accounts")[0]))
	conn.Close(context.Background())

	for _, ec := range explainCases {
		for _, io := range []bool{false, true} {
			for _, format := range []string{"json", "text"} {
				if ec.prep != "" {
					g.sql(t, ec.prep)
				}
				g.restart(t) // cold shared buffers: Shared Read Blocks, and I/O timings with track_io_timing
				conn, _ := g.connect(t)
				set := append([]string{fmt.Sprintf("set track_io_timing = %s", onOff(io))}, ec.set...)
				for _, s := range set {
					exec1(t, conn, s)
				}
				q := fmt.Sprintf("explain (analyze, buffers, settings, wal, timing, format %s) %s", format, ec.sql)
				if ec.txn {
					exec1(t, conn, "begin")
				}
				plan := planText(exec1(t, conn, q)[0])
				if ec.txn {
					exec1(t, conn, "rollback")
				}
				conn.Close(context.Background())
				kase := ec.name
				if io {
					kase += "-io"
				}
				ext := map[string]string{"json": "json", "text": "txt"}[format]
				g.write(t, "explain", g.name(kase, ext), plan)
			}
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// planText is the EXPLAIN result as psql -XAt prints it: each row's single
// column followed by a newline.
func planText(r *pgconn.Result) []byte {
	var b bytes.Buffer
	for _, row := range r.Rows {
		b.Write(row[0])
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// --- psql -------------------------------------------------------------------

const sessionInput = `\timing on
set work_mem = '64MB';
select i as id, i * i as square, md5(i::text) as hash from generate_series(1, 3) as i;
\pset format unaligned
select i as id, i * i as square, md5(i::text) as hash from generate_series(1, 3) as i;
\pset format aligned
do $$ begin raise notice 'hello'; raise info 'x'; raise warning 'careful: % rows', 3; end $$;
select abalanc from pgbench_accounts limit 1;
select round('1.5'::text, 1);
select 1 as one; select 2 as two;
select 1 as one \; select 2 as two;
`

func (g *gen) psqlSession(t *testing.T) {
	t.Helper()
	g.writePsql(t, "psql", g.name("session", "txt"), sessionInput)
}

// --- README.md --------------------------------------------------------------

// folders is where each kind of fixture goes, under parse: beside the
// parser that reads it.
var folders = map[string]string{
	"vacuum":     filepath.Join("vacuum", "testdata", "verbose"),
	"autovacuum": filepath.Join("vacuum", "testdata", "autovacuum"),
	"explain":    filepath.Join("explain", "testdata"),
	"psql":       filepath.Join("psql", "testdata"),
}
