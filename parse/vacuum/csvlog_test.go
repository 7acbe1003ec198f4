package vacuum

import (
	"encoding/csv"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// TestCSVLogShortRecord: a csvlog record cut short (20 columns of a
// server's 26) is a warning naming its line, not a record that vanishes
// without a word; the whole records beside it are still read.
func TestCSVLogShortRecord(t *testing.T) {
	text, records := logFixture(t, "pg17-logformats.csv")
	short := "2024-05-01 10:00:00.123 UTC,,,1234,,66321a.4d2,1,,2024-05-01 09:59:57 UTC,3/17,0,LOG,00000,\"automatic vacuum of table \"\"bench.public.t\"\": index scans: 0\",,,,,,\n"
	got, warns, err := Autovacuum(strings.NewReader(short+text), "cut.csv")
	if err != nil || len(got) != len(records) {
		t.Fatalf("with a short record first: %d records (want %d), %v", len(got), len(records), err)
	}
	if len(warns) == 0 || warns[0].Line != 1 || !strings.Contains(warns[0].Msg, "a csvlog record of 20 columns; expected at least 23") {
		t.Errorf("warnings %v, want the short record at line 1", warns)
	}
}

// logFixture is the text of a server log of testdata/logformats
// ("pg16-logformats.csv") and its records.
func logFixture(t *testing.T, name string) (string, []Record) {
	t.Helper()
	path := filepath.Join("testdata", "logformats", name)
	records, err := readLogFixture(t, path)
	if err != nil || len(records) == 0 {
		t.Fatalf("the whole log: %d records, %v", len(records), err)
	}
	return golden.Text(t, path), records
}

// TestCSVLogUnendedQuote: a record whose quoted field never ends (cut
// short, a quote lost) is left out with a warning naming its own line and
// the next record's, and every record after it is read: before, it took
// the records after it with it, and the error named a line further on.
func TestCSVLogUnendedQuote(t *testing.T) {
	text, records := logFixture(t, "pg16-logformats.csv")
	lines := strings.SplitAfter(text, "\n")
	cut := "2026-11-29 19:55:44.123 UTC,,,999,,1,,2026-11-29 19:55:44 UTC,,0,LOG,00000,\"a message cut short\n"
	in := strings.Join(lines[:3], "") + cut + strings.Join(lines[3:], "")
	got, warns, err := Autovacuum(strings.NewReader(in), "cut.csv")
	if err != nil || len(got) != len(records) {
		t.Fatalf("with a record cut short at line 4: %d records (want %d), %v", len(got), len(records), err)
	}
	for i := range got {
		if got[i].Table != records[i].Table || got[i].Line != records[i].Line+1 {
			t.Errorf("record %d: %s at line %d; want %s at %d", i, got[i].Table, got[i].Line, records[i].Table, records[i].Line+1)
		}
	}
	if len(warns) != 1 || warns[0].Line != 4 || !strings.Contains(warns[0].Msg, "does not end before the next record, at line 5: left out") {
		t.Errorf("warnings %v; want the record at line 4 left out", warns)
	}
	// At the end of the log (one still being written), it is left out
	// too, with a warning at its line, as a jsonlog's last line cut short.
	got, warns, err = Autovacuum(strings.NewReader(text+cut), "end.csv")
	if err != nil || len(got) != len(records) || len(warns) != 1 || warns[0].Line != len(lines) || !strings.Contains(warns[0].Msg, "does not end before the end of the log") {
		t.Errorf("cut short at the end: %d records, warnings %v, error %v; want %d records and the record at line %d left out", len(got), warns, err, len(records), len(lines))
	}
}

// TestCSVLogRecordShapedLine: a record whose quoted statement holds a
// line shaped like a csv record's start (a logged INSERT of csv text)
// is read whole, without a warning: only a line that goes on to the
// message, with a severity, is taken for the next record's start.
func TestCSVLogRecordShapedLine(t *testing.T) {
	text, records := logFixture(t, "pg16-logformats.csv")
	lines := strings.SplitAfter(text, "\n")
	// Lines of csvlog quoted in a statement (found by an outside tester:
	// the last, whole by its quotes and with a capital severity, was
	// taken for a record after one cut short).
	logged := "2026-11-29 19:55:44.123 UTC,postgres,postgres,999,[local],1,INSERT,2026-11-29 19:55:44 UTC,3/1,0,LOG,00000,\"statement: insert into t values ('\n" +
		"2024-05-01 12:00:00.123 UTC,x,y,123,z\n" +
		"2024-05-01 12:00:01.000 UTC,a,b,456,,,,,,,,LOG\n" +
		"2024-05-01 12:00:02.000 UTC,,,5342,,1,,,,,,LOG,00000,\"\"automatic vacuum of table \"\"\"\"postgres.public.x\"\"\"\": index scans: 0\n" +
		"')\",,,,,,,,,\"psql\",\"client backend\",,0\n"
	in := strings.Join(lines[:3], "") + logged + strings.Join(lines[3:], "")
	got, warns, err := Autovacuum(strings.NewReader(in), "logged.csv")
	if err != nil || len(got) != len(records) || len(warns) != 0 {
		t.Fatalf("with a logged csv text at line 4: %d records (want %d), warnings %v, %v", len(got), len(records), warns, err)
	}
	for i := range got {
		if got[i].Table != records[i].Table || got[i].Line != records[i].Line+5 {
			t.Errorf("record %d: %s at line %d; want %s at %d", i, got[i].Table, got[i].Line, records[i].Table, records[i].Line+5)
		}
	}
}

// TestCSVLogLongRecord: a csvlog record longer than parse.MaxLine that
// spans lines (a statement logged whole) is left out with a warning as it
// is read, in the memory of a line, and the records after it are read;
// one whose quote never closes is left out at the end of the log.
func TestCSVLogLongRecord(t *testing.T) {
	text, records := logFixture(t, "pg16-logformats.csv")
	n := strings.Count(text, "\n")
	long := "2026-11-29 19:55:44.123 UTC,,,999,,1,,2026-11-29 19:55:44 UTC,,0,LOG,00000,\"statement: select\n" +
		strings.Repeat("'ab\"\"' ||\n", (parse.MaxLine+(1<<20))/10) + "1\",,,,,,,,,\"\",\"client backend\",,0\n"
	in := io.MultiReader(strings.NewReader(text), strings.NewReader(long), strings.NewReader(text))
	got, warns, err := Autovacuum(in, "long.csv")
	if err != nil || len(got) != 2*len(records) {
		t.Fatalf("%d records, %v; want %d", len(got), err, 2*len(records))
	}
	if len(warns) != 1 || warns[0].Line != n+1 || !strings.HasPrefix(warns[0].Msg, "a csvlog record of 68") || !strings.HasSuffix(warns[0].Msg, "bytes, longer than 64 MiB: left out") {
		t.Errorf("warnings %v; want the record at line %d left out", warns, n+1)
	}
	if got[len(records)].Line != n+strings.Count(long, "\n")+records[0].Line {
		t.Errorf("the first record after it at line %d", got[len(records)].Line)
	}
	// A quote that never closes: left out at the end, whatever is read.
	open := io.MultiReader(strings.NewReader(text+"2026-11-29 19:55:44.123 UTC,,,999,,1,,2026-11-29 19:55:44 UTC,,0,LOG,00000,\"x\n"),
		io.LimitReader(parsetest.Repeat([]byte("pages: 0 removed\n"), 1<<30), 80<<20))
	got, warns, err = Autovacuum(open, "open.csv")
	if err != nil || len(got) != len(records) || len(warns) != 1 || !strings.Contains(warns[0].Msg, "does not end before the end of the log") {
		t.Errorf("a quote never closed: %d records, warnings %v, %v", len(got), warns, err)
	}
}

// TestLogCutInsideRecord: a real log whose start was cut off inside a
// record (tail -c of a csvlog, in the middle of a multi-line message; a
// jsonlog or syslog line cut in two) gives the records of the whole
// records after the cut, as the uncut log does, and one warning naming
// the first line left out; it was refused whole (csvlog, jsonlog) or
// read as a stderr log (syslog).
func TestLogCutInsideRecord(t *testing.T) {
	for _, name := range []string{"pg16-logformats.csv", "pg16-logformats.json", "pg16-logformats.syslog", "pg16-logformats.log"} {
		t.Run(name, func(t *testing.T) {
			text, whole := logFixture(t, name)
			if len(whole) < 2 {
				t.Fatalf("the whole log: %d records", len(whole))
			}
			// Cut 40 bytes into the line after the first record's line:
			// inside that record (csvlog), or inside a line.
			lines := strings.SplitAfter(text, "\n")
			at := len(strings.Join(lines[:whole[0].Line], "")) + 40
			cut := text[at:]
			got, warns, err := Autovacuum(strings.NewReader(cut), name)
			if err != nil {
				t.Fatalf("cut: %v", err)
			}
			after := 0 // the records that start after the line cut
			for _, r := range whole {
				if r.Line > whole[0].Line+1 {
					after++
				}
			}
			if after == 0 || len(got) < after || got[len(got)-1].Table != whole[len(whole)-1].Table {
				t.Errorf("cut: %d records; want the %d that start after the cut", len(got), after)
			}
			if name != "pg16-logformats.log" && (len(warns) == 0 || warns[0].Line != 1 || !strings.Contains(warns[0].Msg, "the log starts inside a record")) {
				t.Errorf("warnings %v; want line 1 named as the rest of a record", warns)
			}
		})
	}
}

// FuzzCSVFieldsSplit holds split to encoding/csv on one record of valid
// CSV: the same columns, and each column's line the one its text starts on.
func FuzzCSVFieldsSplit(f *testing.F) {
	for _, s := range []string{
		`a,b,c`,
		`2026-11-29 19:38:55.048 UTC,,,21292,,6b0c7f4e.532c,1,,,111/23,0,LOG,00000,"automatic vacuum of table ""postgres.public.t"": index scans: 0
pages: 0 removed",,,,,,,,`,
		`"",x,""""`,
		`"a""b""c","d
e
f",g`,
		`"""",""""""`,
		`,,`,
		`"x,y",z`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\r") || s == "" || s[0] == '\n' || strings.HasSuffix(s, "\n") {
			return // encoding/csv turns \r\n into \n and skips empty lines
		}
		r := csv.NewReader(strings.NewReader(s))
		r.FieldsPerRecord = -1
		want, err := r.Read()
		if err != nil {
			return
		}
		if _, err := r.Read(); err != io.EOF {
			return // more than one record
		}
		var fs csvFields
		fs.split([]byte(s))
		if len(fs.cols) != len(want) {
			t.Fatalf("%q: %d columns; encoding/csv %d: %q", s, len(fs.cols), len(want), want)
		}
		line := 0
		for i, c := range fs.cols {
			if string(c) != want[i] {
				t.Fatalf("%q: column %d %q; encoding/csv %q", s, i, c, want[i])
			}
			if fs.lines[i] != line {
				t.Fatalf("%q: column %d on line %d, want %d", s, i, fs.lines[i], line)
			}
			line += strings.Count(want[i], "\n")
		}
	})
}
