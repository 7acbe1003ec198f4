package vacuum

import (
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"

	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// readNoticesWhole is ReadNotices then Notices, what NoticesSeq gives a
// record at a time.
func readNoticesWhole(r io.Reader, source string) ([]Record, []parse.Warning, error) {
	ns, err := ReadNotices(r, source)
	if err != nil {
		return nil, nil, err
	}
	return Notices(ns, source)
}

// TestNoticesSeqFixtures: on every notices fixture, on notices that are
// not VACUUM's, and on lines that are not notices, NoticesSeq gives what
// ReadNotices and Notices give: the same records and warnings (those of
// records without a summary just before them), or the same error.
func TestNoticesSeqFixtures(t *testing.T) {
	var ins [][]byte
	for _, f := range golden.Files(t, "verbose", "*.notices.jsonl") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, b)
	}
	for _, s := range []string{
		"", "\n\n", "INFO:  vacuuming \"public.t\"\n", "{\"a\":1}\n", "{}\x00\n",
		`{"severity":"NOTICE","message":"table \"x\" does not exist, skipping"}`,
		`{"severity":"INFO","message":"launched 1 parallel vacuum worker for index vacuuming (planned: 1)"}`,
		`{"severity":"INFO","message":"vacuuming \"public.t\""}` + "\n" + `{"severity":1}`,
		`{"severity":"INFO","message":"vacuuming \"public.t\""}` + "\n\n" + `{"severity":"INFO","message":"\"t\": found 0 removable, 0 nonremovable row versions in 0 out of 0 pages","detail":"0 dead row versions cannot be removed yet.\nThere were 0 unused item identifiers.\nnonsense"}`,
	} {
		ins = append(ins, []byte(s))
	}
	var withRecords, failing int
	for _, in := range ins {
		recs, _, err := checkSeqOf(t, readNoticesWhole, NoticesSeq, in, "n.jsonl")
		if err != nil {
			failing++
		} else if len(recs) > 0 {
			withRecords++
		}
	}
	if withRecords < 30 || failing < 7 {
		t.Errorf("%d inputs with records, %d failing; want 30 and 7", withRecords, failing)
	}
}

// TestNoticesSeqStops: a consumer that stops after the first record gets
// no more, and the reading stops with it.
func TestNoticesSeqStops(t *testing.T) {
	b := []byte(golden.Text(t, "testdata/verbose/pg17-vacuum-verbose-analyze.notices.jsonl"))
	r := parsetest.Repeat(b, 1000)
	n := 0
	for _, err := range NoticesSeq(r, "n.jsonl", nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 || r.Left() < 990 {
		t.Errorf("%d records yielded and %d copies of 1000 read after a consumer stopped", n, 1000-r.Left())
	}
}

// TestNoticesSeqMemory streams 60 MB of notices through NoticesSeq (every
// notices fixture, over and over, read as it is made): the live heap must
// stay under 32 MiB, where ReadNotices and Notices hold every notice and
// record, and each copy must give the records of one.
func TestNoticesSeqMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 60 MB")
	}
	seqMemory(t, "*.notices.jsonl", 60e6, readNoticesWhole, NoticesSeq)
}

// TestNoticeScan: the lines the scanner reads give what encoding/json
// gives, and those it leaves to encoding/json are those it would read
// otherwise.
func TestNoticeScan(t *testing.T) {
	for _, tc := range []struct {
		line    string
		scanned bool
	}{
		{`{"severity":"INFO","code":"00000","message":"vacuuming \"public.t\"\nx\ty\\z\/","detail":"","hint":"","where":""}`, true},
		{`{"severity":"INFO","message":"m","received_at":"2026-01-01","n":-1.5e+3,"b":true,"z":null}`, true},
		{`{"severity":"INFO","message":"caf\u00e9"}`, false},       // \u: encoding/json's
		{`{"severity":"INFO","message":"café"}`, true},             // UTF-8 as it is
		{"{\"severity\":\"INFO\",\"message\":\"caf\xe9\"}", false}, // not UTF-8: encoding/json replaces it
		{"{\"severity\":\"INFO\",\"message\":\"a\tb\"}", false},    // a control character: refused
		{`{"Severity":"WARNING","message":"m"}`, false},            // another case: encoding/json matches it
		{`{"severity":"INFO","message":"m","n":01}`, false},        // not a JSON number
		{`{"severity":"INFO","message":"m","o":{"a":"b"}}`, false}, // nested
		{`{"severity":"INFO","message":"m","a":[1,2]}`, false},
		{`{"severity":"INFO", "message":"m"}`, false}, // white space
		{`{"severity":null,"message":"m"}`, false},
		{`{"severity":2,"message":"m"}`, false},
		{`{"severity":"INFO","message":"m"} `, false},
		{`{"severity":"INFO","message":"m"`, false},
		{`{"severity":"INFO","message":"m",}`, false}, // a comma without a key (found by FuzzNoticeScan)
		{`{}`, true},
	} {
		var sc noticeScanner
		sc.text = func(b []byte) string { return string(b) }
		scanned := scanFlat([]byte(tc.line), &sc.scratch, sc.set)
		if scanned != tc.scanned {
			t.Errorf("%s: scanned %v, want %v", tc.line, scanned, tc.scanned)
		}
		var std Notice
		err := json.Unmarshal([]byte(tc.line), &std)
		if scanned && (err != nil || sc.nt != std) {
			t.Errorf("%s: scanned %+v; encoding/json %+v, %v", tc.line, sc.nt, std, err)
		}
	}
}

// FuzzNoticeScan: a line the scanner reads, encoding/json reads the same
// (as a notice and as a jsonlog record), and a line it fails on has its
// notice read by encoding/json all the same.
func FuzzNoticeScan(f *testing.F) {
	for _, file := range golden.Files(f, "verbose", "*.notices.jsonl") {
		for _, l := range strings.Split(golden.Text(f, file), "\n") {
			f.Add([]byte(l))
		}
	}
	f.Add([]byte(`{"timestamp":"2026-01-01 00:00:00 UTC","pid":12,"error_severity":"LOG","message":"m"}`))
	f.Add([]byte(`{"severity":"INFO","message":"m","n":-1.5e+3,"b":true,"z":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc noticeScanner
		sc.text = func(b []byte) string { return string(b) }
		if scanFlat(b, &sc.scratch, sc.set) {
			var std Notice
			if err := json.Unmarshal(b, &std); err != nil || sc.nt != std {
				t.Fatalf("%q: scanned %+v; encoding/json %+v, %v", b, sc.nt, std, err)
			}
		}
		var text jsonText
		var std jsonRecord
		var scratch []byte
		if text.scan(b, &scratch) {
			fast := text.record()
			if err := json.Unmarshal(b, &std); err != nil || !reflect.DeepEqual(fast, std) {
				t.Fatalf("%q: scanned %+v; encoding/json %+v, %v", b, fast, std, err)
			}
		}
	})
}
