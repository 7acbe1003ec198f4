package vacuum

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// TestAutovacuumFixtures compares each server log's records with its
// golden file. The logs come from real servers with
// log_autovacuum_min_duration = 0 and various log_line_prefix settings:
// every record is automatic, has its prefix's time and process, and no
// line is a warning.
func TestAutovacuumFixtures(t *testing.T) {
	for _, f := range golden.Files(t, "autovacuum", "*.log") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			recs, warns, err := Autovacuum(in, f)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, f, goldenRecords{recs, warns})
			checkRecords(t, recs, warns)
			for _, w := range warns {
				t.Errorf("warning: %s", w)
			}
			vacuums := 0
			for _, r := range recs {
				if !r.Automatic || r.LogTime == "" || r.PID == "" || r.Database == "" || r.Schema == "" {
					t.Errorf("line %d: automatic %v, log time %q, pid %q, database %q, schema %q", r.Line, r.Automatic, r.LogTime, r.PID, r.Database, r.Schema)
				}
				if r.Operation == "vacuum" {
					vacuums++
					if !r.IndexScans.Valid || !r.PagesRemain.Valid || !r.TuplesRemoved.Valid || !r.ElapsedS.Valid {
						t.Errorf("line %d: an autovacuum record without index scans, pages, tuples or times", r.Line)
					}
				}
			}
			if vacuums == 0 {
				t.Errorf("no autovacuum records")
			}
		})
	}
}

func TestAutovacuumErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"binary", "\x01\x00\n2024-05-01 12:00:00.000 UTC [1] LOG:  starting\n", `x.log:1: binary data (a NUL byte); expected text`},
		{"binary after a line", "2024-05-01 12:00:00.000 UTC [1] LOG:  starting\n" + strings.Repeat("\x00\x01\n", 65), `x.log:2: expected a PostgreSQL server log (stderr: a line prefix, then "LOG:  " and the message; or csvlog, jsonlog, syslog, journald), found "\x01"`},
		{"explain", explainPsql, `x.log:1: expected a PostgreSQL server log (stderr: a line prefix, then "LOG:  " and the message; or csvlog, jsonlog, syslog, journald), found "EXPLAIN SELECT * FROM t WHERE id < 10"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Autovacuum(strings.NewReader(tc.in), "x.log")
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("AutovacuumLog() = %d records, %v, %v; want a *SyntaxError", len(recs), warns, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

// TestAutovacuumNoEntries: a server log without autovacuum entries is
// no records and no error.
func TestAutovacuumNoEntries(t *testing.T) {
	in := "2026-11-29 19:44:10.690 UTC [30629] LOG:  starting PostgreSQL 13.23 on x86_64-pc-linux-gnu, compiled by gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0, 64-bit\n" +
		"2026-11-29 19:44:10.938 UTC [30629] LOG:  database system is ready to accept connections\n"
	recs, warns, err := Autovacuum(strings.NewReader(in), "x.log")
	if err != nil || len(warns) > 0 || recs == nil || len(recs) != 0 {
		t.Errorf("AutovacuumLog() = %v, %v, %v; want no records, no error", recs, warns, err)
	}
}

func TestAutovacuumPrefix(t *testing.T) {
	for _, tc := range []struct{ prefix, ts, pid string }{
		{"2026-11-29 19:38:55.048 UTC [21292] ", "2026-11-29 19:38:55.048 UTC", "21292"},
		{"2026-11-29 19:38:55 UTC [21290]: [1-1] user=,db=,app=,client= ", "2026-11-29 19:38:55 UTC", "21290"},
		{"2026-11-29 19:38:55.048 UTC 21292 6b0c7f4e.532c 111/23 0 ", "2026-11-29 19:38:55.048 UTC", "21292"},
		{"2026-11-29 19:38:55.048 UTC [21292] postgres@bench ", "2026-11-29 19:38:55.048 UTC", "21292"},
		{"2024-05-01 12:00:00.123 +03 [7] ", "2024-05-01 12:00:00.123 +03", "7"},
		{"2024-05-01 12:00:00 CEST 77: ", "2024-05-01 12:00:00 CEST", "77"},
		{"May  1 12:00:00 db1 postgres[4242]: [3-1] ", "", "4242"},
		{"[4242] ", "", "4242"},
		{"", "", ""},
		{"app ", "", ""},
	} {
		ts, pid := logPrefix(tc.prefix)
		if ts != tc.ts || pid != tc.pid {
			t.Errorf("avPrefix(%q) = %q, %q; want %q, %q", tc.prefix, ts, pid, tc.ts, tc.pid)
		}
	}
}

// TestAutovacuumCases reads real server logs (trimmed) of what the
// fixtures do not hold.
func TestAutovacuumCases(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		check func(t *testing.T, recs []Record, warns []parse.Warning)
	}{
		{"13 wraparound, analyze on one line", pg13WraparoundLog, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			got := logRecords(recs)
			want := []string{"vacuum postgres.public.w wraparound", "vacuum postgres.pg_toast.pg_toast_192945 wraparound", "analyze postgres.public.a"}
			if !slices.Equal(got, want) {
				t.Errorf("records %q, want %q", got, want)
			}
			r := recs[0]
			checkField(t, "oldest_xmin", r.OldestXmin, wantI(101585))
			checkField(t, "pages_skipped_frozen", r.PagesSkippedFrozen, wantI(0))
			checkField(t, "pages_scanned", r.PagesScanned, nil)
			checkField(t, "wal_bytes", r.WALBytes, wantI(9064))
			checkField(t, "analyze elapsed_s", recs[2].ElapsedS, wantF(0.04))
			if r.LogTime != "2026-11-29 19:47:59.916 UTC" || r.PID != "6963" || r.Line != 2 {
				t.Errorf("log time %q, pid %q, line %d", r.LogTime, r.PID, r.Line)
			}
		}},
		{"17 cancelled, aggressive, lock not available", pg17CancelLog, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			got := logRecords(recs)
			want := []string{"vacuum postgres.public.w wraparound", "vacuum template1.pg_catalog.pg_class aggressive", "analyze template1.pg_catalog.pg_class"}
			if !slices.Equal(got, want) {
				t.Errorf("records %q, want %q", got, want)
			}
		}},
		{"16 verbose errors, VACUUM VERBOSE logged at INFO", pg16VerboseLog, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			got := logRecords(recs)
			want := []string{"vacuum postgres.public.w wraparound", "manual vacuum postgres.public.a",
				"vacuum postgres.public.w wraparound", "manual vacuum postgres.pg_toast.pg_toast_192943 toast_of=public.a",
				"analyze postgres.public.a"}
			if !slices.Equal(got, want) {
				t.Errorf("records %q, want %q", got, want)
			}
			checkField(t, "toast dead_item_ids", recs[3].DeadItemIDs, wantI(1692))
			if recs[3].Line != 41 {
				t.Errorf("TOAST record at line %d, want 41 (its vacuuming message)", recs[3].Line)
			}
		}},
		{"broken entries", pg15BrokenLog, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns,
				`x.log:1: expected automatic vacuum of table "db.schema.table": index scans: N: "2026-11-29 19:36:44.751 UTC [18105] LOG:  automatic vacuum of table \"template1.pg_catalog.pg_class\": index scans: many"`,
				`x.log:4: unrecognized line in autovacuum entry: "tuples: 0 removed, 410 remain, 0 are dead"`,
				`x.log:2: entry without its "system usage" line, which every version prints: cut short (the end of the log, or lines lost)?: "template1.pg_catalog.pg_class"`,
				`x.log:6: a line without a severity inside an entry (another program's output, or a line cut short): left out, and the entry read on: "pages: 0 removed, 14 remain, 14 scanned (100.00% of total)"`,
				`x.log:7: a line without a severity inside an entry (another program's output, or a line cut short): left out, and the entry read on: "tuples: 0 removed, 410 remain, 0 are dead but not yet removable"`,
				`x.log:5: entry without any summary line (in a server log they follow it, each starting with a tab): "template1.pg_catalog.pg_class"`,
				`x.log:8: expected automatic vacuum of table "db.schema.table": index scans: N: "2026-11-29 19:36:44.761 UTC [18105] LOG:  automatic vacuuming of table \"template1.pg_catalog.pg_class\""`,
			)
			if len(recs) != 2 {
				t.Errorf("%d records, want 2", len(recs))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Autovacuum(strings.NewReader(tc.in), "x.log")
			if err != nil {
				t.Fatal(err)
			}
			checkRecords(t, recs, warns)
			tc.check(t, recs, warns)
		})
	}
}

// logRecords names each record: operation, table and flags.
func logRecords(recs []Record) []string {
	var out []string
	for i := range recs {
		r := &recs[i]
		s := r.Operation + " " + relName(r)
		if !r.Automatic {
			s = "manual " + s
		}
		if r.Aggressive {
			s += " aggressive"
		}
		if r.ToPreventWraparound {
			s += " wraparound"
		}
		if r.ToastOf != "" {
			s += " toast_of=" + r.ToastOf
		}
		out = append(out, s)
	}
	return out
}

const pg13WraparoundLog = `2026-11-29 19:47:52.104 UTC [6921] LOG:  checkpoint starting: time
2026-11-29 19:47:59.916 UTC [6963] LOG:  automatic vacuum to prevent wraparound of table "postgres.public.w": index scans: 0
	pages: 0 removed, 9 remain, 0 skipped due to pins, 0 skipped frozen
	tuples: 0 removed, 1000 remain, 0 are dead but not yet removable, oldest xmin: 101585
	buffer usage: 65 hits, 2 misses, 4 dirtied
	avg read rate: 0.505 MB/s, avg write rate: 1.011 MB/s
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.03 s
	WAL usage: 10 records, 1 full page images, 9064 bytes
2026-11-29 19:47:59.933 UTC [6963] LOG:  automatic vacuum to prevent wraparound of table "postgres.pg_toast.pg_toast_192945": index scans: 0
	pages: 0 removed, 0 remain, 0 skipped due to pins, 0 skipped frozen
	tuples: 0 removed, 0 remain, 0 are dead but not yet removable, oldest xmin: 101585
	buffer usage: 25 hits, 1 misses, 0 dirtied
	avg read rate: 26.940 MB/s, avg write rate: 0.000 MB/s
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
	WAL usage: 0 records, 0 full page images, 0 bytes
2026-11-29 19:48:01.204 UTC [7001] ERROR:  relation "nope" does not exist at character 15
2026-11-29 19:48:01.204 UTC [7001] STATEMENT:  select * from nope
	where id = 1;
2026-11-29 19:38:54.706 UTC [21280] LOG:  automatic analyze of table "postgres.public.a" system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.04 s
`

const pg17CancelLog = `2026-11-29 20:02:55.841 UTC [8251] ERROR:  canceling autovacuum task
2026-11-29 20:02:55.841 UTC [8251] CONTEXT:  while scanning block 43 of relation "public.slow"
	automatic vacuum of table "postgres.public.slow"
2026-11-29 20:02:56.394 UTC [8591] LOG:  automatic vacuum to prevent wraparound of table "postgres.public.w": index scans: 0
	pages: 0 removed, 9 remain, 9 scanned (100.00% of total)
	tuples: 0 removed, 1000 remain, 0 are dead but not yet removable
	removable cutoff: 101852, which was 1 XIDs old when operation ended
	frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
	index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
	I/O timings: read: 0.000 ms, write: 0.000 ms
	avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
	buffer usage: 58 hits, 0 misses, 0 dirtied
	WAL usage: 0 records, 0 full page images, 0 bytes
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
2026-11-29 20:02:56.394 UTC [8591] LOG:  skipping vacuum of "slow" --- lock not available
2026-11-29 19:36:48.512 UTC [18240] LOG:  automatic aggressive vacuum of table "template1.pg_catalog.pg_class": index scans: 0
	pages: 0 removed, 14 remain, 14 scanned (100.00% of total)
	tuples: 0 removed, 413 remain, 0 are dead but not yet removable
	removable cutoff: 732, which was 0 XIDs old when operation ended
	new relfrozenxid: 732, which is 10 XIDs ahead of previous value
	frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
	index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
	I/O timings: read: 0.243 ms, write: 0.000 ms
	avg read rate: 64.212 MB/s, avg write rate: 10.702 MB/s
	buffer usage: 53 hits, 6 misses, 1 dirtied
	WAL usage: 1 records, 1 full page images, 3097 bytes
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
2026-11-29 19:36:48.522 UTC [18240] LOG:  automatic analyze of table "template1.pg_catalog.pg_class"
	I/O timings: read: 0.438 ms, write: 0.027 ms
	avg read rate: 9.375 MB/s, avg write rate: 6.250 MB/s
	buffer usage: 520 hits, 6 misses, 4 dirtied
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
`

// pg16VerboseLog: log_line_prefix = ”, log_error_verbosity = verbose and
// log_min_messages = info, while a session ran VACUUM (VERBOSE) a.
const pg16VerboseLog = `LOG:  00000: automatic vacuum to prevent wraparound of table "postgres.public.w": index scans: 0
	pages: 0 removed, 9 remain, 9 scanned (100.00% of total)
	tuples: 0 removed, 1000 remain, 0 are dead but not yet removable
	removable cutoff: 101849, which was 0 XIDs old when operation ended
	frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
	index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
	I/O timings: read: 0.000 ms, write: 0.000 ms
	avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
	buffer usage: 57 hits, 0 misses, 0 dirtied
	WAL usage: 0 records, 0 full page images, 0 bytes
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
LOCATION:  heap_vacuum_rel, vacuumlazy.c:770
INFO:  00000: vacuuming "postgres.public.a"
LOCATION:  heap_vacuum_rel, vacuumlazy.c:487
INFO:  00000: finished vacuuming "postgres.public.a": index scans: 1
	pages: 0 removed, 52 remain, 52 scanned (100.00% of total)
	tuples: 352 removed, 4500 remain, 0 are dead but not yet removable
	removable cutoff: 101849, which was 0 XIDs old when operation ended
	frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
	index scan needed: 52 pages from table (100.00% of total) had 500 dead item identifiers removed
	index "a_pkey": pages: 16 in total, 0 newly deleted, 0 currently deleted, 0 reusable
	index "a_v": pages: 47 in total, 0 newly deleted, 0 currently deleted, 0 reusable
	I/O timings: read: 0.000 ms, write: 0.000 ms
	avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
	buffer usage: 295 hits, 0 misses, 0 dirtied
	WAL usage: 218 records, 0 full page images, 16506 bytes
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.06 s
LOCATION:  heap_vacuum_rel, vacuumlazy.c:770
LOG:  00000: automatic vacuum to prevent wraparound of table "postgres.public.w": index scans: 0
	pages: 0 removed, 9 remain, 9 scanned (100.00% of total)
	tuples: 0 removed, 1000 remain, 0 are dead but not yet removable
	removable cutoff: 101849, which was 0 XIDs old when operation ended
	frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
	index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
	I/O timings: read: 0.000 ms, write: 0.000 ms
	avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
	buffer usage: 57 hits, 0 misses, 0 dirtied
	WAL usage: 0 records, 0 full page images, 0 bytes
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.03 s
LOCATION:  heap_vacuum_rel, vacuumlazy.c:770
INFO:  00000: vacuuming "postgres.pg_toast.pg_toast_192943"
LOCATION:  heap_vacuum_rel, vacuumlazy.c:487
LOG:  55P03: skipping analyze of "a" --- lock not available
LOCATION:  vacuum_open_relation, vacuum.c:857
LOG:  55P03: skipping vacuum of "pg_toast_192943" --- lock not available
LOCATION:  vacuum_open_relation, vacuum.c:836
INFO:  00000: finished vacuuming "postgres.pg_toast.pg_toast_192943": index scans: 1
	pages: 0 removed, 1782 remain, 1782 scanned (100.00% of total)
	tuples: 1538 removed, 9000 remain, 0 are dead but not yet removable
	removable cutoff: 101849, which was 0 XIDs old when operation ended
	frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
	index scan needed: 769 pages from table (43.15% of total) had 1692 dead item identifiers removed
	index "pg_toast_192943_index": pages: 32 in total, 0 newly deleted, 0 currently deleted, 0 reusable
	I/O timings: read: 0.000 ms, write: 0.000 ms
	avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
	buffer usage: 4404 hits, 0 misses, 0 dirtied
	WAL usage: 2452 records, 0 full page images, 142983 bytes
	system usage: CPU: user: 0.03 s, system: 0.00 s, elapsed: 0.30 s
LOCATION:  heap_vacuum_rel, vacuumlazy.c:770
LOG:  00000: automatic analyze of table "postgres.public.a"
	I/O timings: read: 0.000 ms, write: 0.389 ms
	avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
	buffer usage: 290 hits, 0 misses, 0 dirtied
	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
LOCATION:  do_analyze_rel, analyze.c:813
LOG:  00000: received SIGHUP, reloading configuration files
LOCATION:  process_pm_reload_request, postmaster.c:2752
`

// pg15BrokenLog is a real 15 log damaged: a header that does not read, a
// line cut short, continuation lines that lost their tab, and a message
// that only looks like an entry.
const pg15BrokenLog = `2026-11-29 19:36:44.751 UTC [18105] LOG:  automatic vacuum of table "template1.pg_catalog.pg_class": index scans: many
2026-11-29 19:36:44.751 UTC [18105] LOG:  automatic aggressive vacuum of table "template1.pg_catalog.pg_class": index scans: 0
	pages: 0 removed, 14 remain, 14 scanned (100.00% of total)
	tuples: 0 removed, 410 remain, 0 are dead
2026-11-29 19:36:44.751 UTC [18105] LOG:  automatic aggressive vacuum of table "template1.pg_catalog.pg_class": index scans: 0
pages: 0 removed, 14 remain, 14 scanned (100.00% of total)
tuples: 0 removed, 410 remain, 0 are dead but not yet removable
2026-11-29 19:36:44.761 UTC [18105] LOG:  automatic vacuuming of table "template1.pg_catalog.pg_class"
`

// TestAutovacuumCrashNULs: a real log cut by a crash inside an entry,
// where the file system left a block of NULs and the server went on
// logging right after them, on the same line: the entry cut short is
// warned about, the NULs are left out with a warning naming their line,
// and every entry after them is read as in the whole log.
func TestAutovacuumCrashNULs(t *testing.T) {
	f := filepath.Join("testdata", "autovacuum", "pg17-autovacuum.log")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := Autovacuum(strings.NewReader(string(b)), f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	// Line 25's entry (a TOAST table's vacuum) is cut inside its third
	// line, 27; the server's next line, 36, follows the NULs.
	cut := strings.Join(lines[:26], "") + lines[26][:20] + strings.Repeat("\x00", 8192) + strings.Join(lines[35:], "")
	recs, warns, err := Autovacuum(strings.NewReader(cut), f)
	if err != nil {
		t.Fatal(err)
	}
	key := func(r Record) string { return r.LogTime + " " + r.PID + " " + string(r.Operation) + " " + r.Table }
	var want []string
	for _, r := range whole {
		if r.Line < 25 || r.Line >= 36 {
			want = append(want, key(r))
		}
	}
	var got []string
	for _, r := range recs {
		if r.Line != 25 {
			got = append(got, key(r))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	nul := slices.IndexFunc(warns, func(w parse.Warning) bool {
		return strings.HasPrefix(w.Msg, "8192 bytes of binary data") && strings.Contains(w.Msg, "with the 20 bytes of text before them, a line cut short")
	})
	if nul < 0 || warns[nul].Line != 27 || !strings.HasPrefix(warns[nul].Text, "2026-11-29 19:56:00 UTC [26333]") {
		t.Errorf("warnings %v; want line 27's 8,192 bytes of NULs left out, and the 20 bytes of text before them", warns)
	}
}

// TestAutovacuumEmpty: an empty log (or one of blank lines) has no
// record and says so in a warning; it is not an error: a log just
// rotated is empty.
func TestAutovacuumEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n"} {
		recs, warns, err := Autovacuum(strings.NewReader(in), "x.log")
		if err != nil || len(recs) != 0 || len(warns) != 1 || warns[0].Msg != emptyLog {
			t.Errorf("%q: %d records, warnings %v, %v; want none, and the warning %q", in, len(recs), warns, err, emptyLog)
		}
	}
}

// TestAutovacuumUsageNotUnderstood: an entry whose "system usage" line
// is there but not understood (elapsed: NaN s) is warned about as such,
// naming the line, not as an entry cut short.
func TestAutovacuumUsageNotUnderstood(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "autovacuum", "pg17-autovacuum.log"))
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Replace(string(b), "elapsed: 0.09 s\n", "elapsed: NaN s\n", 1)
	line := strings.Count(string(b)[:strings.Index(string(b), "elapsed: 0.09 s\n")], "\n") + 1
	_, warns, err := Autovacuum(strings.NewReader(in), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("entry whose \"system usage\" line, line %d, is not understood: its figures are left out", line)
	if !slices.ContainsFunc(warns, func(w parse.Warning) bool { return w.Msg == want }) ||
		slices.ContainsFunc(warns, func(w parse.Warning) bool { return strings.Contains(w.Msg, "cut short") }) {
		t.Errorf("warnings %v; want %q and no entry cut short", warns, want)
	}
}

// TestAutovacuumStrayLine: a line without a severity or a tab inside an
// entry of a stderr log (another program's, or what a crash's NULs left
// of a line) is warned about, and the entry's lines after it are read:
// its WAL and system usage figures were lost without a word.
func TestAutovacuumStrayLine(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "logformats", "pg17-logformats.log"))
	if err != nil {
		t.Fatal(err)
	}
	whole, _, err := Autovacuum(strings.NewReader(string(b)), "x.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	in := strings.Join(lines[:14], "") + "its, 0 misses, 3 dirtied\n" + strings.Join(lines[14:], "")
	got, warns, err := Autovacuum(strings.NewReader(in), "x.log")
	if err != nil || len(got) != len(whole) {
		t.Fatalf("%d records, %v; want %d", len(got), err, len(whole))
	}
	for i := range got {
		if got[i].WALBytes != whole[i].WALBytes || got[i].ElapsedS != whole[i].ElapsedS {
			t.Errorf("record %d: WAL bytes %v, elapsed %v; want %v, %v", i, got[i].WALBytes, got[i].ElapsedS, whole[i].WALBytes, whole[i].ElapsedS)
		}
	}
	if len(warns) != 1 || warns[0].Line != 15 || !strings.Contains(warns[0].Msg, "a line without a severity inside an entry") {
		t.Errorf("warnings %v; want line 15's", warns)
	}
}
