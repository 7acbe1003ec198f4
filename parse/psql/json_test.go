package psql

import (
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/internal/jsonw"
)

func checkAppendJSON(t *testing.T, r *Record) {
	t.Helper()
	want, ok := golden.EncodingJSON(r)
	got, err := r.AppendJSON([]byte("x"))
	switch {
	case !ok && err != jsonw.ErrUnsupported:
		t.Errorf("encoding/json fails, AppendJSON gives %s, %v", got, err)
	case ok && (err != nil || string(got) != "x"+want):
		t.Errorf("AppendJSON:\n%s (%v)\nencoding/json:\nx%s", got, err, want)
	}
}

// records is every record of a fixture's Output, as ParseSeq would hand
// them out (those Streams read too: their messages from stderr).
func records(out *Output) []Record {
	var recs []Record
	for k := range out.Statements {
		recs = append(recs, Record{Kind: KindStatement, Statement: &out.Statements[k]})
	}
	for k := range out.Meta {
		recs = append(recs, Record{Kind: KindMeta, Meta: &out.Meta[k]})
	}
	for k := range out.Messages {
		recs = append(recs, Record{Kind: KindMessage, Message: &out.Messages[k]})
	}
	for k := range out.Markers {
		recs = append(recs, Record{Kind: KindMarker, Marker: &out.Markers[k]})
	}
	return recs
}

// TestAppendJSON: every record of every fixture (tables of each format,
// messages with every field, meta-commands, markers) is written byte for
// byte as encoding/json writes it.
func TestAppendJSON(t *testing.T) {
	if errRecordJSON != nil {
		t.Fatal(errRecordJSON)
	}
	kinds := map[Kind]int{}
	for _, f := range fixtureFiles(t) {
		out, _, err := parseFixture(t, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records(out) {
			checkAppendJSON(t, &r)
			kinds[r.Kind]++
		}
	}
	// No fixture has a message tied to no statement: psql's own, with
	// every field, and a server's with VERBOSITY verbose's.
	for r, err := range ParseSeq(strings.NewReader(topMessages), "in", nil) {
		if err != nil {
			t.Fatal(err)
		}
		checkAppendJSON(t, &r)
		kinds[r.Kind]++
	}
	if kinds[KindStatement] < 80 || kinds[KindMeta] < 30 || kinds[KindMessage] < 2 || kinds[KindMarker] < 10 {
		t.Errorf("records of each kind: %v; want the fixtures' (over 80 statements, 30 meta, 2 messages, 10 markers)", kinds)
	}
	t.Logf("records: %v", kinds)
}

// topMessages has messages tied to no statement (psql's), and a
// server's with VERBOSITY verbose's fields and an error's position.
const topMessages = `psql:x.sql:3: error: invalid command \\foo
ERROR:  23505: duplicate key value violates unique constraint "t_pkey"
DETAIL:  Key (a)=(1) already exists.
HINT:  <none> & "quoted"
SCHEMA NAME:  public
TABLE NAME:  t
CONSTRAINT NAME:  t_pkey
LOCATION:  _bt_check_unique, nbtinsert.c:666
Timing is on.
select x y;
ERROR:  syntax error at or near "y"
LINE 1: select x y;
                 ^
Time: 0.5 ms
psql: error: connection to server on socket "/tmp/.s.PGSQL.5432" failed: No such file or directory
	Is the server running locally and accepting connections on that socket?
`

// FuzzAppendJSON: the records of any input are written as encoding/json
// writes them.
func FuzzAppendJSON(f *testing.F) {
	for _, fx := range fixtureFiles(f) {
		b, err := os.ReadFile(fx)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		for r, err := range ParseSeq(strings.NewReader(in), "in", nil) {
			if err == nil {
				checkAppendJSON(t, &r)
			}
		}
	})
}
