package vacuum

// Autovacuum side by side with pgBadger (Debian's pgbadger package), on
// server logs built from the real autovacuum entries of
// testdata/autovacuum: the same entries over and over, for thousands of
// tables, with other numbers, times and process IDs, among the other lines
// a server writes (startup and shutdown, checkpoints, connections).
//
// pgBadger keeps, per table, the sums of what the entries' "pages: N
// removed" and "tuples: N removed" lines say (autovacuum_info.<db>.tables.
// <"db.schema.table">.pages.removed and .tuples.removed, and .vacuums, the
// entries, in the report -x json writes). TestAutovacuumMatchesPgBadger
// checks that Autovacuum's records give the same sums, and that both
// equal what the generator wrote.
//
// The same files serve scripts/measure-pgbadger, which writes a large log
// (TestAutovacuumPeerLog), times pgBadger and BenchmarkAutovacuumFile on
// it and compares the sums (TestAutovacuumPeerFile). Environment:
//
//	PGSTUDY_KEEP_LOG       TestAutovacuumPeerLog writes the log to this file,
//	                       and the sums it wrote to FILE.truth.json
//	PGSTUDY_LOG_MB         its size in MB (10^6 bytes); default 220
//	PGSTUDY_LOG_PREFIX     its log_line_prefix: "pgbadger" ('%t [%p]: [%l-1]
//	                       user=%u,db=%d,app=%a,client=%h ', the default) or
//	                       "debian" ('%m [%p] %q%u@%d ')
//	PGSTUDY_LOG_VERSIONS   the servers that wrote it, one after the other, as
//	                       if upgraded in place; default 13,14,15,16,17,18
//	PGSTUDY_LOG_FILE       the log TestAutovacuumPeerFile and
//	                       BenchmarkAutovacuumFile read
//	PGSTUDY_PGBADGER_JSON  pgBadger's -x json reports of that log, comma
//	                       separated, for TestAutovacuumPeerFile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/collect/pgtest"
)

// The two log_line_prefix settings of the fixtures.
const (
	peerPrefixDebian = "%m [%p] %q%u@%d "
	peerPrefixBadger = "%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h "
)

func peerFixturePrefix(major int) string {
	if major == 14 || major == 17 {
		return peerPrefixBadger
	}
	return peerPrefixDebian
}

var peerVersions = []int{13, 14, 15, 16, 17, 18}

// TestAutovacuumMatchesPgBadger runs pgBadger (-j 1) and Autovacuum on
// logs of each version (about 300 KB each, with the fixture's
// log_line_prefix) and on two logs of all six, one after the other (about
// 1.2 MB each, one per prefix), and compares, for every table, the entries
// and the sums of tuples and pages removed: ours, pgBadger's and the
// generator's. Without pgbadger on PATH it is skipped, or fails when
// CI=true.
func TestAutovacuumMatchesPgBadger(t *testing.T) {
	pgbadger := peerPgBadger(t)
	type logCase struct {
		name     string
		versions []int
		prefix   string
		size     int64
	}
	var cases []logCase
	for _, v := range peerVersions {
		cases = append(cases, logCase{fmt.Sprintf("pg%d", v), []int{v}, peerFixturePrefix(v), 300_000})
	}
	cases = append(cases, logCase{"pg13-18", peerVersions, peerPrefixBadger, 1_200_000})
	cases = append(cases, logCase{"pg13-18-debian", peerVersions, peerPrefixDebian, 1_200_000})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "postgresql.log")
			truth := peerWriteLog(t, log, peerConfig{Versions: c.versions, Prefix: c.prefix, Bytes: c.size, Tables: 150, Seed: uint64(i + 1)})
			report := log + ".json"
			peerRunPgBadger(t, pgbadger, log, c.prefix, report, 1)
			badger := peerReadPgBadger(t, report)
			ours := peerOurs(t, log)
			peerCheck(t, truth, ours, map[string]map[string]peerTotals{"pgBadger": badger})
		})
	}
}

// TestAutovacuumPeerLog writes the log of scripts/measure-pgbadger: to the
// file PGSTUDY_KEEP_LOG names, PGSTUDY_LOG_MB MB of it. It is skipped when
// PGSTUDY_KEEP_LOG is not set.
func TestAutovacuumPeerLog(t *testing.T) {
	path := os.Getenv("PGSTUDY_KEEP_LOG")
	if path == "" {
		t.Skip("PGSTUDY_KEEP_LOG is not set (scripts/measure-pgbadger sets it)")
	}
	mb := 220.0
	if s := os.Getenv("PGSTUDY_LOG_MB"); s != "" {
		var err error
		if mb, err = strconv.ParseFloat(s, 64); err != nil || mb <= 0 {
			t.Fatalf("PGSTUDY_LOG_MB=%q: expected a positive number of MB", s)
		}
	}
	prefix := peerPrefixBadger
	switch p := os.Getenv("PGSTUDY_LOG_PREFIX"); p {
	case "", "pgbadger":
	case "debian":
		prefix = peerPrefixDebian
	default:
		t.Fatalf("PGSTUDY_LOG_PREFIX=%q: expected pgbadger or debian", p)
	}
	versions := peerVersions
	if s := os.Getenv("PGSTUDY_LOG_VERSIONS"); s != "" {
		versions = nil
		for f := range strings.SplitSeq(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || !slices.Contains(peerVersions, v) {
				t.Fatalf("PGSTUDY_LOG_VERSIONS=%q: expected majors from 13 to 18, comma separated", s)
			}
			versions = append(versions, v)
		}
	}
	start := time.Now()
	truth := peerWriteLog(t, path, peerConfig{Versions: versions, Prefix: prefix, Bytes: int64(mb * 1e6), Tables: 5000, Seed: 1})
	b, err := json.MarshalIndent(truth, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".truth.json", append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := peerSum(truth)
	t.Logf("wrote %s: %d bytes in %v, log_line_prefix '%s', versions %v; %d tables, %d autovacuum entries, %d tuples and %d pages removed",
		path, st.Size(), time.Since(start).Round(time.Millisecond), prefix, versions, len(truth), sum.Vacuums, sum.TuplesRemoved, sum.PagesRemoved)
}

// TestAutovacuumPeerFile reads the log PGSTUDY_LOG_FILE names with
// Autovacuum and compares its sums per table with those the generator
// wrote (FILE.truth.json, when present) and those of each pgBadger report
// PGSTUDY_PGBADGER_JSON lists. It is skipped when PGSTUDY_LOG_FILE is not
// set.
func TestAutovacuumPeerFile(t *testing.T) {
	path := os.Getenv("PGSTUDY_LOG_FILE")
	if path == "" {
		t.Skip("PGSTUDY_LOG_FILE is not set (scripts/measure-pgbadger sets it)")
	}
	var truth map[string]peerTotals
	if b, err := os.ReadFile(path + ".truth.json"); err == nil {
		if err := json.Unmarshal(b, &truth); err != nil {
			t.Fatalf("%s.truth.json: %v", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	others := map[string]map[string]peerTotals{}
	if s := os.Getenv("PGSTUDY_PGBADGER_JSON"); s != "" {
		for f := range strings.SplitSeq(s, ",") {
			others["pgBadger "+filepath.Base(f)] = peerReadPgBadger(t, f)
		}
	}
	ours := peerOurs(t, path)
	peerCheck(t, truth, ours, others)
}

// BenchmarkAutovacuumFile reads the log PGSTUDY_LOG_FILE names with
// Autovacuum, from the file, once per iteration. It is skipped when
// PGSTUDY_LOG_FILE is not set.
func BenchmarkAutovacuumFile(b *testing.B) {
	path := os.Getenv("PGSTUDY_LOG_FILE")
	if path == "" {
		b.Skip("PGSTUDY_LOG_FILE is not set (scripts/measure-pgbadger sets it)")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	records := 0
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		recs, _, err := Autovacuum(bufio.NewReaderSize(f, 1<<16), path)
		f.Close()
		if err != nil || len(recs) == 0 {
			b.Fatalf("%d records, error %v", len(recs), err)
		}
		records = len(recs)
	}
	b.ReportMetric(float64(records), "records/op")
}

// --- the two sides -----------------------------------------------------------

// peerTotals is what a table's autovacuum entries add up to.
type peerTotals struct {
	Vacuums       int64 `json:"vacuums"`
	TuplesRemoved int64 `json:"tuples_removed"`
	PagesRemoved  int64 `json:"pages_removed"`
}

func peerSum(m map[string]peerTotals) peerTotals {
	var s peerTotals
	for _, v := range m {
		s.Vacuums += v.Vacuums
		s.TuplesRemoved += v.TuplesRemoved
		s.PagesRemoved += v.PagesRemoved
	}
	return s
}

// peerPgBadger finds pgbadger on PATH; without it the test is skipped, or
// fails when CI=true.
func peerPgBadger(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("pgbadger")
	if err != nil {
		pgtest.Missing(t, "pgbadger is not installed (Debian package pgbadger; scripts/install-deps installs it)")
	}
	return p
}

// peerRunPgBadger writes pgBadger's -x json report of log to report.
func peerRunPgBadger(t *testing.T, pgbadger, log, prefix, report string, jobs int) {
	t.Helper()
	// pgBadger refuses to run while its pid file (by default
	// /tmp/pgbadger.pid) exists, and -j puts temporary files in --tempdir.
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), pgbadger, "-q", "-j", strconv.Itoa(jobs), "-f", "stderr", "-p", prefix,
		"--pid-dir", dir, "--tempdir", dir, "-x", "json", "-o", report, log)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
}

// peerNum is a number of pgBadger's report, which JSON::XS may write as a
// string.
type peerNum int64

func (n *peerNum) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		*n = 0
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) {
		return fmt.Errorf("expected a whole number, found %s", b)
	}
	*n = peerNum(f)
	return nil
}

// peerReadPgBadger reads the per-table sums of pgBadger's -x json report:
// autovacuum_info.<db>.tables.<"db.schema.table">.
func peerReadPgBadger(t *testing.T, path string) map[string]peerTotals {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		AutovacuumInfo map[string]struct {
			Tables map[string]struct {
				Vacuums peerNum `json:"vacuums"`
				Tuples  struct {
					Removed peerNum `json:"removed"`
				} `json:"tuples"`
				Pages struct {
					Removed peerNum `json:"removed"`
				} `json:"pages"`
			} `json:"tables"`
		} `json:"autovacuum_info"`
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]peerTotals{}
	for _, db := range report.AutovacuumInfo {
		for name, tb := range db.Tables {
			s := out[name]
			s.Vacuums += int64(tb.Vacuums)
			s.TuplesRemoved += int64(tb.Tuples.Removed)
			s.PagesRemoved += int64(tb.Pages.Removed)
			out[name] = s
		}
	}
	return out
}

// peerOurs reads log with Autovacuum and sums its autovacuum records per
// "db.schema.table". A warning, or a record without tuples or pages
// removed, fails the test.
func peerOurs(t *testing.T, log string) map[string]peerTotals {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, warns, err := Autovacuum(f, log)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range warns {
		if i == 10 {
			t.Errorf("... %d warnings in all", len(warns))
			break
		}
		t.Errorf("warning: %s", w)
	}
	out := map[string]peerTotals{}
	for _, r := range recs {
		if r.Operation != "vacuum" {
			continue
		}
		if !r.Automatic || r.TuplesRemoved == nil || r.PagesRemoved == nil {
			t.Errorf("line %d: %s: automatic %v, tuples removed %v, pages removed %v", r.Line, relName(&r), r.Automatic, r.TuplesRemoved, r.PagesRemoved)
			continue
		}
		k := r.Database + "." + r.Schema + "." + r.Table
		s := out[k]
		s.Vacuums++
		s.TuplesRemoved += *r.TuplesRemoved
		s.PagesRemoved += *r.PagesRemoved
		out[k] = s
	}
	return out
}

// peerCheck compares, for every table, our sums with the generator's (when
// truth is not nil) and with each other tool's.
func peerCheck(t *testing.T, truth, ours map[string]peerTotals, others map[string]map[string]peerTotals) {
	t.Helper()
	sum := peerSum(ours)
	if len(ours) == 0 || sum.Vacuums == 0 {
		t.Fatalf("no autovacuum records")
	}
	compare := func(name string, theirs map[string]peerTotals) {
		var diffs []string
		for _, k := range peerKeys(ours, theirs) {
			if a, b := ours[k], theirs[k]; a != b {
				diffs = append(diffs, fmt.Sprintf("%s: ours %+v, %s %+v", k, a, name, b))
			}
		}
		if len(diffs) > 0 {
			if len(diffs) > 10 {
				diffs = append(diffs[:10], "...")
			}
			t.Errorf("%d tables differ from %s:\n%s", len(diffs), name, strings.Join(diffs, "\n"))
			return
		}
		t.Logf("ours = %s: %d tables, %d autovacuum entries, %d tuples removed, %d pages removed", name, len(ours), sum.Vacuums, sum.TuplesRemoved, sum.PagesRemoved)
	}
	if truth != nil {
		compare("generator", truth)
	}
	for _, name := range slices.Sorted(maps.Keys(others)) {
		compare(name, others[name])
	}
}

func peerKeys(a, b map[string]peerTotals) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// --- the generator -----------------------------------------------------------

// peerConfig describes a log to write.
type peerConfig struct {
	Versions []int  // the servers that wrote it, one after the other
	Prefix   string // peerPrefixDebian or peerPrefixBadger
	Bytes    int64  // about how long it is
	Tables   int    // how many user tables it is about
	Seed     uint64
}

// peerWriteLog writes the log cfg describes to path and returns the sums of
// its autovacuum entries per "db.schema.table".
func peerWriteLog(t testing.TB, path string, cfg peerConfig) map[string]peerTotals {
	t.Helper()
	var servers []*peerServer
	for _, v := range cfg.Versions {
		servers = append(servers, peerReadFixture(t, v))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	g := newPeerGen(w, cfg)
	// Each server writes about its share of the log, give or take a fifth,
	// so that the servers do not change at simple fractions of the file
	// (where pgbadger -j N splits it).
	per := cfg.Bytes / int64(len(servers))
	for i, s := range servers {
		until := cfg.Bytes
		if i < len(servers)-1 {
			until = per*int64(i+1) + per*g.between(-20, 20)/100
		}
		g.server(s, until)
		if g.err != nil {
			break
		}
	}
	if g.err == nil {
		g.err = w.Flush()
	}
	if err := f.Close(); g.err == nil {
		g.err = err
	}
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.truth
}

// peerEntry is an autovacuum or autoanalyze entry of a fixture.
type peerEntry struct {
	msg  string   // after "LOG:  "
	body []string // the continuation lines, without their tab
}

// peerLine is another line of a fixture.
type peerLine struct {
	pid, sev, msg string
}

// peerServer is what the generator takes from a fixture.
type peerServer struct {
	version           int
	startup, shutdown []peerLine
	// The entries of table t (main), of its TOAST table (toast), its
	// analyzes (analyze) and the catalog tables' (catalog).
	main, toast, analyze, catalog []peerEntry
}

var peerSeverities = []string{"LOG", "FATAL", "ERROR", "WARNING"}

// peerReadFixture reads testdata/autovacuum/pgNN-autovacuum.log.
func peerReadFixture(t testing.TB, major int) *peerServer {
	t.Helper()
	name := filepath.Join("testdata", "autovacuum", fmt.Sprintf("pg%d-autovacuum.log", major))
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := &peerServer{version: major}
	var cur *peerEntry
	var list *[]peerEntry
	seen := false
	for n, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if rest, ok := strings.CutPrefix(line, "\t"); ok {
			if cur == nil {
				t.Fatalf("%s:%d: a continuation line outside an autovacuum entry", name, n+1)
			}
			cur.body = append(cur.body, rest)
			continue
		}
		if cur != nil {
			*list = append(*list, *cur)
			cur = nil
		}
		sev, msg, pid := "", "", ""
		for _, l := range peerSeverities {
			if i := strings.Index(line, " "+l+":  "); i >= 0 {
				sev, msg = l, line[i+len(l)+4:]
				if j := strings.IndexByte(line, '['); j >= 0 && j < i {
					if k := strings.IndexByte(line[j:], ']'); k > 0 {
						pid = line[j+1 : j+k]
					}
				}
				break
			}
		}
		if sev == "" || pid == "" {
			t.Fatalf("%s:%d: no severity or process ID in %q", name, n+1, line)
		}
		if !strings.HasPrefix(msg, "automatic ") {
			if seen {
				s.shutdown = append(s.shutdown, peerLine{pid, sev, msg})
			} else {
				s.startup = append(s.startup, peerLine{pid, sev, msg})
			}
			continue
		}
		seen = true
		table, _ := peerTableName(msg)
		switch {
		case strings.HasPrefix(msg, "automatic analyze") && strings.HasSuffix(table, ".public.t"):
			list = &s.analyze
		case strings.Contains(msg, "vacuum ") && strings.HasSuffix(table, ".public.t"):
			list = &s.main
		case strings.Contains(msg, "vacuum ") && strings.Contains(table, ".pg_toast.pg_toast_"):
			list = &s.toast
		default:
			list = &s.catalog
		}
		cur = &peerEntry{msg: msg}
	}
	if cur != nil {
		*list = append(*list, *cur)
	}
	if len(s.main) == 0 || len(s.toast) == 0 || len(s.analyze) == 0 || len(s.startup) == 0 || len(s.shutdown) == 0 {
		t.Fatalf("%s: expected startup, autovacuum entries of t and its TOAST table, analyzes of t and shutdown", name)
	}
	return s
}

// peerTableName returns the quoted table name of an entry's first line and
// what follows it.
func peerTableName(msg string) (name, rest string) {
	i := strings.IndexByte(msg, '"')
	if i < 0 {
		return "", ""
	}
	j := strings.IndexByte(msg[i+1:], '"')
	if j < 0 {
		return "", ""
	}
	return msg[i+1 : i+1+j], msg[i+2+j:]
}

// peerProc is a server process, for the line prefix.
type peerProc struct {
	pid     int
	line    int // %l
	session bool
	user    string
	db      string
	app     string
	client  string
}

// peerEvent is a line that will be written at a later time: a session's
// disconnection, the end of a checkpoint.
type peerEvent struct {
	at    time.Time
	proc  *peerProc
	stage int
	msg   string
}

type peerGen struct {
	cfg     peerConfig
	w       io.Writer
	n       int64 // bytes written
	err     error
	rng     *rand.Rand
	now     time.Time
	down    time.Time // when the previous server shut down
	pid     int
	xid     int64
	lsn     uint64
	buf     []byte
	pending []peerEvent
	truth   map[string]peerTotals
	tables  map[string][]peerTable // by database
	dbs     []string
}

// peerTable is a user table of the log.
type peerTable struct {
	db, schema, name string
	toastOID         int
}

func newPeerGen(w io.Writer, cfg peerConfig) *peerGen {
	g := &peerGen{
		cfg:    cfg,
		w:      w,
		rng:    rand.New(rand.NewPCG(cfg.Seed, 0x5eed)),
		now:    time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC),
		pid:    1200,
		xid:    750,
		lsn:    0x3000000,
		truth:  map[string]peerTotals{},
		tables: map[string][]peerTable{},
		dbs:    []string{"postgres", "app", "reporting"},
	}
	g.down = g.now.Add(-3 * time.Second)
	schemas := []string{"public", "sales", "audit"}
	for i := 1; i <= cfg.Tables; i++ {
		db := g.dbs[i%len(g.dbs)]
		g.tables[db] = append(g.tables[db], peerTable{db, schemas[(i/len(g.dbs))%len(schemas)], fmt.Sprintf("t%04d", i), 16384 + 3*i})
	}
	return g
}

// Random numbers: between lo and hi (included), and spread over the orders
// of magnitude between lo and hi.
func (g *peerGen) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.rng.Int64N(hi-lo+1)
}

func (g *peerGen) spread(lo, hi int64) int64 {
	if lo < 1 {
		lo = 1
	}
	if hi <= lo {
		return lo
	}
	return int64(math.Round(math.Exp(math.Log(float64(lo)) + g.rng.Float64()*(math.Log(float64(hi))-math.Log(float64(lo))))))
}

func (g *peerGen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *peerGen) newProc() *peerProc {
	g.pid += int(g.between(1, 40))
	if g.pid >= 4194304 {
		g.pid = 300
	}
	return &peerProc{pid: g.pid}
}

// advance moves the clock on by up to max and writes the pending lines
// that are due.
func (g *peerGen) advance(min, max time.Duration) {
	g.now = g.now.Add(min + time.Duration(g.rng.Int64N(int64(max-min)+1)))
	for len(g.pending) > 0 && !g.pending[0].at.After(g.now) {
		e := g.pending[0]
		g.pending = g.pending[1:]
		g.line(e.at, e.proc, e.stage, "LOG", e.msg, nil)
	}
}

func (g *peerGen) later(e peerEvent) {
	i, _ := slices.BinarySearchFunc(g.pending, e.at, func(e peerEvent, at time.Time) int { return e.at.Compare(at) })
	g.pending = slices.Insert(g.pending, i, e)
}

// line writes a line of proc with the prefix of cfg.Prefix, and its
// continuation lines. stage is how far a session is: 0 not authenticated,
// 1 authorized, 2 with its application name known.
func (g *peerGen) line(at time.Time, p *peerProc, stage int, sev, msg string, body []string) {
	if g.err != nil {
		return
	}
	p.line++
	b := g.buf[:0]
	user, db, app, client := "", "", "", ""
	if p.session {
		user, db, app, client = "[unknown]", "[unknown]", "[unknown]", p.client
		if stage >= 1 {
			user, db = p.user, p.db
		}
		if stage >= 2 {
			app = p.app
		}
	}
	if g.cfg.Prefix == peerPrefixDebian {
		b = at.AppendFormat(b, "2006-01-02 15:04:05.000 MST")
		b = append(b, " ["...)
		b = strconv.AppendInt(b, int64(p.pid), 10)
		b = append(b, "] "...)
		if p.session {
			b = append(b, user...)
			b = append(b, '@')
			b = append(b, db...)
			b = append(b, ' ')
		}
	} else {
		b = at.AppendFormat(b, "2006-01-02 15:04:05 MST")
		b = append(b, " ["...)
		b = strconv.AppendInt(b, int64(p.pid), 10)
		b = append(b, "]: ["...)
		b = strconv.AppendInt(b, int64(p.line), 10)
		b = append(b, "-1] user="...)
		b = append(b, user...)
		b = append(b, ",db="...)
		b = append(b, db...)
		b = append(b, ",app="...)
		b = append(b, app...)
		b = append(b, ",client="...)
		b = append(b, client...)
		b = append(b, ' ')
	}
	b = append(b, sev...)
	b = append(b, ":  "...)
	b = append(b, msg...)
	b = append(b, '\n')
	for _, l := range body {
		b = append(b, '\t')
		b = append(b, l...)
		b = append(b, '\n')
	}
	g.buf = b
	n, err := g.w.Write(b)
	g.n += int64(n)
	g.err = err
}

var (
	peerPortRe  = regexp.MustCompile(`port \d+|\.s\.PGSQL\.\d+`)
	peerDownRe  = regexp.MustCompile(`shut down at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`)
	peerPIDRe   = regexp.MustCompile(`\(PID \d+\)`)
	peerWroteRe = regexp.MustCompile(`wrote \d+ buffers \(\d+\.\d%\)`)
	peerLSNRe   = regexp.MustCompile(`lsn=[0-9A-F]+/[0-9A-F]+, redo lsn=[0-9A-F]+/[0-9A-F]+`)
)

// peerCheckpoints are the "checkpoint complete" messages of a checkpoint
// started by checkpoint_timeout, as the servers of the fixtures wrote them
// (log_checkpoints = on); the fixtures have only those of the shutdown
// checkpoint.
var peerCheckpoints = map[int]string{
	13: "checkpoint complete: wrote 908 buffers (5.5%); 0 WAL file(s) added, 0 removed, 1 recycled; write=14.406 s, sync=0.037 s, total=15.207 s; sync files=20, longest=0.006 s, average=0.002 s; distance=19659 kB, estimate=19659 kB",
	14: "checkpoint complete: wrote 915 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=16.003 s, sync=0.137 s, total=16.260 s; sync files=23, longest=0.018 s, average=0.006 s; distance=19683 kB, estimate=19683 kB",
	15: "checkpoint complete: wrote 910 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=18.728 s, sync=0.081 s, total=19.304 s; sync files=22, longest=0.009 s, average=0.004 s; distance=19676 kB, estimate=19676 kB",
	16: "checkpoint complete: wrote 910 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=18.983 s, sync=0.014 s, total=19.088 s; sync files=22, longest=0.003 s, average=0.001 s; distance=19675 kB, estimate=19675 kB; lsn=0/2814A98, redo lsn=0/2814A60",
	17: "checkpoint complete: wrote 910 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=16.506 s, sync=0.072 s, total=16.781 s; sync files=22, longest=0.009 s, average=0.004 s; distance=19674 kB, estimate=19674 kB; lsn=0/280F320, redo lsn=0/280F290",
	18: "checkpoint complete: wrote 907 buffers (5.5%), wrote 3 SLRU buffers; 0 WAL file(s) added, 0 removed, 1 recycled; write=15.938 s, sync=0.227 s, total=16.346 s; sync files=22, longest=0.108 s, average=0.011 s; distance=19680 kB, estimate=19680 kB; lsn=0/2A835C8, redo lsn=0/2A83538",
}

// server writes the log of one server, from its startup to its shutdown,
// until the log is about until bytes long.
func (g *peerGen) server(s *peerServer, until int64) {
	procs := map[string]*peerProc{}
	proc := func(pid string) *peerProc {
		p := procs[pid]
		if p == nil {
			p = g.newProc()
			procs[pid] = p
		}
		return p
	}
	var checkpointer *peerProc
	for _, l := range s.shutdown {
		if l.msg == "shutting down" {
			checkpointer = proc(l.pid)
		}
	}
	if checkpointer == nil {
		checkpointer = g.newProc()
	}
	for _, l := range s.startup {
		msg := peerPortRe.ReplaceAllStringFunc(l.msg, func(m string) string {
			if strings.HasPrefix(m, "port") {
				return "port 5432"
			}
			return ".s.PGSQL.5432"
		})
		msg = peerDownRe.ReplaceAllLiteralString(msg, "shut down at "+g.down.Format("2006-01-02 15:04:05 MST"))
		g.advance(time.Millisecond, 200*time.Millisecond)
		g.line(g.now, proc(l.pid), 2, l.sev, msg, nil)
	}
	nextCheckpoint := g.now.Add(5 * time.Minute)
	for g.n < until && g.err == nil {
		switch x := g.rng.Float64(); {
		case x < 0.75:
			g.worker(s)
		case x < 0.97:
			g.session(s.version)
		default:
			g.catalog(s)
		}
		if g.now.After(nextCheckpoint) {
			g.line(g.now, checkpointer, 2, "LOG", "checkpoint starting: time", nil)
			g.later(peerEvent{at: g.now.Add(time.Duration(g.between(20, 270)) * time.Second), proc: checkpointer, stage: 2, msg: g.checkpoint(s.version)})
			nextCheckpoint = nextCheckpoint.Add(5 * time.Minute)
		}
	}
	// The sessions end and the checkpoint completes before the shutdown.
	if len(g.pending) > 0 {
		g.now = g.pending[len(g.pending)-1].at
		g.advance(0, 0)
	}
	for _, l := range s.shutdown {
		msg := peerPIDRe.ReplaceAllStringFunc(l.msg, func(m string) string {
			return fmt.Sprintf("(PID %d)", proc(m[len("(PID "):len(m)-1]).pid)
		})
		g.advance(time.Millisecond, 100*time.Millisecond)
		g.line(g.now, proc(l.pid), 2, l.sev, msg, nil)
	}
	g.down = g.now
	g.advance(3*time.Second, 10*time.Second)
}

// checkpoint returns a "checkpoint complete" message of major with other
// numbers of buffers and LSNs.
func (g *peerGen) checkpoint(major int) string {
	msg := peerCheckpoints[major]
	buffers := g.spread(10, 16384)
	msg = peerWroteRe.ReplaceAllLiteralString(msg, fmt.Sprintf("wrote %d buffers (%.1f%%)", buffers, 100*float64(buffers)/16384))
	redo := g.lsn
	g.lsn += uint64(g.spread(1<<16, 1<<30))
	return peerLSNRe.ReplaceAllLiteralString(msg, fmt.Sprintf("lsn=%X/%X, redo lsn=%X/%X", g.lsn>>32, uint32(g.lsn), redo>>32, uint32(redo)))
}

var (
	peerUsers = []string{"app", "report", "postgres"}
	peerApps  = []string{"psql", "pgbench", "PostgreSQL JDBC Driver"}
)

// session writes the lines of a client connection: received and authorized
// now, the disconnection later.
func (g *peerGen) session(major int) {
	p := g.newProc()
	p.session = true
	p.user = peerUsers[g.rng.IntN(len(peerUsers))]
	p.db = g.dbs[g.rng.IntN(len(g.dbs))]
	p.app = peerApps[g.rng.IntN(len(peerApps))]
	host, port := "[local]", ""
	if g.chance(0.7) {
		host, port = fmt.Sprintf("10.0.%d.%d", g.between(0, 3), g.between(2, 254)), strconv.FormatInt(g.between(32768, 60999), 10)
	}
	p.client = host
	g.advance(time.Millisecond, 5*time.Second)
	start := g.now
	if port != "" {
		g.line(g.now, p, 0, "LOG", "connection received: host="+host+" port="+port, nil)
	} else {
		g.line(g.now, p, 0, "LOG", "connection received: host="+host, nil)
	}
	g.advance(time.Millisecond, 40*time.Millisecond)
	if major >= 17 {
		hba := 117
		if port != "" {
			hba = 119
		}
		g.line(g.now, p, 1, "LOG", fmt.Sprintf(`connection authenticated: user="%s" method=trust (/etc/postgresql/%d/main/pg_hba.conf:%d)`, p.user, major, hba), nil)
	}
	g.line(g.now, p, 1, "LOG", fmt.Sprintf("connection authorized: user=%s database=%s application_name=%s", p.user, p.db, p.app), nil)
	d := time.Duration(g.spread(20, 600_000)) * time.Millisecond
	at := start.Add(d)
	ms := d.Milliseconds()
	msg := fmt.Sprintf("disconnection: session time: %d:%02d:%02d.%03d user=%s database=%s host=%s", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000, p.user, p.db, host)
	if port != "" {
		msg += " port=" + port
	}
	g.later(peerEvent{at: at, proc: p, stage: 2, msg: msg})
}

// catalog writes the fixture's entries of catalog tables, as a worker of
// their database.
func (g *peerGen) catalog(s *peerServer) {
	if len(s.catalog) == 0 {
		return
	}
	p := g.newProc()
	g.advance(time.Second, 3*time.Second)
	for _, e := range s.catalog {
		name, _ := peerTableName(e.msg)
		if strings.Contains(e.msg, "vacuum ") {
			g.vacuum(s, p, e, name, "", 0)
		} else {
			g.analyze(p, e, name)
		}
	}
}

// worker writes the entries of an autovacuum worker: of one to four tables
// of a database, each vacuumed, analyzed or both, and maybe its TOAST table
// vacuumed.
func (g *peerGen) worker(s *peerServer) {
	db := g.dbs[g.rng.IntN(len(g.dbs))]
	tables := g.tables[db]
	if len(tables) == 0 {
		return
	}
	p := g.newProc()
	g.advance(500*time.Millisecond, 20*time.Second)
	for range g.between(1, 4) {
		tb := tables[g.rng.IntN(len(tables))]
		name := tb.db + "." + tb.schema + "." + tb.name
		vacuum, analyze := true, g.chance(0.4)
		if analyze && g.chance(0.3) {
			vacuum = false
		}
		if vacuum {
			g.vacuum(s, p, s.main[g.rng.IntN(len(s.main))], name, tb.name, 0)
		}
		if analyze {
			g.analyze(p, s.analyze[g.rng.IntN(len(s.analyze))], name)
		}
		if g.chance(0.3) {
			g.vacuum(s, p, s.toast[g.rng.IntN(len(s.toast))], fmt.Sprintf("%s.pg_toast.pg_toast_%d", tb.db, tb.toastOID), "", tb.toastOID)
		}
	}
}

// peerVac holds the numbers of one autovacuum entry.
type peerVac struct {
	removed, remain, scanned, eager  int64 // pages
	pins, skippedFrozen              int64 // up to 14
	tuples, tuplesRemain, dead, xmin int64
	cutoff, cutoffAge                int64
	frozenXID, frozenAhead           int64
	mxid, mxidAhead                  int64
	frozenPages, frozenTuples        int64
	visible, allFrozen, wereVisible  int64
	deadPages, deadItems             int64
}

// vacuum writes an autovacuum entry of table name like e, with other
// numbers; short is the table's name without schema (for its indexes'),
// toastOID that of a TOAST table.
func (g *peerGen) vacuum(s *peerServer, p *peerProc, e peerEntry, name, short string, toastOID int) {
	g.advance(50*time.Millisecond, 900*time.Millisecond)
	_, rest := peerTableName(e.msg)
	scans, err := strconv.Atoi(strings.TrimPrefix(rest, ": index scans: "))
	if err != nil {
		g.err = fmt.Errorf("pg%d: %q: expected index scans: N after the table name", s.version, e.msg)
		return
	}
	needed := scans > 0
	for _, l := range e.body {
		needed = needed || strings.HasPrefix(l, "index scan needed")
	}
	verb := "automatic vacuum"
	aggressive := false
	switch x := g.rng.Float64(); {
	case x < 0.01:
		verb, aggressive = "automatic aggressive vacuum to prevent wraparound", true
	case x < 0.06:
		verb, aggressive = "automatic aggressive vacuum", true
	}
	if needed && g.chance(0.1) {
		scans = 2
	}
	var v peerVac
	total := g.spread(1, 200_000)
	if g.chance(0.15) && total > 1 {
		v.removed = g.between(max(1, total/16), total-1)
	}
	v.remain = total - v.removed
	v.scanned = total
	if !aggressive && g.chance(0.7) {
		v.scanned = g.between(max(1, v.removed), total)
	}
	if g.chance(0.3) {
		v.eager = g.between(0, v.scanned/20)
	}
	if !aggressive {
		v.skippedFrozen = total - v.scanned
	}
	if g.chance(0.05) {
		v.pins = g.between(1, 3)
	}
	if g.chance(0.85) || needed {
		v.tuples = g.spread(1, 40*total)
	}
	v.tuplesRemain = v.remain * g.between(20, 120)
	if g.chance(0.1) {
		v.dead = g.between(1, 500)
	}
	g.xid += g.between(1, 400)
	v.cutoff, v.cutoffAge = g.xid, g.between(0, 50)
	v.xmin = v.cutoff
	v.frozenXID, v.frozenAhead = v.cutoff-g.between(0, 200), g.between(1, 100_000)
	v.mxid, v.mxidAhead = g.between(1, 1000), g.between(1, 100)
	if g.chance(0.5) {
		v.frozenPages = g.between(0, v.scanned)
		v.frozenTuples = v.frozenPages * g.between(0, 60)
	}
	v.visible = g.between(0, v.scanned)
	v.allFrozen = g.between(0, v.visible)
	v.wereVisible = g.between(0, v.allFrozen)
	if needed {
		v.deadItems = v.tuples - g.between(0, v.tuples/4)
		v.deadPages = min(v.scanned, v.deadItems, g.between(1, v.deadItems))
	}

	body := make([]string, 0, len(e.body))
	for _, l := range e.body {
		body = append(body, g.vacuumLine(l, &v, short, toastOID))
		if g.err != nil {
			g.err = fmt.Errorf("pg%d: %v", s.version, g.err)
			return
		}
	}
	g.line(g.now, p, 2, "LOG", fmt.Sprintf("%s of table \"%s\": index scans: %d", verb, name, scans), body)
	t := g.truth[name]
	t.Vacuums++
	t.TuplesRemoved += v.tuples
	t.PagesRemoved += v.removed
	g.truth[name] = t
}

func peerPct(part, whole int64) float64 {
	if whole == 0 {
		return 100
	}
	return 100 * float64(part) / float64(whole)
}

// vacuumLine rewrites a continuation line of an autovacuum entry with the
// numbers of v. A line it does not know stays as it is; a known line with
// another count of numbers is an error.
func (g *peerGen) vacuumLine(l string, v *peerVac, short string, toastOID int) string {
	key, _, _ := strings.Cut(l, ":")
	total := v.removed + v.remain
	f := func(x int64) float64 { return float64(x) }
	switch {
	case key == "pages" && strings.Contains(l, "skipped due to pins"): // up to 14
		return g.set(l, f(v.removed), f(v.remain), f(v.pins), f(v.skippedFrozen))
	case key == "pages" && strings.Contains(l, "eagerly scanned"): // 18
		return g.set(l, f(v.removed), f(v.remain), f(v.scanned), peerPct(v.scanned, total), f(v.eager))
	case key == "pages":
		return g.set(l, f(v.removed), f(v.remain), f(v.scanned), peerPct(v.scanned, total))
	case key == "tuples" && strings.Contains(l, "oldest xmin"): // up to 14
		return g.set(l, f(v.tuples), f(v.tuplesRemain), f(v.dead), f(v.xmin))
	case key == "tuples":
		return g.set(l, f(v.tuples), f(v.tuplesRemain), f(v.dead))
	case key == "removable cutoff":
		return g.set(l, f(v.cutoff), f(v.cutoffAge))
	case key == "new relfrozenxid":
		return g.set(l, f(v.frozenXID), f(v.frozenAhead))
	case key == "new relminmxid":
		return g.set(l, f(v.mxid), f(v.mxidAhead))
	case key == "frozen":
		return g.set(l, f(v.frozenPages), peerPct(v.frozenPages, total), f(v.frozenTuples))
	case key == "visibility map":
		return g.set(l, f(v.visible), f(v.allFrozen), f(v.wereVisible))
	case key == "index scan needed" || key == "index scan bypassed":
		return g.set(l, f(v.deadPages), peerPct(v.deadPages, total), f(v.deadItems))
	case strings.HasPrefix(key, `index "`):
		idx, rest := peerTableName(l)
		if toastOID > 0 {
			idx = fmt.Sprintf("pg_toast_%d_index", toastOID)
		} else if short != "" {
			idx = short + strings.TrimPrefix(idx, "t")
		}
		pages := g.spread(2, max(2, total/2))
		deleted := g.between(0, pages/50)
		return `index "` + idx + `"` + g.set(rest, f(pages), f(g.between(0, deleted)), f(deleted), f(g.between(0, deleted)))
	}
	return g.usageLine(l, v.scanned)
}

// usageLine rewrites the lines of resource usage of an autovacuum or
// autoanalyze entry.
func (g *peerGen) usageLine(l string, pages int64) string {
	f := func(x int64) float64 { return float64(x) }
	key, _, _ := strings.Cut(l, ":")
	switch key {
	case "avg read rate":
		return g.set(l, g.rng.Float64()*80, g.rng.Float64()*40)
	case "buffer usage":
		return g.set(l, f(pages*2+g.between(0, 500)), f(g.between(0, pages)), f(g.between(0, pages/2+3)))
	case "WAL usage":
		records := g.between(0, pages*2+10)
		fpi := g.between(0, records/4)
		bytes := records*g.between(60, 200) + fpi*8192
		if strings.Count(l, ",") == 3 { // 18: "N buffers full"
			return g.set(l, f(records), f(fpi), f(bytes), f(g.between(0, 2)))
		}
		return g.set(l, f(records), f(fpi), f(bytes))
	case "system usage":
		user, sys := float64(g.spread(1, 5000))/100, float64(g.between(0, 200))/100
		return g.set(l, user, sys, user+sys+float64(g.spread(1, 20000))/100)
	}
	return l
}

// analyze writes an autoanalyze entry of table name like e, with other
// numbers.
func (g *peerGen) analyze(p *peerProc, e peerEntry, name string) {
	g.advance(50*time.Millisecond, 900*time.Millisecond)
	_, rest := peerTableName(e.msg)
	if rest != "" { // 13: system usage on the same line
		rest = " " + g.usageLine(strings.TrimPrefix(rest, " "), 0)
	}
	pages := g.spread(1, 30_000)
	body := make([]string, 0, len(e.body))
	for _, l := range e.body {
		body = append(body, g.usageLine(l, pages))
	}
	g.line(g.now, p, 2, "LOG", `automatic analyze of table "`+name+`"`+rest, body)
}

// set replaces the numbers of s, in order, with vals, each written with as
// many decimals as the number it replaces.
func (g *peerGen) set(s string, vals ...float64) string {
	var b []byte
	k, last := 0, 0
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		decimals := 0
		if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
			d := j + 1
			for d < len(s) && s[d] >= '0' && s[d] <= '9' {
				d++
			}
			decimals, j = d-j-1, d
		}
		if k == len(vals) {
			k++
			break
		}
		b = append(b, s[last:i]...)
		b = strconv.AppendFloat(b, vals[k], 'f', decimals, 64)
		k++
		i, last = j, j
	}
	if k != len(vals) {
		if g.err == nil {
			g.err = fmt.Errorf("%q: expected %d numbers", s, len(vals))
		}
		return s
	}
	return string(append(b, s[last:]...))
}

// TestAutovacuumPeerGenerator checks the generator without pgBadger: our
// sums equal the generator's, without warnings, for both prefixes.
func TestAutovacuumPeerGenerator(t *testing.T) {
	for _, prefix := range []string{peerPrefixDebian, peerPrefixBadger} {
		log := filepath.Join(t.TempDir(), "postgresql.log")
		truth := peerWriteLog(t, log, peerConfig{Versions: peerVersions, Prefix: prefix, Bytes: 600_000, Tables: 60, Seed: 7})
		peerCheck(t, truth, peerOurs(t, log), nil)
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"checkpoint starting: time", "connection received: ", "disconnection: session time: ",
			"automatic aggressive vacuum of table", "database system is shut down", "starting PostgreSQL 18."} {
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("prefix '%s': no %q in the log", prefix, want)
			}
		}
	}
}
