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
// equal what the generator wrote. The generator is in the files beside
// this one: autovacuum_peerlog_test.go (the log and the fixtures it is
// made from), autovacuum_peergen_test.go (its lines and processes) and
// autovacuum_peerentry_test.go (its autovacuum entries).
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
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
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
		if !r.Automatic || !r.TuplesRemoved.Valid || !r.PagesRemoved.Valid {
			t.Errorf("line %d: %s: automatic %v, tuples removed %v, pages removed %v", r.Line, relName(&r), r.Automatic, r.TuplesRemoved, r.PagesRemoved)
			continue
		}
		k := r.Database + "." + r.Schema + "." + r.Table
		s := out[k]
		s.Vacuums++
		s.TuplesRemoved += r.TuplesRemoved.V
		s.PagesRemoved += r.PagesRemoved.V
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
