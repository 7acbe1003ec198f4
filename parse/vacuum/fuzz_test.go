package vacuum

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// fuzzSeeds are inputs of vacuum_test.go and autovacuum_test.go that
// the fuzz targets start from, besides the fixtures.
var fuzzSeeds = []string{
	"", "\n", "\x00", "INFO:  vacuuming \"public.t\"\n", explainPsql,
	pg17Finished, pg18Finished, pg13ThreePasses, pg14Truncated, pg15Truncated, pg14Bypassed, pg15Bypassed,
	pg13NoIndex, pg13Inheritance, pg18Analyze, pg18Special, pg15VerboseFile, pg13Quiet,
	pg13WraparoundLog, pg17CancelLog, pg16VerboseLog, pg15BrokenLog,
	"INFO:  vacuuming \"a.b.c.d\"\nINFO:  finished vacuuming \"a.b.c.d\": index scans: -1\npages: 5 removed, -9 remain, 1 scanned (1% of total)\n",
	"INFO:  vacuuming \"0\"\nINFO:  index \"\" now contains 0 row versions in 0 pages",
	"INFO:  \"t\": truncated 10 to 20 pages\nINFO:  vacuuming \"s.t\"\nINFO:  \"t\": truncated 10 to 2 pages\nINFO:  \"t\": found 1 removable, 1 nonremovable row versions in 9 out of 9 pages\n",
	// Names with dots and quotes, a message naming more than the record,
	// numbers beyond an int64, repeated lines and steps.
	"INFO:  vacuuming \"a.b.c.d\"\nINFO:  \"c.d\": found 1 removable, 1 nonremovable row versions in 9 out of 9 pages\nINFO:  table \"d\": truncated 9 to 2 pages\n",
	"INFO:  vacuuming \"t\"\nINFO:  \"public.t\": truncated 5 to 1 pages\nINFO:  \"x.public.t\": truncated 1 to 0 pages\n",
	"INFO:  vacuuming \"s.t\"x\"\nINFO:  \"t\"x\": removed 18446744073709551615 row versions in 9223372036854775807 pages\nINFO:  \"t\"x\": removed 9223372036854775807 row versions in 1 pages\n",
	"LOG:  automatic vacuum of table \"d.s.t\": index scans: 99999999999999999999\n\tWAL usage: 1 records, 1 full page images, 18446744073709551615 bytes\n\tWAL usage: 2 records, 2 full page images, 2 bytes\n",
}

// FuzzParse checks Parse's results on any input (see checkResult), that
// a second read gives the same, that ParseSeq gives the same (see
// checkSeqMatches), and Notices' results on the same lines made into
// notices.
func FuzzParse(f *testing.F) {
	for _, file := range append(golden.Files(f, "verbose", "*.psql.txt"), golden.Files(f, "verbose", "*.notices.jsonl")...) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const source = "fuzz.txt"
		lines := bytes.Count(in, []byte("\n")) + 1
		recs, warns, err := checkSeqOf(t, Parse, ParseSeq, in, source)
		checkResult(t, source, lines, true, recs, warns, err)
		again, warns2, err2 := Parse(bytes.NewReader(in), source)
		if !reflect.DeepEqual(recs, again) || !reflect.DeepEqual(warns, warns2) || (err == nil) != (err2 == nil) {
			t.Fatalf("a second read differs")
		}

		// The same lines as notices: a notice a message, DETAIL lines as
		// its detail, the other lines continuing the message or detail.
		ns := toNotices(string(in))
		recs, warns, err = Notices(ns, source)
		checkResult(t, source, len(ns), true, recs, warns, err)
	})
}

// checkResult checks a parser's result: a *parse.SyntaxError naming the
// source and a line within the input, or records (at least one when
// needRecords) and warnings that hold what checkRecords checks and
// name lines within the input.
func checkResult(t *testing.T, source string, lines int, needRecords bool, recs []Record, warns []parse.Warning, err error) {
	t.Helper()
	if err != nil {
		var se *parse.SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("error %T %v, want *SyntaxError", err, err)
		}
		if se.Source != source || se.Line < 0 || se.Line > lines || !strings.HasPrefix(err.Error(), source+":") {
			t.Fatalf("bad error %#v (%d lines)", se, lines)
		}
		if recs != nil || warns != nil {
			t.Fatalf("records or warnings with an error")
		}
		return
	}
	if needRecords && len(recs) == 0 {
		t.Fatalf("no records and no error")
	}
	checkRecords(t, recs, warns)
	for _, r := range recs {
		if r.Line > lines {
			t.Fatalf("record at line %d of %d", r.Line, lines)
		}
	}
	for _, w := range warns {
		if w.Source != source || (w.Line < 1 && w.Msg != emptyLog) || w.Line > lines || w.Msg == "" {
			t.Fatalf("bad warning %#v (%d lines)", w, lines)
		}
	}
}

// toNotices turns psql's output into the notices psql printed: a
// message label starts a notice, DETAIL its detail, and the lines after
// continue them.
func toNotices(s string) []Notice {
	var out []Notice
	var msg, detail []string
	end := func() {
		if len(out) > 0 {
			n := &out[len(out)-1]
			n.Message, n.Detail = strings.Join(msg, "\n"), strings.Join(detail, "\n")
		}
		msg, detail = msg[:0], detail[:0]
	}
	inDetail := false
	for _, l := range strings.Split(s, "\n") {
		if label, text, ok := splitLabel(stripLocation(l)); ok {
			switch label {
			case "DETAIL":
				if len(out) > 0 {
					detail, inDetail = append(detail[:0], text), true
					continue
				}
			case "HINT", "CONTEXT", "LOCATION", "STATEMENT", "QUERY":
				inDetail = false
				continue
			}
			end()
			out = append(out, Notice{Severity: label})
			msg, inDetail = append(msg, text), false
			continue
		}
		switch {
		case len(out) == 0:
		case inDetail:
			detail = append(detail, l)
		default:
			msg = append(msg, l)
		}
	}
	end()
	return out
}
