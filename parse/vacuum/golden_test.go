package vacuum

import (
	"encoding/json"
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
		if r.Table == "" || strings.Contains(r.Table, "\n") {
			t.Errorf("record %d (line %d): table name %q", i, r.Line, r.Table)
		}
		if r.Operation != "vacuum" && r.Operation != "analyze" {
			t.Errorf("record %d: operation %q", i, r.Operation)
		}
		if r.Line < 1 {
			t.Errorf("record %d: line %d", i, r.Line)
		}
		if r.PagesScanned.Valid && r.PagesRemain.Valid {
			total := r.PagesRemain.V
			if r.PagesRemoved.Valid {
				total += r.PagesRemoved.V
			}
			if r.PagesScanned.V > total {
				t.Errorf("record %d (line %d): %d pages scanned > %d remain + removed", i, r.Line, r.PagesScanned.V, total)
			}
		}
		for _, p := range []parse.Opt[float64]{r.PagesScannedPct, r.PagesFrozenPct, r.DeadItemPagesPct} {
			if p.Valid && (p.V < 0 || p.V > 100 || math.IsNaN(p.V)) {
				t.Errorf("record %d (line %d): percentage %v", i, r.Line, p.V)
			}
		}
		if r.BufferMisses.Valid && r.BufferReads.Valid {
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
