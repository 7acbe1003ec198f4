package vacuum

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

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
