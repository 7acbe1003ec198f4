package vacuum

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/internal/psqlloc"
)

// TestMissesAndReads: 17 counts buffer misses, 18 buffer reads; the
// two land in different fields and neither is taken for the other.
func TestMissesAndReads(t *testing.T) {
	for _, tc := range []struct {
		name          string
		in            string
		misses, reads *int64
	}{
		{"17", pg17Finished, wantI(1502), nil},
		{"18", pg18Finished, nil, wantI(1505)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Parse(strings.NewReader(tc.in), tc.name)
			if err != nil || len(warns) > 0 || len(recs) != 1 {
				t.Fatalf("Vacuum() = %d records, %v, %v", len(recs), warns, err)
			}
			r := recs[0]
			checkField(t, "buffer_misses", r.BufferMisses, tc.misses)
			checkField(t, "buffer_reads", r.BufferReads, tc.reads)
			if !r.BufferHits.Valid || !r.BufferDirtied.Valid {
				t.Errorf("hits %v, dirtied %v", show(r.BufferHits.Ptr()), show(r.BufferDirtied.Ptr()))
			}
		})
	}
	for _, f := range golden.Files(t, "verbose", "*.psql.txt") {
		recs, _ := readFixture(t, f)
		base := filepath.Base(f)
		v18 := strings.HasPrefix(base, "pg18-")
		old := strings.HasPrefix(base, "pg13-") || strings.HasPrefix(base, "pg14-") // no buffer usage in a manual VACUUM
		for _, r := range recs {
			if r.Operation != "vacuum" {
				continue
			}
			if old && (r.BufferReads.Valid || r.BufferMisses.Valid) || !old && (v18 != (r.BufferReads.Valid) || v18 == (r.BufferMisses.Valid)) {
				t.Errorf("%s: %s: misses %v, reads %v", f, r.Table, show(r.BufferMisses.Ptr()), show(r.BufferReads.Ptr()))
			}
		}
	}
}

func wantI(v int64) *int64     { return &v }
func wantF(v float64) *float64 { return &v }

func show[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// pg17Finished is one table's VACUUM (VERBOSE) by PostgreSQL 17.
const pg17Finished = `INFO:  vacuuming "postgres.public.t"
INFO:  finished vacuuming "postgres.public.t": index scans: 1
pages: 0 removed, 540 remain, 540 scanned (100.00% of total)
tuples: 7142 removed, 42858 remain, 0 are dead but not yet removable
removable cutoff: 751, which was 0 XIDs old when operation ended
new relfrozenxid: 751, which is 4 XIDs ahead of previous value
frozen: 540 pages from table (100.00% of total) had 42858 tuples frozen
index scan needed: 540 pages from table (100.00% of total) had 17142 dead item identifiers removed
index "t_pkey": pages: 275 in total, 0 newly deleted, 0 currently deleted, 0 reusable
index "t_k": pages: 139 in total, 0 newly deleted, 0 currently deleted, 0 reusable
avg read rate: 23.183 MB/s, avg write rate: 23.075 MB/s
buffer usage: 619 hits, 1502 misses, 1495 dirtied
WAL usage: 2575 records, 954 full page images, 4829056 bytes
system usage: CPU: user: 0.03 s, system: 0.03 s, elapsed: 0.50 s
`

// pg18Finished is the same by PostgreSQL 18, with track_io_timing.
const pg18Finished = `INFO:  vacuuming "postgres.public.t"
INFO:  launched 1 parallel vacuum worker for index vacuuming (planned: 1)
INFO:  finished vacuuming "postgres.public.t": index scans: 1
pages: 0 removed, 540 remain, 540 scanned (100.00% of total), 0 eagerly scanned
tuples: 7142 removed, 42858 remain, 0 are dead but not yet removable
removable cutoff: 823, which was 0 XIDs old when operation ended
new relfrozenxid: 823, which is 4 XIDs ahead of previous value
frozen: 540 pages from table (100.00% of total) had 42858 tuples frozen
visibility map: 540 pages set all-visible, 540 pages set all-frozen (0 were all-visible)
index scan needed: 540 pages from table (100.00% of total) had 17142 dead item identifiers removed
index "t_pkey": pages: 275 in total, 0 newly deleted, 0 currently deleted, 0 reusable
index "t_k": pages: 139 in total, 0 newly deleted, 0 currently deleted, 0 reusable
I/O timings: read: 117.458 ms, write: 6.532 ms
avg read rate: 33.058 MB/s, avg write rate: 32.838 MB/s
buffer usage: 622 hits, 1505 reads, 1495 dirtied
WAL usage: 2576 records, 955 full page images, 5497665 bytes, 0 buffers full
system usage: CPU: user: 0.03 s, system: 0.04 s, elapsed: 0.35 s
`

// Test18Fields checks every field of one 18 record.
func Test18Fields(t *testing.T) {
	recs, warns, err := Parse(strings.NewReader(pg18Finished), "in")
	if err != nil || len(warns) > 0 || len(recs) != 1 {
		t.Fatalf("Vacuum() = %d records, %v, %v", len(recs), warns, err)
	}
	i, f := parse.Some[int64], parse.Some[float64]
	z := i(0)
	want := Record{Line: 1, Operation: "vacuum", Database: "postgres", Schema: "public", Table: "t",
		IndexScans: i(1), PagesRemoved: z, PagesRemain: i(540), PagesScanned: i(540), PagesScannedPct: f(100),
		PagesEagerlyScanned: z, TuplesRemoved: i(7142), TuplesRemain: i(42858), TuplesDeadNotYetRemovable: z,
		RemovableCutoffXID: i(823), RemovableCutoffAgeXIDs: z, NewRelfrozenXID: i(823), RelfrozenXIDAheadXIDs: i(4),
		PagesFrozen: i(540), PagesFrozenPct: f(100), TuplesFrozen: i(42858),
		VMPagesSetAllVisible: i(540), VMPagesSetAllFrozen: i(540), VMPagesWereAllVisible: z,
		IndexScan: "needed", DeadItemPages: i(540), DeadItemPagesPct: f(100), DeadItemIDs: i(17142),
		Indexes: []Index{
			{Name: "t_pkey", PagesTotal: i(275), PagesNewlyDeleted: z, PagesCurrentlyDeleted: z, PagesReusable: z},
			{Name: "t_k", PagesTotal: i(139), PagesNewlyDeleted: z, PagesCurrentlyDeleted: z, PagesReusable: z},
		},
		IOReadMs: f(117.458), IOWriteMs: f(6.532), AvgReadMBs: f(33.058), AvgWriteMBs: f(32.838),
		BufferHits: i(622), BufferReads: i(1505), BufferDirtied: i(1495),
		WALRecords: i(2576), WALFullPageImages: i(955), WALBytes: i(5497665), WALBuffersFull: z,
		CPUUserS: f(0.03), CPUSystemS: f(0.04), ElapsedS: f(0.35),
	}
	if !reflect.DeepEqual(recs[0], want) {
		g, _ := json.MarshalIndent(recs[0], "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("record:\n%s", golden.FirstDiff(string(g), string(w)))
	}
}

// TestCases runs real outputs (PostgreSQL 13 to 18, trimmed) of the
// cases the fixtures do not hold.
func TestCases(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		check func(t *testing.T, recs []Record, warns []parse.Warning)
	}{
		{"13 three passes", pg13ThreePasses, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "m")
			checkField(t, "index_scans", r.IndexScans, nil)
			checkField(t, "dead_item_ids", r.DeadItemIDs, wantI(480000))
			checkField(t, "dead_item_pages", r.DeadItemPages, wantI(2655))
			checkField(t, "tuples_nonremovable", r.TuplesNonremovable, wantI(120000))
			checkField(t, "tuples_remain", r.TuplesRemain, nil)
			checkField(t, "pages_removed", r.PagesRemoved, nil)
			if len(r.Indexes) != 2 {
				t.Fatalf("indexes %+v", r.Indexes)
			}
			ix := r.Indexes[1]
			checkField(t, "m_k scans", ix.Scans, wantI(3))
			checkField(t, "m_k tuples_to_remove", ix.TuplesToRemove, wantI(480000))
			checkField(t, "m_k tuples_removed", ix.TuplesRemoved, wantI(480000))
			checkField(t, "m_k pages_currently_deleted", ix.PagesCurrentlyDeleted, wantI(396))
			checkField(t, "m_k pages_newly_deleted", ix.PagesNewlyDeleted, nil)
		}},
		{"14 truncated", pg14Truncated, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "tr")
			checkField(t, "pages_removed", r.PagesRemoved, wantI(258))
			checkField(t, "pages_remain", r.PagesRemain, wantI(87))
			checkField(t, "pages_scanned", r.PagesScanned, wantI(345))
			checkField(t, "dead_item_ids", r.DeadItemIDs, wantI(15000))
			checkField(t, "tr_pkey newly deleted", r.Indexes[0].PagesNewlyDeleted, wantI(40))
			if len(recs) != 2 || recs[1].ToastOf != "public.tr" {
				t.Errorf("TOAST record %+v", recs[1:])
			}
		}},
		{"15 truncated", pg15Truncated, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "tr")
			checkField(t, "pages_removed", r.PagesRemoved, wantI(258))
			checkField(t, "pages_remain", r.PagesRemain, wantI(87))
			checkField(t, "pages_scanned", r.PagesScanned, wantI(345))
		}},
		{"14 bypassed", pg14Bypassed, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "bp")
			if r.IndexScan != "bypassed" {
				t.Errorf("index_scan %q", r.IndexScan)
			}
			checkField(t, "dead_item_ids", r.DeadItemIDs, wantI(3))
			checkField(t, "pages_skipped_frozen", r.PagesSkippedFrozen, wantI(861))
		}},
		{"15 bypassed", pg15Bypassed, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "bp")
			if r.IndexScan != "bypassed" || r.Failsafe {
				t.Errorf("index_scan %q, failsafe %v", r.IndexScan, r.Failsafe)
			}
			checkField(t, "dead_item_pages_pct", r.DeadItemPagesPct, wantF(0.12))
			checkField(t, "pages_scanned_pct", r.PagesScannedPct, wantF(0.23))
		}},
		{"13 no index, then an error", pg13NoIndex, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:20: server ERROR: "ERROR:  relation \"does_not_exist\" does not exist"`)
			r := recordOf(t, recs, "noidx")
			checkField(t, "dead_item_ids", r.DeadItemIDs, wantI(1666))
			checkField(t, "unused_item_ids", r.UnusedItemIDs, wantI(0))
			checkField(t, "pages_empty", r.PagesEmpty, wantI(0))
			if len(recs) != 2 || recs[1].ToastOf != "public.noidx" {
				t.Errorf("TOAST record %+v", recs[1:])
			}
		}},
		{"13 inheritance tree", pg13Inheritance, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			var ops []string
			for _, r := range recs {
				ops = append(ops, r.Operation+" "+r.Table+" "+strings.Repeat("*", len(r.Analyze)))
			}
			want := []string{"analyze parent **", "vacuum child1 ", "analyze child1 *"}
			if !slices.Equal(ops, want) {
				t.Errorf("records %q, want %q", ops, want)
			}
			if !recs[0].InheritanceTree || recs[0].Analyze[1] != (AnalyzeSample{"child2", 5, 5, 1000, 0, 1000, 1000}) {
				t.Errorf("analyze record %+v", recs[0])
			}
		}},
		{"18 analyze", pg18Analyze, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			if len(recs) != 1 || recs[0].Operation != "analyze" || recs[0].Database != "postgres" || len(recs[0].Analyze) != 1 {
				t.Fatalf("records %+v", recs)
			}
			checkField(t, "buffer_reads", recs[0].BufferReads, wantI(17))
			checkField(t, "wal_buffers_full", recs[0].WALBuffersFull, wantI(0))
			checkField(t, "elapsed_s", recs[0].ElapsedS, wantF(0.02))
		}},
		{"18 pinned page, multixacts, delay time", pg18Special, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			if len(recs) != 2 {
				t.Fatalf("%d records", len(recs))
			}
			r := recs[0]
			checkField(t, "tuples_missed_dead", r.TuplesMissedDead, wantI(29))
			checkField(t, "pages_missed_dead", r.PagesMissedDead, wantI(1))
			checkField(t, "new_relminmxid", r.NewRelminMXID, wantI(2))
			checkField(t, "new_relminmxid_ahead_mxids", r.RelminMXIDAheadMXIDs, wantI(1))
			r = recs[1]
			if !r.Aggressive {
				t.Errorf("VACUUM (FREEZE) is aggressive")
			}
			checkField(t, "delay_ms", r.DelayMs, wantF(0))
			checkField(t, "tuples_frozen", r.TuplesFrozen, wantI(100))
			checkField(t, "vm_pages_set_all_frozen", r.VMPagesSetAllFrozen, wantI(1))
		}},
		{"psql -f, VERBOSITY verbose", pg15VerboseFile, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "noidx")
			checkField(t, "new_relminmxid", r.NewRelminMXID, wantI(2))
			checkField(t, "elapsed_s", r.ElapsedS, wantF(0.01))
		}},
		{"psql -q, no command tags", pg13Quiet, func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			if len(recs) != 2 || recs[1].Schema != "pg_toast" || recs[1].ToastOf != "" {
				t.Errorf("records %+v; a TOAST table vacuumed by a later statement is not linked", recs)
			}
		}},
		{"unknown summary line", strings.Replace(pg17Finished, "frozen: 540", "thawed: 540", 1), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:7: unrecognized line in VACUUM summary: "thawed: 540 pages from table (100.00% of total) had 42858 tuples frozen"`)
			r := recordOf(t, recs, "t")
			checkField(t, "pages_frozen", r.PagesFrozen, nil)
			checkField(t, "buffer_misses", r.BufferMisses, wantI(1502))
		}},
		{"contradicting numbers", strings.Replace(pg17Finished, "540 scanned", "541 scanned", 1), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:3: numbers that contradict each other in VACUUM summary: "pages: 0 removed, 540 remain, 541 scanned (100.00% of total)"`)
			r := recordOf(t, recs, "t")
			checkField(t, "pages_scanned", r.PagesScanned, nil)
			checkField(t, "tuples_removed", r.TuplesRemoved, wantI(7142))
		}},
		{"cancelled", "VACUUM (VERBOSE) t;\nINFO:  vacuuming \"postgres.public.t\"\nERROR:  canceling statement due to user request\n", func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:3: server ERROR: "ERROR:  canceling statement due to user request"`,
				`in:2: no summary ("finished vacuuming", or "found ... row versions") for this VACUUM: "postgres.public.t"`)
			recordOf(t, recs, "t")
		}},
		{"other table", "INFO:  vacuuming \"public.a\"\nINFO:  \"b\": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages\n", func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:2: this message is about another table than "vacuuming public.a": "INFO:  \"b\": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages"`,
				`in:1: no summary ("finished vacuuming", or "found ... row versions") for this VACUUM: "public.a"`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Parse(strings.NewReader(tc.in), "in")
			if err != nil {
				t.Fatal(err)
			}
			checkRecords(t, recs, warns)
			tc.check(t, recs, warns)
		})
	}
}

// recordOf is the VACUUM record of table.
func recordOf(t *testing.T, recs []Record, table string) *Record {
	t.Helper()
	for i := range recs {
		if recs[i].Table == table && recs[i].Operation == "vacuum" {
			return &recs[i]
		}
	}
	t.Fatalf("no VACUUM record of %s among %d", table, len(recs))
	return nil
}

// checkField checks a figure: want nil is absent.
func checkField[T comparable](t *testing.T, name string, got parse.Opt[T], want *T) {
	t.Helper()
	if got.Valid != (want != nil) || got.Valid && got.V != *want {
		t.Errorf("%s = %v, want %v", name, show(got.Ptr()), show(want))
	}
}

func checkWarnings(t *testing.T, warns []parse.Warning, want ...string) {
	t.Helper()
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPsqlLocationOnce: psql's "psql:FILE:LINE: " prefix is read the same
// by the VACUUM parser and the psql parser, even when the file name holds
// ": " (the VACUUM parser left "psql:my: file.sql:3: INFO: ..." whole).
func TestPsqlLocationOnce(t *testing.T) {
	for in, want := range map[string]string{
		"psql:my: file.sql:3: INFO:  vacuuming \"db.public.t\"": "INFO:  vacuuming \"db.public.t\"",
		"psql:run.sql:12: INFO:  x":                             "INFO:  x",
		"psql:<stdin>:1: ERROR:  y":                             "ERROR:  y",
		"psql: not a location":                                  "psql: not a location",
		"INFO:  plain":                                          "INFO:  plain",
	} {
		_, _, rest, _ := psqlloc.Cut(in)
		if got := stripLocation(in); got != want || rest != want {
			t.Errorf("%q: vacuum %q, psql %q; want %q", in, got, rest, want)
		}
	}
}
