package vacuum

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// logFormats are the files of one capture (testdata/logformats): the
// server wrote the first three at once; the others are made from the
// stderr one (see its README).
var logFormats = []string{"log", "csv", "json", "syslog", "journal", "journal-iso"}

func readLogFixture(t *testing.T, path string) ([]Record, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, warns, err := Autovacuum(f, path)
	for _, w := range warns {
		t.Errorf("warning: %s", w)
	}
	return recs, err
}

// TestLogFormatFixtures compares each format's records with its golden
// file.
func TestLogFormatFixtures(t *testing.T) {
	var n int
	for _, ext := range logFormats {
		for _, f := range golden.Files(t, "logformats", "*-logformats."+ext) {
			n++
			t.Run(filepath.Base(f), func(t *testing.T) {
				recs, err := readLogFixture(t, f)
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, f, goldenRecords{Records: recs})
				checkRecords(t, recs, nil)
			})
		}
	}
	if n < 6*5+4 { // six versions in five formats, jsonlog from 15
		t.Errorf("%d fixtures; want 34", n)
	}
}

// TestLogFormatsAgree: every format of one capture gives the records the
// stderr log gives, field for field, but for the line they start on; and
// those records are the ones that matter: the autovacuum entries of t
// and VACUUM VERBOSE's, with their numbers.
func TestLogFormatsAgree(t *testing.T) {
	for _, stderr := range golden.Files(t, "logformats", "*-logformats.log") {
		base := strings.TrimSuffix(stderr, ".log")
		t.Run(filepath.Base(base), func(t *testing.T) {
			want, err := readLogFixture(t, stderr)
			if err != nil {
				t.Fatal(err)
			}
			checkCapture(t, want)
			for _, ext := range logFormats[1:] {
				if _, err := os.Stat(base + "." + ext); os.IsNotExist(err) && ext == "json" {
					continue // jsonlog is 15+
				}
				got, err := readLogFixture(t, base+"."+ext)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%s: %d records; the stderr log has %d", ext, len(got), len(want))
				}
				for i := range got {
					g, w := got[i], want[i]
					g.Line, w.Line = 0, 0
					if !reflect.DeepEqual(g, w) {
						t.Errorf("%s: record %d (line %d) differs from the stderr log's (line %d):\n got %+v\nwant %+v",
							ext, i, got[i].Line, want[i].Line, g, w)
					}
				}
			}
		})
	}
}

// checkCapture checks what every capture holds: autovacuum's vacuums of
// t, a VACUUM VERBOSE of t, each with its time and process, and numbers.
func checkCapture(t *testing.T, recs []Record) {
	t.Helper()
	var auto, manual int
	for _, r := range recs {
		if r.Table != "t" || r.Operation != "vacuum" {
			continue
		}
		if r.LogTime == "" || r.PID == "" || !r.PagesRemain.Valid || !r.TuplesRemoved.Valid {
			t.Errorf("record at line %d lacks its time, process or numbers: %+v", r.Line, r)
		}
		if r.Automatic {
			auto++
		} else {
			manual++
		}
	}
	if auto < 2 || manual != 1 {
		t.Errorf("%d automatic and %d manual vacuums of t; want 2 or more, and 1", auto, manual)
	}
}

// TestLogFormatEdges: what the captures do not show: a message ending in
// a newline, a record cut short, a syslog line the server split at a
// space, a log_line_prefix without time or process, journald reading the
// server's stderr, other programs' lines in a syslog file. The entries are
// real ones (15's, 16's) cut to their first lines and "system usage",
// which every entry has.
func TestLogFormatEdges(t *testing.T) {
	const entry = `automatic vacuum of table "postgres.public.t": index scans: 0`
	for _, tc := range []struct {
		name, in string
		time     string // of the one record
		pid      string
		scanned  int64
		warns    int
		err      string
	}{
		{name: "csvlog, message ending in a newline", in: `2026-11-29 19:38:55.048 UTC,,,21292,,6b0c7f4e.532c,1,,2026-11-29 19:38:54 UTC,111/23,0,LOG,00000,"automatic vacuum of table ""postgres.public.t"": index scans: 0
pages: 0 removed, 52 remain, 52 scanned (100.00% of total)
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
",,,,,,,,,"","autovacuum worker",,0
`, time: "2026-11-29 19:38:55.048 UTC", pid: "21292", scanned: 52},
		{name: "csvlog cut inside its last message: the record left out, with a warning", in: `2026-11-29 19:38:55.048 UTC,,,21292,,6b0c7f4e.532c,1,,2026-11-29 19:38:54 UTC,111/23,0,LOG,00000,"automatic vacuum of table ""postgres.public.t"": index scans: 0
pages: 0 removed, 52 remain, 52 scanned (100.00% of total)
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
",,,,,,,,,"","autovacuum worker",,0
2026-11-29 19:38:56.048 UTC,,,21292,,6b0c7f4e.532c,1,,2026-11-29 19:38:54 UTC,111/23,0,LOG,00000,"automatic vacuum of table ""postgres.public.u"": index scans: 0
pages: 0 removed, 3 remain, 3 scanned (100.00% of total)
`, time: "2026-11-29 19:38:55.048 UTC", pid: "21292", scanned: 52, warns: 1},
		{name: "jsonlog, last line cut short", in: `{"timestamp":"2026-12-04 20:14:34.269 UTC","pid":32415,"error_severity":"LOG","message":"automatic vacuum of table \"postgres.public.t\": index scans: 0\npages: 0 removed, 77 remain, 77 scanned (100.00% of total)\nsystem usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s"}
{"timestamp":"2026-12-04 20:14:35.001 UTC","pid":32415,"error_sev
`, time: "2026-12-04 20:14:34.269 UTC", pid: "32415", scanned: 77, warns: 1},
		{name: "jsonlog, 25 lines that are not records: 20 warnings and one counting the rest", in: `{"timestamp":"2026-12-04 20:14:34.269 UTC","pid":32415,"error_severity":"LOG","message":"automatic vacuum of table \"postgres.public.t\": index scans: 0\npages: 0 removed, 77 remain, 77 scanned (100.00% of total)\nsystem usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s"}
` + strings.Repeat("{\"timestamp\":\"x\"}\n", 25), time: "2026-12-04 20:14:34.269 UTC", pid: "32415", scanned: 77, warns: 21},
		{name: "syslog, a line split at a space, no time or process in log_line_prefix", in: `Dec  4 10:00:01 db1 postgres[123]: [5-1] LOG:  ` + entry + `
Dec  4 10:00:01 db1 postgres[123]: [5-2] #011pages: 0 removed, 45 remain,
Dec  4 10:00:01 db1 postgres[123]: [5-3]  45 scanned (100.00% of total)
Dec  4 10:00:01 db1 postgres[123]: [5-4] #011system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
Dec  4 10:00:02 db1 CRON[99]: (root) CMD (run-parts /etc/cron.hourly)
`, time: "Dec  4 10:00:01", pid: "123", scanned: 45},
		{name: "syslog_split_messages off: one syslog message, newlines as #012", in: `Dec  4 10:00:01 db1 postgres[123]: [5] LOG:  ` + entry + `#012#011pages: 0 removed, 45 remain, 45 scanned (100.00% of total)#012#011tuples: 0 removed, 900 remain, 0 are dead but not yet removable#012#011system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
`, time: "Dec  4 10:00:01", pid: "123", scanned: 45},
		{name: "journald reading the server's stderr", in: `Dec 04 10:00:01 db1 postgres[123]: 2026-12-04 10:00:01.250 UTC [123] LOG:  ` + entry + `
Dec 04 10:00:01 db1 postgres[123]: 	pages: 0 removed, 45 remain, 45 scanned (100.00% of total)
Dec 04 10:00:01 db1 postgres[123]: 	system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
`, time: "2026-12-04 10:00:01.250 UTC", pid: "123", scanned: 45},
		{name: "RFC 3339 with fractions and a colon in the offset", in: `2026-12-04T10:00:01.123456+00:00 db1 postgres[123]: [5-1] user=,db= LOG:  ` + entry + `
2026-12-04T10:00:01.123456+00:00 db1 postgres[123]: [5-2] #011pages: 0 removed, 45 remain, 45 scanned (100.00% of total)
2026-12-04T10:00:01.123456+00:00 db1 postgres[123]: [5-3] #011system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
`, time: "2026-12-04T10:00:01.123456+00:00", pid: "123", scanned: 45},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Autovacuum(strings.NewReader(tc.in), "x")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v; want %s", err, tc.err)
				}
				return
			}
			if err != nil || len(recs) != 1 || len(warns) != tc.warns {
				t.Fatalf("%d records, warnings %v, error %v; want 1 record, %d warnings", len(recs), warns, err, tc.warns)
			}
			r := recs[0]
			if r.LogTime != tc.time || r.PID != tc.pid || r.Line != 1 || !r.PagesScanned.Valid || r.PagesScanned.V != tc.scanned || !r.Automatic {
				t.Errorf("record %+v; want time %q, pid %q, line 1, %d pages scanned", r, tc.time, tc.pid, tc.scanned)
			}
		})
	}
}

// TestSyslogInterleaved: two autovacuum workers' entries whose syslog
// lines alternate are each read whole, in the order they started.
func TestSyslogInterleaved(t *testing.T) {
	in := `Dec  4 10:00:01 db1 postgres[123]: [5-1] LOG:  automatic vacuum of table "postgres.public.t": index scans: 0
Dec  4 10:00:01 db1 postgres[456]: [2-1] LOG:  automatic vacuum of table "postgres.public.u": index scans: 0
Dec  4 10:00:01 db1 postgres[123]: [5-2] #011pages: 0 removed, 45 remain, 45 scanned (100.00% of total)
Dec  4 10:00:02 db1 postgres[456]: [2-2] #011pages: 0 removed, 9 remain, 9 scanned (100.00% of total)
Dec  4 10:00:02 db1 postgres[456]: [2-3] #011tuples: 3 removed, 900 remain, 0 are dead but not yet removable
Dec  4 10:00:02 db1 postgres[123]: [5-3] #011system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
Dec  4 10:00:02 db1 postgres[456]: [2-4] #011system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
`
	recs, warns, err := Autovacuum(strings.NewReader(in), "x")
	if err != nil || len(warns) != 0 || len(recs) != 2 {
		t.Fatalf("%d records, %v, %v; want 2", len(recs), warns, err)
	}
	for i, want := range []struct {
		table, pid, time string
		line             int
		scanned          int64
	}{{"t", "123", "Dec  4 10:00:01", 1, 45}, {"u", "456", "Dec  4 10:00:01", 2, 9}} {
		r := recs[i]
		if r.Table != want.table || r.PID != want.pid || r.LogTime != want.time || r.Line != want.line || r.PagesScanned.V != want.scanned {
			t.Errorf("record %d: %s pid %s at %q line %d, %d scanned; want %+v", i, r.Table, r.PID, r.LogTime, r.Line, r.PagesScanned.V, want)
		}
	}
	if r := recs[1]; !r.TuplesRemoved.Valid || r.TuplesRemoved.V != 3 {
		t.Errorf("u: tuples removed %v; want 3", r.TuplesRemoved)
	}
}

// TestSyslogManyProcesses: more processes than the feed remembers the
// IDs of (maxPIDs), each entry's lines between the next one's: every
// entry is read whole, with its own process ID and figures.
func TestSyslogManyProcesses(t *testing.T) {
	const n = maxPIDs + 900
	var b strings.Builder
	line := func(pid, k int, text string) {
		fmt.Fprintf(&b, "Dec  4 10:00:01 db1 postgres[%d]: [7-%d] %s\n", pid, k, text)
	}
	for p := 1; p <= n; p++ {
		line(p, 1, fmt.Sprintf(`LOG:  automatic vacuum of table "postgres.public.t%d": index scans: 0`, p))
		if p > 1 {
			line(p-1, 3, "#011system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s")
		}
		line(p, 2, fmt.Sprintf("#011pages: 0 removed, %d remain, %d scanned (100.00%% of total)", p, p))
	}
	line(n, 3, "#011system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s")
	recs, warns, err := Autovacuum(strings.NewReader(b.String()), "x")
	if err != nil || len(warns) != 0 || len(recs) != n {
		t.Fatalf("%d records, %d warnings (%.3v), %v; want %d", len(recs), len(warns), warns, err, n)
	}
	for i, r := range recs {
		p := i + 1
		if r.PID != strconv.Itoa(p) || r.Table != fmt.Sprintf("t%d", p) || !r.PagesScanned.Valid || r.PagesScanned.V != int64(p) || !r.ElapsedS.Valid {
			t.Fatalf("record %d: pid %s, table %s, %v scanned, elapsed %v; want pid and table %d", i, r.PID, r.Table, r.PagesScanned, r.ElapsedS, p)
		}
	}
}

// TestSyslogMessagesApart: two autoanalyze entries whose lines
// interleave, each read whole with its own figures, where the syslog
// lines number them as a server with syslog_sequence_numbers off does
// ("[1] ", "[2] ": a chunk's number alone) and where the tag has no
// process ID; and a warning where two processes' messages of the same
// number interleave with no process ID to tell them apart (an outside
// tester found the first two read with each other's figures).
func TestSyslogMessagesApart(t *testing.T) {
	entry := func(tag, num, table string, k int) []string { return syslogEntry(tag, num, "", table, k) }
	cut := func(a []string, n int) string { return strings.Join(a[:n], "\n") + "\n" }
	interleave := func(a, b []string) string {
		return strings.Join(append(append([]string{a[0], b[0]}, a[1:]...), b[1:]...), "\n") + "\n"
	}
	for _, tc := range []struct {
		name string
		in   string
		warn string
	}{
		{"numbers off", interleave(entry("postgres[101]", "", "a", 1), entry("postgres[102]", "", "b", 2)), ""},
		{"numbers off, one-line messages between", "Dec  4 20:18:55 db1 postgres[100]: LOG:  checkpoint starting: time\n" +
			interleave(entry("postgres[101]", "", "a", 1), entry("postgres[102]", "", "b", 2)), ""},
		{"no process ID", interleave(entry("postgres", "7", "a", 1), entry("postgres", "9", "b", 2)), ""},
		{"no process ID, the same numbers", interleave(entry("postgres", "7", "a", 1), entry("postgres", "7", "b", 2)), "cannot be told apart"},
		{"numbers off, no process ID", interleave(entry("postgres", "", "a", 1), entry("postgres", "", "b", 2)), "cannot be told apart"},
		{"numbers off, prefix [%l-1]", "Dec  4 20:18:55 db1 postgres[100]: [3-1] LOG:  checkpoint starting: time\n" +
			interleave(syslogEntry("postgres[101]", "", "[5-1] ", "a", 1), syslogEntry("postgres[102]", "", "[7-1] ", "b", 2)), ""},
		{"numbers turned off", cut(entry("postgres[99]", "4", "c", 3), 4) +
			interleave(entry("postgres[101]", "", "a", 1), entry("postgres[102]", "", "b", 2)), "turned off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Autovacuum(strings.NewReader(tc.in), "x")
			if err != nil {
				t.Fatal(err)
			}
			if tc.warn != "" {
				if !slices.ContainsFunc(warns, func(w parse.Warning) bool { return strings.Contains(w.Msg, tc.warn) }) {
					t.Errorf("warnings %v; want one saying %q", warns, tc.warn)
				}
				return
			}
			if len(warns) != 0 || len(recs) != 2 {
				t.Fatalf("%d records, warnings %v; want 2 and none", len(recs), warns)
			}
			for i, want := range []struct {
				table   string
				hits    int64
				elapsed float64
			}{{"a", 111, 0.01}, {"b", 222, 0.02}} {
				r := recs[i]
				if r.Table != want.table || r.BufferHits.V != want.hits || r.ElapsedS.V != want.elapsed {
					t.Errorf("record %d: table %s, %v hits, elapsed %v; want %+v", i, r.Table, r.BufferHits, r.ElapsedS, want)
				}
			}
		})
	}
}

// TestJSONScan: the jsonlog scanner reads every line of the real jsonlogs
// (and a few of other shapes) as encoding/json does, or says it cannot.
func TestJSONScan(t *testing.T) {
	lines := []string{
		`{"timestamp":"t","pid":1,"error_severity":"LOG","message":"a \"q\" \\ \/ \b\f\r\n\tz"}`,
		`{"timestamp":"t","pid":1,"error_severity":"LOG","message":"caf\u00e9"}`, // \u: encoding/json reads it
		`{"timestamp":"t","pid":"1","error_severity":"LOG","message":"m"}`,       // a string pid: refused by both
		`{"timestamp":"t","pid":1,"error_severity":"LOG","message":"m"`,
		`{"timestamp":"t", "pid":1}`,
		`{}`,
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "logformats", "*.json"))
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSpace(string(b)), "\n")...)
	}
	if len(lines) < 100 {
		t.Fatalf("%d lines; the fixtures are missing", len(lines))
	}
	scanned := 0
	for _, l := range lines {
		var text jsonText
		var std jsonRecord
		var scratch []byte
		if !text.scan([]byte(l), &scratch) {
			continue
		}
		fast := text.record()
		scanned++
		if err := json.Unmarshal([]byte(l), &std); err != nil || !reflect.DeepEqual(fast, std) {
			t.Errorf("%.80s: scanned %+v; encoding/json %+v, %v", l, fast, std, err)
		}
	}
	if scanned < len(lines)-5 {
		t.Errorf("scanned %d of %d lines", scanned, len(lines))
	}
}

// record is r as encoding/json would read its line.
func (r *jsonText) record() jsonRecord {
	rec := jsonRecord{Timestamp: string(r.timestamp), Severity: string(r.severity),
		Message: string(r.message), Detail: string(r.detail), Hint: string(r.hint),
		InternalQuery: string(r.internalQuery), Context: string(r.context), Statement: string(r.statement)}
	if r.hasPID {
		rec.PID = &r.pid
	}
	return rec
}

// TestLeadingNULs: a log that starts with a block of NULs (a crash just
// after it was rotated, then the restarted server's lines) gives the
// records of the log without them, in every format, and one warning that
// names their size at line 1.
func TestLeadingNULs(t *testing.T) {
	for _, ext := range logFormats {
		f := "testdata/logformats/pg17-logformats." + ext
		want, err := readLogFixture(t, f)
		if err != nil {
			t.Fatal(err)
		}
		in := append(make([]byte, 100<<10), golden.Text(t, f)...)
		got, warns, err := Autovacuum(bytes.NewReader(in), "x."+ext)
		if err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		if len(warns) != 1 || warns[0].Line != 1 || !strings.HasPrefix(warns[0].Msg, "102400 bytes of binary data (NULs") {
			t.Errorf("%s: warnings %v; want one, of 102400 NULs at line 1", ext, warns)
		}
		for i := range want {
			want[i].Line, got[i].Line = 0, 0 // line 1 is the same line
		}
		if len(got) != len(want) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d records, want %d, or they differ", ext, len(got), len(want))
		}
	}
}

// TestLogProcessIDs: a jsonlog or csvlog record whose process ID is
// missing or not a number is left out with a warning that says so: not
// read as process 0, not called "not a record".
func TestLogProcessIDs(t *testing.T) {
	jsonLine := func(pid string) string {
		return `{"timestamp":"2026-12-04 20:14:34.269 UTC",` + pid + `"error_severity":"LOG","message":"automatic vacuum of table \"postgres.public.t\": index scans: 0\npages: 0 removed, 77 remain, 77 scanned (100.00% of total)\nsystem usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s"}` + "\n"
	}
	// A record after one of the server's, its process ID pid.
	csvLines := func(pid string) string {
		return `2026-11-29 19:38:54.048 UTC,,,5289,,6b13202f.14a9,1,,2026-11-29 19:38:54 UTC,,0,LOG,00000,"starting PostgreSQL 17.10",,,,,,,,,"","postmaster",,0
2026-11-29 19:38:55.048 UTC,,,` + pid + `,,6b0c7f4e.532c,1,,2026-11-29 19:38:54 UTC,111/23,0,LOG,00000,"automatic vacuum of table ""postgres.public.t"": index scans: 0
pages: 0 removed, 52 remain, 52 scanned (100.00% of total)
system usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s
",,,,,,,,,"","autovacuum worker",,0
`
	}
	for _, tc := range []struct{ name, in, warn string }{
		{"jsonlog pid", jsonLine(`"pid":5342,`), ""},
		{"jsonlog without pid", jsonLine(""), "a jsonlog record without its process ID (pid missing or null): left out"},
		{"jsonlog pid null", jsonLine(`"pid":null,`), "a jsonlog record without its process ID (pid missing or null): left out"},
		{"jsonlog pid a string", jsonLine(`"pid":"5342",`), "a jsonlog record whose pid is a JSON string, where jsonlog writes an integer: left out"},
		{"jsonlog pid a fraction", jsonLine(`"pid":5342.5,`), "a jsonlog record whose pid is a JSON number 5342.5, where jsonlog writes an integer: left out"},
		{"jsonlog pid negative", jsonLine(`"pid":-5342,`), "a jsonlog record whose pid is -5342, not a process ID (a positive integer): left out"},
		{"jsonlog pid 0", jsonLine(`"pid":0,`), "a jsonlog record whose pid is 0, not a process ID (a positive integer): left out"},
		{"csvlog pid not a number (after a record)", csvLines("53x2"), `a csvlog record whose process ID (its 4th column) is "53x2", not a process ID (a positive integer): left out`},
		{"csvlog pid 0 (after a record)", csvLines("0"), `a csvlog record whose process ID (its 4th column) is "0", not a process ID (a positive integer): left out`},
	} {
		recs, warns, err := Autovacuum(strings.NewReader(tc.in), "x")
		switch {
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.warn == "" && (len(recs) != 1 || recs[0].PID != "5342" || len(warns) != 0):
			t.Errorf("%s: %d records, warnings %v", tc.name, len(recs), warns)
		case tc.warn != "" && (len(recs) != 0 || len(warns) != 1 || warns[0].Msg != tc.warn):
			t.Errorf("%s: %d records, warnings %v; want %q", tc.name, len(recs), warns, tc.warn)
		}
	}
}

// TestJSONLogBroken: a jsonlog line with a raw control character in a
// value, or a record a raw line break cut in two, is left out saying
// which: jsonlog escapes them, so the log was rewritten.
func TestJSONLogBroken(t *testing.T) {
	line := `{"timestamp":"2026-12-04 20:14:34.269 UTC","pid":5342,"error_severity":"LOG","message":"automatic vacuum of table \"postgres.public.t\": index scans: 0\npages: 0 removed, 77 remain, 77 scanned (100.00% of total)\nsystem usage: CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.01 s"}`
	for _, tc := range []struct {
		name, in string
		warns    []string
	}{
		{"a raw tab", strings.Replace(line, "index scans", "index\tscans", 1), []string{"a raw control character (byte 0x09) inside a value at byte 143"}},
		{"a raw line break", strings.Replace(line, `\npages`, "\r\npages", 1), []string{"an object not ended on its line", "the end of an object without its start"}},
	} {
		recs, warns, err := Autovacuum(strings.NewReader(tc.in+"\n"+line+"\n"), "x")
		if err != nil || len(recs) != 1 || len(warns) != len(tc.warns) {
			t.Errorf("%s: %d records, warnings %v, error %v; want the record after it, and %q", tc.name, len(recs), warns, err, tc.warns)
			continue
		}
		for k, w := range tc.warns {
			if !strings.HasPrefix(warns[k].Msg, "not a jsonlog record") || !strings.Contains(warns[k].Msg, w) || warns[k].Line != k+1 {
				t.Errorf("%s: warning %d %v, want line %d: ...%s", tc.name, k, warns[k], k+1, w)
			}
		}
	}
}

// TestJSONLogRewritten: a jsonlog that a log shipper rewrote, its keys in
// another order (sorted: the timestamp no longer first), with or without
// blanks after its colons and commas, gives the records of the server's
// own lines.
func TestJSONLogRewritten(t *testing.T) {
	f := "testdata/logformats/pg17-logformats.json"
	want, err := readLogFixture(t, f)
	if err != nil || len(want) == 0 {
		t.Fatal(len(want), err)
	}
	lines := strings.Split(strings.TrimSpace(golden.Text(t, f)), "\n")
	for _, sep := range []string{":", ": "} {
		var b strings.Builder
		for _, l := range lines {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			keys := slices.Sorted(maps.Keys(m))
			pairs := make([]string, len(keys))
			for i, k := range keys {
				pairs[i] = strconv.Quote(k) + sep + string(m[k])
			}
			b.WriteString("{" + strings.Join(pairs, ","+sep[1:]) + "}\n")
		}
		got, warns, err := Autovacuum(strings.NewReader(b.String()), "x.json")
		if err != nil || len(warns) > 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("keys sorted, %q after a key: %d records (want %d), warnings %v, %v", sep, len(got), len(want), warns, err)
		}
	}
}

// TestSyslogBlankLines: a blank or blanks-only line amid a syslog's or a
// journal's lines (a line no logger writes: each has its prefix) is not
// part of an entry and does not cut one: the records are those of the
// log without it, every figure read.
func TestSyslogBlankLines(t *testing.T) {
	for _, f := range []string{"pg17-logformats.syslog", "pg17-logformats.journal", "pg17-logformats.journal-iso"} {
		text, want := logFixture(t, f)
		var b strings.Builder
		for _, l := range strings.SplitAfter(text, "\n") {
			b.WriteString(l)
			if strings.Contains(l, "tuples:") {
				b.WriteString("\n   \n")
			}
		}
		got, warns, err := Autovacuum(strings.NewReader(b.String()), f)
		if err != nil || len(got) != len(want) || len(warns) != 0 {
			t.Errorf("%s with blank lines: %d records (want %d), warnings %v, %v", f, len(got), len(want), warns, err)
			continue
		}
		for i := range got {
			g, w := got[i], want[i]
			g.Line, w.Line = 0, 0
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s record %d: %+v\nwant %+v", f, i, g, w)
			}
		}
	}
}

// syslogEntry is an autoanalyze entry of four lines, as rsyslog writes a
// server's message with tag (postgres[123]), its lines numbered
// "[num-1] ", "[num-2] ", ..., or without num "[1] ", "[2] ", ...; the
// first line after the server's prefix; k makes its figures.
func syslogEntry(tag, num, prefix, table string, k int) []string {
	var n [4]string
	for c := range n {
		n[c] = fmt.Sprintf("[%d] ", c+1)
		if num != "" {
			n[c] = fmt.Sprintf("[%s-%d] ", num, c+1)
		}
	}
	head := "Dec  4 20:18:56 db1 " + tag + ": "
	return []string{
		head + n[0] + prefix + `LOG:  automatic analyze of table "postgres.public.` + table + `"`,
		head + n[1] + fmt.Sprintf("#011avg read rate: %d.000 MB/s, avg write rate: %d.000 MB/s", k, k),
		head + n[2] + fmt.Sprintf("#011buffer usage: %d hits, %d misses, %d dirtied", 111*k, 11*k, k),
		head + n[3] + fmt.Sprintf("#011system usage: CPU: user: 0.0%d s, system: 0.0%d s, elapsed: 0.0%d s", k, k, k),
	}
}

// TestSyslogContinued: the lines that tell a "[2] " chunk, without
// sequence numbers, from a second message's "[2] ".
func TestSyslogContinued(t *testing.T) {
	for text, want := range map[string]bool{
		"#011pages: 0 removed":                                                    true,
		"\tpages: 0 removed":                                                      true,
		" the rest of a long line":                                                true,
		"DETAIL:  0 dead row versions":                                            true,
		"2026-12-04 20:19:00.557 UTC [5397] DETAIL:  0 dead":                      true,
		"2026-12-04 20:19:00.557 UTC [5397] STATEMENT:  vacuum t":                 true,
		"LOG:  checkpoint starting: time":                                         false,
		"2026-12-04 20:19:00.557 UTC [5397] LOG:  statement: select 'DETAIL:  x'": false,
		"2026-12-04 20:19:00.557 UTC [5397]XDETAIL:  x":                           false,
		"": false,
	} {
		if got := continued([]byte(text)); got != want {
			t.Errorf("continued(%q) = %v; want %v", text, got, want)
		}
	}
}
