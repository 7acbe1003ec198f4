package vacuum

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/internal/psqlloc"
)

// goldenRecords is what a vacuum fixture's golden file holds.
type goldenRecords struct {
	Records  []Record        `json:"records"`
	Warnings []parse.Warning `json:"warnings,omitempty"`
}

// readFixture parses a fixture of testdata/verbose: psql output
// (*.psql.txt) or notices (*.notices.jsonl).
func readFixture(t *testing.T, path string) ([]Record, []parse.Warning) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if strings.HasSuffix(path, ".notices.jsonl") {
		ns, err := ReadNotices(f, path)
		if err != nil {
			t.Fatal(err)
		}
		recs, warns, err := Notices(ns, path)
		if err != nil {
			t.Fatal(err)
		}
		return recs, warns
	}
	recs, warns, err := Parse(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return recs, warns
}

// TestFixtures compares each fixture's records with its golden file
// and checks the records' properties. The fixtures are real servers'
// output of VACUUM (VERBOSE) that went well, so a warning is a failure
// (except in a fixture named for an error or a warning).
func TestFixtures(t *testing.T) {
	files := append(golden.Files(t, "verbose", "*.psql.txt"), golden.Files(t, "verbose", "*.notices.jsonl")...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			recs, warns := readFixture(t, f)
			golden.Check(t, f, goldenRecords{recs, warns})
			checkRecords(t, recs, warns)
			if len(warns) > 0 && !strings.Contains(f, "error") && !strings.Contains(f, "warning") {
				for _, w := range warns {
					t.Errorf("warning: %s", w)
				}
			}
			if len(recs) < 2 {
				t.Errorf("%d records; want the table's and its TOAST table's", len(recs))
			}
			for i := range recs {
				if r := &recs[i]; r.Operation == "vacuum" && r.Schema == "pg_toast" && r.ToastOf == "" {
					t.Errorf("TOAST table %s is not linked to its main table", relName(r))
				}
			}
		})
	}
}

// checkRecords checks what holds for any records the parsers
// return, whatever the input: the fuzz targets use it too.
func checkRecords(t *testing.T, recs []Record, warns []parse.Warning) {
	t.Helper()
	for i := range recs {
		r := &recs[i]
		if r.Table == "" || strings.ContainsAny(r.Table, "\"\n") {
			t.Errorf("record %d (line %d): table name %q", i, r.Line, r.Table)
		}
		if r.Operation != "vacuum" && r.Operation != "analyze" {
			t.Errorf("record %d: operation %q", i, r.Operation)
		}
		if r.Line < 1 {
			t.Errorf("record %d: line %d", i, r.Line)
		}
		if r.PagesScanned != nil && r.PagesRemain != nil {
			total := *r.PagesRemain
			if r.PagesRemoved != nil {
				total += *r.PagesRemoved
			}
			if *r.PagesScanned > total {
				t.Errorf("record %d (line %d): %d pages scanned > %d remain + removed", i, r.Line, *r.PagesScanned, total)
			}
		}
		for _, p := range []*float64{r.PagesScannedPct, r.PagesFrozenPct, r.DeadItemPagesPct} {
			if p != nil && (*p < 0 || *p > 100 || math.IsNaN(*p)) {
				t.Errorf("record %d (line %d): percentage %v", i, r.Line, *p)
			}
		}
		if r.BufferMisses != nil && r.BufferReads != nil {
			t.Errorf("record %d (line %d): both buffer misses and reads", i, r.Line)
		}
		if r.ToastOf != "" && r.Schema != "pg_toast" {
			t.Errorf("record %d (line %d): %s is not a TOAST table but names a main table", i, r.Line, relName(r))
		}
		for _, s := range r.Analyze {
			if s.Table == "" || s.PagesScanned > s.PagesTotal {
				t.Errorf("record %d (line %d): analyze sample %+v", i, r.Line, s)
			}
		}
		for _, ix := range r.Indexes {
			if ix.Name == "" {
				t.Errorf("record %d (line %d): index without a name", i, r.Line)
			}
		}
	}
	for _, w := range warns {
		if w.Line < 0 || w.Msg == "" {
			t.Errorf("warning %+v", w)
		}
	}
	if _, err := json.Marshal(goldenRecords{recs, warns}); err != nil {
		t.Errorf("records do not encode as JSON: %v", err)
	}
}

// conditionalFields are fields the server prints only when something
// happened that need not happen in two runs of the same case: relfrozenxid
// and relminmxid advance when they can, dead tuples are missed when a page
// is pinned, and up to 14 pages are removed only when the table was
// truncated.
var conditionalFields = map[string]bool{
	"new_relfrozenxid": true, "new_relfrozenxid_ahead_xids": true,
	"new_relminmxid": true, "new_relminmxid_ahead_mxids": true,
	"tuples_missed_dead": true, "pages_missed_dead": true, "pages_removed": true,
}

// deterministic are fields with the same value in two runs of the same
// case on the same data.
var deterministic = []string{"operation", "schema", "automatic", "aggressive", "to_prevent_wraparound",
	"index_scans", "pages_remain", "pages_scanned", "pages_scanned_pct", "tuples_removed", "tuples_remain",
	"tuples_nonremovable", "tuples_dead_not_yet_removable", "index_scan", "dead_item_ids", "dead_item_pages"}

var oid = regexp.MustCompile(`[0-9]+`)

// TestPsqlAndNoticesAgree reads the two captures of each case (psql's
// output and the notices, from two runs on the same data) and checks that
// they give the same tables, the same fields, and the same values where a
// second run cannot change them. TOAST tables are compared without their
// OID, which differs between runs.
func TestPsqlAndNoticesAgree(t *testing.T) {
	pairs := 0
	for _, p := range golden.Files(t, "verbose", "*.psql.txt") {
		n := strings.TrimSuffix(p, ".psql.txt") + ".notices.jsonl"
		if _, err := os.Stat(n); err != nil {
			continue
		}
		pairs++
		t.Run(strings.TrimSuffix(filepath.Base(p), ".psql.txt"), func(t *testing.T) {
			a, _ := readFixture(t, p)
			b, _ := readFixture(t, n)
			ta, tb := tableNames(a), tableNames(b)
			if !slices.Equal(ta, tb) {
				t.Fatalf("tables differ:\npsql:    %v\nnotices: %v", ta, tb)
			}
			for i := range a {
				ma, mb := recordFields(t, &a[i]), recordFields(t, &b[i])
				ka, kb := presentKeys(ma), presentKeys(mb)
				if !slices.Equal(ka, kb) {
					t.Errorf("%s: fields differ:\npsql:    %v\nnotices: %v", ta[i], ka, kb)
				}
				for _, k := range deterministic {
					if !reflect.DeepEqual(ma[k], mb[k]) {
						t.Errorf("%s: %s: psql %v, notices %v", ta[i], k, ma[k], mb[k])
					}
				}
				ia, ib := indexFields(t, &a[i]), indexFields(t, &b[i])
				if !slices.Equal(ia, ib) {
					t.Errorf("%s: indexes differ:\npsql:    %v\nnotices: %v", ta[i], ia, ib)
				}
			}
		})
	}
	if pairs == 0 {
		t.Fatal("no case has both psql output and notices")
	}
}

// tableNames names each record's operation and table, TOAST OIDs left out.
func tableNames(recs []Record) []string {
	var out []string
	for i := range recs {
		r := &recs[i]
		out = append(out, r.Operation+" "+oid.ReplaceAllString(r.Schema+"."+r.Table, "N")+" toast_of="+r.ToastOf)
	}
	return out
}

// recordFields is a record as JSON fields.
func recordFields(t *testing.T, r *Record) map[string]any {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// presentKeys are the fields present, the conditional ones left out.
func presentKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		if !conditionalFields[k] && k != "line" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// indexFields names each index (OIDs left out) and its fields, sorted.
func indexFields(t *testing.T, r *Record) []string {
	var out []string
	for _, ix := range r.Indexes {
		b, err := json.Marshal(ix)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		keys := presentKeys(m)
		out = append(out, oid.ReplaceAllString(ix.Name, "N")+" "+strings.Join(keys, ","))
	}
	slices.Sort(out) // 13 and 14 report parallel index vacuums in either order
	return out
}

// TestErrors checks the exact errors for input that is not VACUUM
// VERBOSE output.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", `in.txt: empty input; expected psql's output of VACUUM (VERBOSE)`},
		{"binary", "INFO:  vacuuming \"public.t\"\n\x00\x01\x02\n", `in.txt:2: binary data (a NUL byte); expected text`},
		{"explain", explainPsql, `in.txt:2: expected psql's output of VACUUM (VERBOSE) (INFO:  vacuuming "table"), found "                                QUERY PLAN                                "`},
		{"explain without echo", explainPsql[strings.IndexByte(explainPsql, '\n')+1:], `in.txt:1: expected psql's output of VACUUM (VERBOSE) (INFO:  vacuuming "table"), found "                                QUERY PLAN                                "`},
		{"explain json", "[\n  {\n    \"Plan\": {\n", `in.txt:1: expected psql's output of VACUUM (VERBOSE) (INFO:  vacuuming "table"), found "["`},
		{"not verbose", "Timing is on.\nVACUUM t;\nVACUUM\nTime: 12.250 ms\n", `in.txt: no VACUUM (VERBOSE) output (INFO:  vacuuming "table"); was VERBOSE given?`},
		{"error only", "VACUUM (VERBOSE) does_not_exist;\nERROR:  relation \"does_not_exist\" does not exist\n", `in.txt: no VACUUM (VERBOSE) output (INFO:  vacuuming "table"); was VERBOSE given?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Parse(strings.NewReader(tc.in), "in.txt")
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Vacuum() = %d records, %v, %v; want a *SyntaxError", len(recs), warns, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

// explainPsql is psql -e's output of an EXPLAIN (PostgreSQL 17).
const explainPsql = `EXPLAIN SELECT * FROM t WHERE id < 10
                                QUERY PLAN                                
--------------------------------------------------------------------------
 Bitmap Heap Scan on t  (cost=122.79..412.79 rows=6000 width=68)
   Recheck Cond: (id < 10)
   ->  Bitmap Index Scan on t_pkey  (cost=0.00..121.29 rows=6000 width=0)
         Index Cond: (id < 10)
(4 rows)

`

func TestNoticesErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []Notice
		want string
	}{
		{"none", nil, `n.jsonl: no notices; expected the messages of VACUUM (VERBOSE)`},
		{"other notices", []Notice{{Severity: "NOTICE", Code: "00000", Message: `table "x" does not exist, skipping`}},
			`n.jsonl:1: expected the messages of VACUUM (VERBOSE) (vacuuming "table"), found "table \"x\" does not exist, skipping"`},
		{"only noise", []Notice{{Severity: "INFO", Message: "launched 1 parallel vacuum worker for index vacuuming (planned: 1)"}},
			`n.jsonl: no VACUUM (VERBOSE) message (vacuuming "table") among 1 notices; was VERBOSE given?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Notices(tc.in, "n.jsonl")
			var se *parse.SyntaxError
			if !errors.As(err, &se) || err.Error() != tc.want {
				t.Errorf("error\n got: %v\nwant: %s", err, tc.want)
			}
		})
	}
}

func TestReadNotices(t *testing.T) {
	in := `{"severity":"INFO","code":"00000","message":"vacuuming \"public.t\"","detail":"","hint":"","where":"","received_at":"x"}

{"severity":"INFO","message":"finished vacuuming \"postgres.public.t\": index scans: 0\npages: 0 removed, 0 remain, 0 scanned (100.00% of total)"}
`
	ns, err := ReadNotices(strings.NewReader(in), "n.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Notice{
		{Severity: "INFO", Code: "00000", Message: `vacuuming "public.t"`},
		{Severity: "INFO", Message: "finished vacuuming \"postgres.public.t\": index scans: 0\npages: 0 removed, 0 remain, 0 scanned (100.00% of total)"},
	}
	if !reflect.DeepEqual(ns, want) {
		t.Errorf("Notices() =\n%+v\nwant\n%+v", ns, want)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", `n.jsonl: empty input; expected notices as JSON lines`},
		{"blank", "\n\n", `n.jsonl: empty input; expected notices as JSON lines`},
		{"psql output", "INFO:  vacuuming \"public.t\"\n", `n.jsonl:1: expected a JSON object (a notice), found "INFO:  vacuuming \"public.t\""`},
		{"bad json", "{\"severity\":\"INFO\",\"message\":\"x\"}\n{\"severity\":1}\n", `n.jsonl:2: notice: json: cannot unmarshal number into Go struct field Notice.severity of type string`},
		{"not a notice", "{\"a\":1}\n", `n.jsonl:1: expected a notice with a severity and a message, found "{\"a\":1}"`},
		{"binary", "{}\x00\n", `n.jsonl:1: binary data (a NUL byte); expected text`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadNotices(strings.NewReader(tc.in), "n.jsonl")
			var se *parse.SyntaxError
			if !errors.As(err, &se) || err.Error() != tc.want {
				t.Errorf("error\n got: %v\nwant: %s", err, tc.want)
			}
		})
	}
}

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
			if !reflect.DeepEqual(r.BufferMisses, tc.misses) || !reflect.DeepEqual(r.BufferReads, tc.reads) {
				t.Errorf("misses %v, reads %v; want %v, %v", show(r.BufferMisses), show(r.BufferReads), show(tc.misses), show(tc.reads))
			}
			if r.BufferHits == nil || r.BufferDirtied == nil {
				t.Errorf("hits %v, dirtied %v", show(r.BufferHits), show(r.BufferDirtied))
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
			if old && (r.BufferReads != nil || r.BufferMisses != nil) || !old && (v18 != (r.BufferReads != nil) || v18 == (r.BufferMisses != nil)) {
				t.Errorf("%s: %s: misses %v, reads %v", f, r.Table, show(r.BufferMisses), show(r.BufferReads))
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
	z := wantI(0)
	want := Record{Line: 1, Operation: "vacuum", Database: "postgres", Schema: "public", Table: "t",
		IndexScans: wantI(1), PagesRemoved: z, PagesRemain: wantI(540), PagesScanned: wantI(540), PagesScannedPct: wantF(100),
		PagesEagerlyScanned: z, TuplesRemoved: wantI(7142), TuplesRemain: wantI(42858), TuplesDeadNotYetRemovable: z,
		RemovableCutoffXID: wantI(823), RemovableCutoffAgeXIDs: z, NewRelfrozenXID: wantI(823), RelfrozenXIDAheadXIDs: wantI(4),
		PagesFrozen: wantI(540), PagesFrozenPct: wantF(100), TuplesFrozen: wantI(42858),
		VMPagesSetAllVisible: wantI(540), VMPagesSetAllFrozen: wantI(540), VMPagesWereAllVisible: z,
		IndexScan: "needed", DeadItemPages: wantI(540), DeadItemPagesPct: wantF(100), DeadItemIDs: wantI(17142),
		Indexes: []Index{
			{Name: "t_pkey", PagesTotal: wantI(275), PagesNewlyDeleted: z, PagesCurrentlyDeleted: z, PagesReusable: z},
			{Name: "t_k", PagesTotal: wantI(139), PagesNewlyDeleted: z, PagesCurrentlyDeleted: z, PagesReusable: z},
		},
		IOReadMs: wantF(117.458), IOWriteMs: wantF(6.532), AvgReadMBs: wantF(33.058), AvgWriteMBs: wantF(32.838),
		BufferHits: wantI(622), BufferReads: wantI(1505), BufferDirtied: wantI(1495),
		WALRecords: wantI(2576), WALFullPageImages: wantI(955), WALBytes: wantI(5497665), WALBuffersFull: z,
		CPUUserS: wantF(0.03), CPUSystemS: wantF(0.04), ElapsedS: wantF(0.35),
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

func checkField[T comparable](t *testing.T, name string, got, want *T) {
	t.Helper()
	if (got == nil) != (want == nil) || got != nil && *got != *want {
		t.Errorf("%s = %v, want %v", name, show(got), show(want))
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

const pg13ThreePasses = `Timing is on.
SET maintenance_work_mem = '1MB';
SET
Time: 0.994 ms
VACUUM (VERBOSE) m;
INFO:  vacuuming "public.m"
INFO:  launched 1 parallel vacuum worker for index vacuuming (planned: 1)
INFO:  scanned index "m_id" to remove 174472 row versions
DETAIL:  CPU: user: 0.08 s, system: 0.00 s, elapsed: 0.29 s
INFO:  scanned index "m_k" to remove 174472 row versions
DETAIL:  CPU: user: 0.07 s, system: 0.01 s, elapsed: 0.28 s
INFO:  "m": removed 174472 row versions in 965 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
INFO:  launched 1 parallel vacuum worker for index vacuuming (planned: 1)
INFO:  scanned index "m_id" to remove 174472 row versions
DETAIL:  CPU: user: 0.03 s, system: 0.00 s, elapsed: 0.09 s
INFO:  scanned index "m_k" to remove 174472 row versions
DETAIL:  CPU: user: 0.06 s, system: 0.00 s, elapsed: 0.17 s
INFO:  "m": removed 174472 row versions in 965 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.02 s
INFO:  launched 1 parallel vacuum worker for index vacuuming (planned: 1)
INFO:  scanned index "m_id" to remove 131056 row versions
DETAIL:  CPU: user: 0.02 s, system: 0.00 s, elapsed: 0.04 s
INFO:  scanned index "m_k" to remove 131056 row versions
DETAIL:  CPU: user: 0.04 s, system: 0.00 s, elapsed: 0.17 s
INFO:  "m": removed 131056 row versions in 725 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
INFO:  index "m_id" now contains 120000 row versions in 1648 pages
DETAIL:  480000 index row versions were removed.
0 index pages have been deleted, 0 are currently reusable.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  index "m_k" now contains 120000 row versions in 603 pages
DETAIL:  480000 index row versions were removed.
396 index pages have been deleted, 0 are currently reusable.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  "m": found 480000 removable, 120000 nonremovable row versions in 2655 out of 2655 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 569
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.29 s, system: 0.00 s, elapsed: 1.12 s.
VACUUM
Time: 1143.446 ms (00:01.143)
`

const pg14Truncated = `VACUUM (VERBOSE) tr;
INFO:  vacuuming "public.tr"
INFO:  scanned index "tr_pkey" to remove 15000 row versions
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
INFO:  table "tr": removed 15000 dead item identifiers in 259 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
INFO:  index "tr_pkey" now contains 5000 row versions in 57 pages
DETAIL:  15000 index row versions were removed.
40 index pages were newly deleted.
40 index pages are currently deleted, of which 0 are currently reusable.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  table "tr": found 15000 removable, 5000 nonremovable row versions in 345 out of 345 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 819
Skipped 0 pages due to buffer pins, 0 frozen pages.
CPU: user: 0.01 s, system: 0.00 s, elapsed: 0.04 s.
INFO:  table "tr": truncated 345 to 87 pages
DETAIL:  CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
INFO:  vacuuming "pg_toast.pg_toast_192892"
INFO:  table "pg_toast_192892": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 820
Skipped 0 pages due to buffer pins, 0 frozen pages.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
VACUUM
Time: 46.958 ms
`

const pg15Truncated = `VACUUM (VERBOSE) tr;
INFO:  vacuuming "postgres.public.tr"
INFO:  table "tr": truncated 345 to 87 pages
INFO:  finished vacuuming "postgres.public.tr": index scans: 1
pages: 258 removed, 87 remain, 345 scanned (100.00% of total)
tuples: 15000 removed, 5000 remain, 0 are dead but not yet removable
removable cutoff: 821, which was 1 XIDs old when operation ended
new relfrozenxid: 805, which is 1 XIDs ahead of previous value
index scan needed: 259 pages from table (75.07% of total) had 15000 dead item identifiers removed
index "tr_pkey": pages: 57 in total, 40 newly deleted, 40 currently deleted, 0 reusable
avg read rate: 0.280 MB/s, avg write rate: 0.420 MB/s
buffer usage: 1582 hits, 2 misses, 3 dirtied
WAL usage: 990 records, 1 full page images, 154535 bytes
system usage: CPU: user: 0.01 s, system: 0.00 s, elapsed: 0.05 s
VACUUM
Time: 57.472 ms
`

const pg14Bypassed = `VACUUM (VERBOSE) bp;
INFO:  vacuuming "public.bp"
INFO:  table "bp": index scan bypassed: 1 pages from table (0.12% of total) have 3 dead item identifiers
INFO:  table "bp": found 3 removable, 59 nonremovable row versions in 2 out of 863 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 820
Skipped 0 pages due to buffer pins, 861 frozen pages.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
VACUUM
`

const pg15Bypassed = `VACUUM (VERBOSE) bp;
INFO:  vacuuming "postgres.public.bp"
INFO:  finished vacuuming "postgres.public.bp": index scans: 0
pages: 0 removed, 863 remain, 2 scanned (0.23% of total)
tuples: 3 removed, 50000 remain, 0 are dead but not yet removable
removable cutoff: 822, which was 0 XIDs old when operation ended
new relfrozenxid: 822, which is 11 XIDs ahead of previous value
index scan bypassed: 1 pages from table (0.12% of total) have 3 dead item identifiers
avg read rate: 14.001 MB/s, avg write rate: 0.000 MB/s
buffer usage: 30 hits, 1 misses, 0 dirtied
WAL usage: 2 records, 0 full page images, 297 bytes
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
VACUUM
`

const pg13NoIndex = `VACUUM (VERBOSE) noidx;
INFO:  vacuuming "public.noidx"
INFO:  "noidx": removed 1666 row versions in 87 pages
INFO:  "noidx": found 1666 removable, 3334 nonremovable row versions in 87 out of 87 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 572
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  vacuuming "pg_toast.pg_toast_192917"
INFO:  "pg_toast_192917": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 572
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
VACUUM
Time: 9.119 ms
VACUUM (VERBOSE) does_not_exist;
ERROR:  relation "does_not_exist" does not exist
Time: 0.723 ms
`

const pg13Inheritance = `VACUUM (VERBOSE, ANALYZE) parent;
INFO:  analyzing "public.parent" inheritance tree
INFO:  "child1": scanned 5 of 5 pages, containing 1000 live rows and 0 dead rows; 1000 rows in sample, 1000 estimated total rows
INFO:  "child2": scanned 5 of 5 pages, containing 1000 live rows and 0 dead rows; 1000 rows in sample, 1000 estimated total rows
INFO:  vacuuming "public.child1"
INFO:  "child1": found 0 removable, 1000 nonremovable row versions in 5 out of 5 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 573
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
INFO:  analyzing "public.child1"
INFO:  "child1": scanned 5 of 5 pages, containing 1000 live rows and 0 dead rows; 1000 rows in sample, 1000 estimated total rows
VACUUM
Time: 17.971 ms
`

const pg18Analyze = `INFO:  analyzing "public.t"
INFO:  "t": scanned 215 of 215 pages, containing 18000 live rows and 0 dead rows; 18000 rows in sample, 18000 estimated total rows
INFO:  finished analyzing table "postgres.public.t"
I/O timings: read: 0.953 ms, write: 0.031 ms
avg read rate: 4.580 MB/s, avg write rate: 2.694 MB/s
buffer usage: 442 hits, 17 reads, 10 dirtied
WAL usage: 13 records, 7 full page images, 38641 bytes, 0 buffers full
system usage: CPU: user: 0.01 s, system: 0.01 s, elapsed: 0.02 s
VACUUM
Time: 170.330 ms
`

const pg18Special = `Timing is on.
VACUUM (VERBOSE) pin;
INFO:  vacuuming "postgres.public.pin"
INFO:  finished vacuuming "postgres.public.pin": index scans: 1
pages: 0 removed, 35 remain, 35 scanned (100.00% of total), 0 eagerly scanned
tuples: 942 removed, 1029 remain, 0 are dead but not yet removable
tuples missed: 29 dead from 1 pages not removed due to cleanup lock contention
removable cutoff: 861, which was 0 XIDs old when operation ended
new relfrozenxid: 855, which is 1 XIDs ahead of previous value
new relminmxid: 2, which is 1 MXIDs ahead of previous value
frozen: 0 pages from table (0.00% of total) had 0 tuples frozen
visibility map: 34 pages set all-visible, 0 pages set all-frozen (0 were all-visible)
index scan needed: 34 pages from table (97.14% of total) had 971 dead item identifiers removed
index "pin_pkey": pages: 8 in total, 0 newly deleted, 0 currently deleted, 0 reusable
I/O timings: read: 0.000 ms, write: 0.054 ms
avg read rate: 0.000 MB/s, avg write rate: 2.212 MB/s
buffer usage: 172 hits, 0 reads, 3 dirtied
WAL usage: 111 records, 3 full page images, 36800 bytes, 0 buffers full
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
VACUUM
Time: 18.459 ms
SET track_cost_delay_timing = on;
SET
Time: 4.134 ms
SET vacuum_cost_delay = 1;
SET
Time: 0.200 ms
VACUUM (VERBOSE, FREEZE) mx;
INFO:  aggressively vacuuming "postgres.public.mx"
INFO:  finished vacuuming "postgres.public.mx": index scans: 0
pages: 0 removed, 1 remain, 1 scanned (100.00% of total), 0 eagerly scanned
tuples: 0 removed, 100 remain, 0 are dead but not yet removable
removable cutoff: 861, which was 0 XIDs old when operation ended
new relfrozenxid: 861, which is 4 XIDs ahead of previous value
new relminmxid: 2, which is 1 MXIDs ahead of previous value
frozen: 1 pages from table (100.00% of total) had 100 tuples frozen
visibility map: 1 pages set all-visible, 1 pages set all-frozen (0 were all-visible)
index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
delay time: 0.000 ms
I/O timings: read: 0.000 ms, write: 0.061 ms
avg read rate: 0.000 MB/s, avg write rate: 33.034 MB/s
buffer usage: 31 hits, 0 reads, 4 dirtied
WAL usage: 6 records, 4 full page images, 33554 bytes, 0 buffers full
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s
VACUUM
Time: 1.579 ms
`

// pg15VerboseFile is psql -f with \set VERBOSITY verbose: each message
// starts with "psql:FILE:N: " and carries its SQLSTATE and LOCATION.
const pg15VerboseFile = `psql:case.sql:2: INFO:  00000: vacuuming "postgres.public.noidx"
LOCATION:  heap_vacuum_rel, vacuumlazy.c:409
psql:case.sql:2: INFO:  00000: finished vacuuming "postgres.public.noidx": index scans: 0
pages: 0 removed, 87 remain, 1 scanned (1.15% of total)
tuples: 0 removed, 3334 remain, 0 are dead but not yet removable
removable cutoff: 833, which was 0 XIDs old when operation ended
new relfrozenxid: 833, which is 8 XIDs ahead of previous value
new relminmxid: 2, which is 1 MXIDs ahead of previous value
index scan not needed: 0 pages from table (0.00% of total) had 0 dead item identifiers removed
avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s
buffer usage: 10 hits, 0 misses, 0 dirtied
WAL usage: 1 records, 0 full page images, 188 bytes
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
LOCATION:  heap_vacuum_rel, vacuumlazy.c:770
VACUUM
`

// pg13Quiet is psql -q -e: no command tags, so one statement's output runs
// into the next statement's echo.
const pg13Quiet = `VACUUM (VERBOSE) t;
INFO:  vacuuming "public.t"
INFO:  "t": found 0 removable, 5 nonremovable row versions in 1 out of 1 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 583
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
vacuum (verbose) pg_toast.pg_toast_16384;
INFO:  vacuuming "pg_toast.pg_toast_16384"
INFO:  "pg_toast_16384": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages
DETAIL:  0 dead row versions cannot be removed yet, oldest xmin: 583
There were 0 unused item identifiers.
Skipped 0 pages due to buffer pins, 0 frozen pages.
0 pages are entirely empty.
CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s.
`

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
