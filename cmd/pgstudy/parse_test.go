package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/diskstats"
	"github.com/pgstudy/pgstudy/parse/vacuum"

	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// TestParseCommand runs `pgstudy parse` on real fixtures of every kind.
func TestParseCommand(t *testing.T) {
	fixture := func(glob string) string {
		files, _ := filepath.Glob(filepath.Join("../../parse", glob))
		if len(files) == 0 {
			t.Fatalf("no fixture %s", glob)
		}
		return files[0]
	}
	for _, tc := range []struct {
		kind, file string
		want       string // a value the records must hold
	}{
		{"vacuum", fixture("vacuum/testdata/verbose/pg18-vacuum-verbose.psql.txt"), `"buffer_reads"`},
		{"vacuum", fixture("vacuum/testdata/verbose/pg17-vacuum-verbose.psql.txt"), `"buffer_misses"`},
		{"vacuum-notices", fixture("vacuum/testdata/verbose/pg13-vacuum-verbose.notices.jsonl"), `"table": "t"`},
		{"autovacuum-log", fixture("vacuum/testdata/autovacuum/pg16-autovacuum.log"), `"automatic": true`},
		{"explain", fixture("explain/testdata/pg18-bitmap-heapscan-io.json"), `"shape": "Aggregate > Bitmap Heap Scan on`},
		{"explain", fixture("explain/testdata/pg18-bitmap-heapscan-io.txt"), `"shape": "Aggregate > Bitmap Heap Scan on`},
		{"diskstats", fixture("diskstats/testdata/linux-6.18.txt"), `"read_sectors"`},
		{"cgroup-blkio", fixture("cgroupio/testdata/v1/dd-io_service_bytes.txt"), `"total"`},
		{"cgroup-io.stat", fixture("cgroupio/testdata/v2/kernel-doc.txt"), `"rbytes"`},
		{"pgbench", fixture("pgbench/testdata/tpcb.stdout.txt"), `"tps"`},
		{"sysbench", fixture("sysbench/testdata/*.txt"), `"qps`},
		{"psql", fixture("psql/testdata/pg17-session.txt"), `"time_ms"`},
	} {
		code, stdout, stderr := runInProcess("parse", tc.kind, tc.file)
		if code != 0 {
			t.Errorf("parse %s %s: exit %d: %s", tc.kind, tc.file, code, stderr)
			continue
		}
		var doc []map[string]any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc) != 1 || doc[0]["file"] != tc.file {
			t.Errorf("parse %s: not one result for %s: %v\n%.300s", tc.kind, tc.file, err, stdout)
		}
		if !strings.Contains(stdout, tc.want) {
			t.Errorf("parse %s %s: output lacks %s:\n%.500s", tc.kind, tc.file, tc.want, stdout)
		}
		code, stdout, _ = runInProcess("parse", tc.kind, "--format", "jsonl", tc.file)
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var rec map[string]any
			if code != 0 || json.Unmarshal([]byte(line), &rec) != nil || rec["record"] == nil {
				t.Errorf("parse %s --format jsonl: exit %d, line %.200q", tc.kind, code, line)
				break
			}
		}
	}
	// A file of another kind is an error naming the file, and exits 1.
	vac := fixture("vacuum/testdata/verbose/pg17-vacuum-verbose.psql.txt")
	code, _, stderr := runInProcess("parse", "diskstats", vac)
	if code != exitError || !strings.Contains(stderr, vac+":") {
		t.Errorf("diskstats of a vacuum log: exit %d, %q", code, stderr)
	}
	code, _, stderr = runInProcess("parse", "nonsense", vac)
	if code != exitUsage || !strings.Contains(stderr, "unknown kind") {
		t.Errorf("unknown kind: exit %d, %q", code, stderr)
	}
}

// TestParseCompressedLog: a server log compressed with gzip, bzip2 or zstd
// (told by its first bytes, whatever its name) gives the records of the
// plain file; a truncated one is an error naming the file and the line it
// reached, and an empty one says it is empty.
func TestParseCompressedLog(t *testing.T) {
	const base = "../../parse/vacuum/testdata/logformats/pg17-logformats."
	records := func(file string) string {
		t.Helper()
		code, stdout, stderr := runInProcess("parse", "autovacuum-log", file)
		var doc []struct{ Records json.RawMessage }
		if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil || len(doc) != 1 {
			t.Fatalf("parse autovacuum-log %s: exit %d: %s", file, code, stderr)
		}
		return string(doc[0].Records)
	}
	dir := t.TempDir()
	for _, kind := range []string{"log", "csv", "json"} {
		want := records(base + kind)
		if !strings.Contains(want, `"automatic": true`) {
			t.Fatalf("%s: no autovacuum record", kind)
		}
		for _, ext := range []string{".gz", ".bz2", ".zst"} {
			b, err := os.ReadFile(base + kind + ext)
			if err != nil {
				t.Fatal(err)
			}
			renamed := filepath.Join(dir, kind+ext+".txt") // by content, not by name
			if err := os.WriteFile(renamed, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := records(renamed); got != want {
				t.Errorf("%s%s: records differ from the plain file's:\n%.400s", kind, ext, got)
			}
		}
	}
	gz, err := os.ReadFile(base + "log.gz")
	if err != nil {
		t.Fatal(err)
	}
	var empty bytes.Buffer
	gzip.NewWriter(&empty).Close()
	// The line and the bytes are where the cut stream ends.
	for _, tc := range []struct{ name, content, want string }{
		{"cut.log.gz", string(gz[:900]), `:[1-9][0-9]: read: the gzip-compressed stream is truncated \(after [0-9]+ bytes decompressed\): unexpected EOF`},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runInProcess("parse", "autovacuum-log", path)
		want := regexp.MustCompile("^pgstudy: " + regexp.QuoteMeta(path) + tc.want + "\n$")
		if code != exitError || !want.MatchString(stderr) {
			t.Errorf("%s: exit %d, %q; want exit %d, %s", tc.name, code, stderr, exitError, want)
		}
	}
	// An empty gzip stream is an empty log: no record, a warning, exit 0.
	path := filepath.Join(dir, "empty.log.gz")
	if err := os.WriteFile(path, empty.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runInProcess("parse", "autovacuum-log", path)
	if code != 0 || !strings.Contains(stdout, `"records": []`) || !strings.Contains(stderr, "empty: the log holds no line") {
		t.Errorf("empty.log.gz: exit %d, %q, %q; want exit 0, no record and a warning", code, stdout, stderr)
	}
}

// TestParseCompressedForeignLog: a gzip'd csvlog in French is refused as
// the plain one is, naming the line and lc_messages.
func TestParseCompressedForeignLog(t *testing.T) {
	b, err := os.ReadFile("../../parse/vacuum/testdata/logformats/foreign-fr.csv")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	path := filepath.Join(t.TempDir(), "postgresql.csv.1.gz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runInProcess("parse", "autovacuum-log", path)
	if code != exitError || !strings.HasPrefix(stderr, "pgstudy: "+path+":6: server messages in another language (fr)") ||
		!strings.Contains(stderr, "lc_messages = 'C'") {
		t.Errorf("exit %d, %q; want exit %d and a refusal at line 6 naming lc_messages", code, stderr, exitError)
	}
}

// TestParseLogAsRead: the kinds written as they are read give what the
// records read at once give: the document is byte for byte that of
// AutovacuumSeq's records drained, Parse's, Notices' or diskstats.Parse's devices, and
// --format jsonl has one line per record.
func TestParseLogAsRead(t *testing.T) {
	logs, _ := filepath.Glob("../../parse/vacuum/testdata/autovacuum/*.log")
	for _, ext := range []string{"log", "csv", "json", "syslog", "journal", "journal-iso"} {
		more, _ := filepath.Glob("../../parse/vacuum/testdata/logformats/pg*-logformats." + ext)
		logs = append(logs, more...)
	}
	psql, _ := filepath.Glob("../../parse/vacuum/testdata/verbose/*.psql.txt")
	notices, _ := filepath.Glob("../../parse/vacuum/testdata/verbose/*.notices.jsonl")
	disks, _ := filepath.Glob("../../parse/diskstats/testdata/*.txt")
	if len(logs) < 6+34 || len(psql) < 30 || len(notices) < 30 || len(disks) < 3 {
		t.Fatalf("%d logs, %d psql outputs, %d notices, %d diskstats; want 40, 30, 30 and 3", len(logs), len(psql), len(notices), len(disks))
	}
	readNotices := func(r io.Reader, source string) ([]vacuum.Record, []parse.Warning, error) {
		ns, err := vacuum.ReadNotices(r, source)
		if err != nil {
			return nil, nil, err
		}
		return vacuum.Notices(ns, source)
	}
	autovacuum := func(r io.Reader, source string) ([]vacuum.Record, []parse.Warning, error) {
		return parsetest.Drain(func(warn func(parse.Warning)) iter.Seq2[vacuum.Record, error] {
			return vacuum.AutovacuumSeq(r, source, warn)
		})
	}
	devices := func(r io.Reader, source string) ([]diskstats.Counters, []parse.Warning, error) {
		s, warns, err := diskstats.Parse(r, source)
		return s.Devices, warns, err
	}
	for _, kind := range []struct {
		name  string
		files []string
		whole func(io.Reader, string) (any, int, []parse.Warning, error)
	}{
		{"autovacuum-log", logs, asRead(autovacuum)},
		{"vacuum", psql, asRead(vacuum.Parse)},
		{"vacuum-notices", notices, asRead(readNotices)},
		{"diskstats", disks, asRead(devices)},
	} {
		for _, f := range kind.files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			recs, n, warns, err := kind.whole(bytes.NewReader(b), f)
			if err != nil || n == 0 {
				t.Fatalf("%s: %d records, %v", f, n, err)
			}
			whole, err := json.Marshal([]parsed{{File: f, Records: recs, Warnings: warns}})
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			json.Indent(&want, whole, "", "  ")
			want.WriteByte('\n')
			code, stdout, stderr := runInProcess("parse", kind.name, f)
			if code != 0 || stdout != want.String() {
				t.Errorf("%s %s: exit %d, %s; the document differs from the one read whole:\n%.400s", kind.name, f, code, stderr, stdout)
			}
			code, stdout, _ = runInProcess("parse", kind.name, "--format", "jsonl", f)
			if lines := strings.Count(stdout, "\n"); code != 0 || lines != n || !strings.HasPrefix(stdout, `{"file":"`+f+`","record":{"`) {
				t.Errorf("%s %s --format jsonl: exit %d, %d lines for %d records: %.200s", kind.name, f, code, lines, n, stdout)
			}
		}
	}
}

// asRead adapts a parser of a slice of records for TestParseLogAsRead:
// the records, their number, the warnings and the error.
func asRead[T any](f func(io.Reader, string) ([]T, []parse.Warning, error)) func(io.Reader, string) (any, int, []parse.Warning, error) {
	return func(r io.Reader, source string) (any, int, []parse.Warning, error) {
		recs, warns, err := f(r, source)
		return recs, len(recs), warns, err
	}
}

// TestParseLogError: a file of a kind written as read that turns bad
// after its records (a NUL byte, a line that is not a notice) keeps the
// records read before: in the document, with the error in the file's
// "error"; in jsonl, as lines; the error, naming the file and the line,
// is on standard error, and the exit status 1. A file that fails before
// any record (an empty one) has a result too, without records, with its
// error: the document says what became of every file named.
func TestParseLogError(t *testing.T) {
	for _, tc := range []struct {
		kind, fixture, bad, wantErr string
		seq                         func(io.Reader, string) int // the records before the error
	}{
		// A server log loses up to 64 lines in a row to NULs (a crash's)
		// with a warning; the 65th is the error.
		{"autovacuum-log", "vacuum/testdata/autovacuum/pg16-autovacuum.log", strings.Repeat("\x00\n", 65), "binary data (a NUL byte); expected text",
			func(r io.Reader, src string) int { return countSeq(vacuum.AutovacuumSeq(r, src, nil)) }},
		{"vacuum-notices", "vacuum/testdata/verbose/pg17-vacuum-verbose-analyze.notices.jsonl", "INFO:  vacuuming\n",
			`expected a JSON object (a notice), found "INFO:  vacuuming"`,
			func(r io.Reader, src string) int { return countSeq(vacuum.NoticesSeq(r, src, nil)) }},
		{"diskstats", "diskstats/testdata/linux-6.18.txt", "\x00\n", "binary data (a NUL byte); expected text",
			func(r io.Reader, src string) int { return countSeq(diskstats.ParseSeq(r, src, nil)) }},
	} {
		b, err := os.ReadFile("../../parse/" + tc.fixture)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		bad := filepath.Join(dir, "bad.txt")
		if err := os.WriteFile(bad, append(b, tc.bad...), 0o644); err != nil {
			t.Fatal(err)
		}
		empty := filepath.Join(dir, "empty.txt")
		if err := os.WriteFile(empty, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		recs := tc.seq(bytes.NewReader(append(b, tc.bad...)), bad)
		if recs == 0 {
			t.Fatalf("%s: no record before the error", tc.kind)
		}
		wantErr := fmt.Sprintf("%s:%d: %s", bad, bytes.Count(b, []byte("\n"))+strings.Count(tc.bad, "\n"), tc.wantErr)
		code, stdout, stderr := runInProcess("parse", tc.kind, empty, bad)
		var doc []parsed
		emptyErr := empty + ": empty input; expected "
		emptyLog := tc.kind == "autovacuum-log" // an empty log is no error: one just rotated
		if emptyLog {
			emptyErr = ""
		}
		if code != exitError || json.Unmarshal([]byte(stdout), &doc) != nil || len(doc) != 2 ||
			doc[0].File != empty || len(doc[0].Records.([]any)) != 0 || !strings.HasPrefix(doc[0].Error, emptyErr) || emptyLog && doc[0].Error != "" ||
			doc[1].File != bad || len(doc[1].Records.([]any)) != recs || doc[1].Error != wantErr {
			t.Errorf("%s json: exit %d, %.300s; want %d records and %s", tc.kind, code, stdout, recs, wantErr)
		}
		if !strings.Contains(stderr, empty+map[bool]string{false: ": empty input", true: ":0: empty: the log holds no line"}[emptyLog]) || !strings.Contains(stderr, wantErr) {
			t.Errorf("%s json: standard error %q", tc.kind, stderr)
		}
		code, stdout, stderr = runInProcess("parse", tc.kind, "--format", "jsonl", bad)
		if code != exitError || strings.Count(stdout, "\n") != recs || !strings.HasSuffix(stderr, "\npgstudy: "+wantErr+"\n") && stderr != "pgstudy: "+wantErr+"\n" {
			t.Errorf("%s jsonl: exit %d, %d lines, %q; want %d lines, %s", tc.kind, code, strings.Count(stdout, "\n"), stderr, recs, wantErr)
		}
	}
}

// countSeq counts the records of a sequence before its error.
func countSeq[T any](seq iter.Seq2[T, error]) int {
	n := 0
	for _, err := range seq {
		if err != nil {
			break
		}
		n++
	}
	return n
}

// peakRSS reads the high-water mark of the resident memory of process
// pid (VmHWM in /proc) until it ends, and gives the last read. The wait's
// rusage does not do: Linux keeps the largest RSS over the execs of a
// process, and a child of this one counts the test process's own.
func peakRSS(pid int) <-chan int64 {
	peak := make(chan int64, 1)
	go func() {
		var last int64
		for {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
			if err != nil || !ok {
				peak <- last
				return
			}
			var kib int64
			fmt.Sscan(string(rest), &kib)
			last = kib << 10
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return peak
}

// countLines counts what is written to it, and its lines.
type countLines struct{ bytes, lines int }

func (c *countLines) Write(p []byte) (int, error) {
	c.bytes += len(p)
	c.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// TestParseLogMemory: the kinds written as they are read (a server log,
// notices, diskstats snapshots, pgbench's and sysbench's rows) read 40 MB
// from standard input (a fixture over and over, or its rows renumbered)
// in a process whose peak RSS stays under 64 MiB, in both formats:
// before, the whole input's records were held (a log's, about 1.8 bytes
// a byte; notices', 5; diskstats', 3; pgbench's and sysbench's, 2, with
// the input itself). The process is the command's own (the test binary
// run as pgstudy), so nothing of other tests counts.
func TestParseLogMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 400 MB")
	}
	const size = 40e6
	for _, tc := range []struct {
		kind  string
		input func(t *testing.T) (in io.Reader, records int) // about size bytes
	}{
		{"autovacuum-log", repeated("vacuum/testdata/autovacuum/pg18-autovacuum.log", size,
			func(r io.Reader) int { return countSeq(vacuum.AutovacuumSeq(r, "x", nil)) })},
		{"vacuum-notices", repeated("vacuum/testdata/verbose/pg17-vacuum-verbose-analyze.notices.jsonl", size,
			func(r io.Reader) int { return countSeq(vacuum.NoticesSeq(r, "x", nil)) })},
		{"diskstats", repeated("diskstats/testdata/linux-6.18.txt", size,
			func(r io.Reader) int { return countSeq(diskstats.ParseSeq(r, "x", nil)) })},
		{"pgbench", renumbered("pgbench/testdata/tpcb-r.stderr.txt", "pgbench/testdata/tpcb-r.stdout.txt", size,
			regexp.MustCompile(`^(progress: )[0-9.]+( s, .*)$`), "${1}%d.0${2}")},
		{"sysbench", renumbered("sysbench/testdata/oltp-read-write-t4.txt", "", size,
			regexp.MustCompile(`^(\[ )[0-9]+(s \] .*)$`), "${1}%d${2}")},
	} {
		for _, format := range []string{"json", "jsonl"} {
			in, records := tc.input(t)
			var out countLines
			var stderr bytes.Buffer
			cmd := pgstudy("parse", tc.kind, "--format", format, "-")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &out, &stderr
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			peak := peakRSS(cmd.Process.Pid)
			if err := cmd.Wait(); err != nil || stderr.Len() > 0 {
				t.Fatalf("%s %s: %v, %.300s", tc.kind, format, err, stderr.String())
			}
			rss := <-peak
			t.Logf("%s %s: %d MB out in %v; peak RSS %.1f MiB", tc.kind, format, out.bytes/1e6, time.Since(start).Round(time.Millisecond), float64(rss)/(1<<20))
			if format == "jsonl" && out.lines != records {
				t.Errorf("%s jsonl: %d lines; want %d records", tc.kind, out.lines, records)
			}
			if rss == 0 || rss > 64<<20 {
				t.Errorf("%s %s: peak RSS %d MiB; want under 64 MiB", tc.kind, format, rss>>20)
			}
		}
	}
}

// repeated is a fixture (under parse/) repeated to about size bytes, and
// its records, each copy's counted by records.
func repeated(fixture string, size int, records func(io.Reader) int) func(*testing.T) (io.Reader, int) {
	return func(t *testing.T) (io.Reader, int) {
		b := []byte(fixtureText(t, fixture))
		copies := size / len(b)
		return parsetest.Repeat(b, copies), copies * records(bytes.NewReader(b))
	}
}

// renumbered is a fixture (under parse/) whose rows (the lines row
// matches) are repeated in turn, numbered from 1 by format (row's
// replacement template, with a %d), to about size bytes: the lines before
// the first row, the rows, the lines after the last, and then the file
// tail, when not "". Its records are the rows and a summary.
func renumbered(fixture, tail string, size int, row *regexp.Regexp, format string) func(*testing.T) (io.Reader, int) {
	return func(t *testing.T) (io.Reader, int) {
		var head, after, rows []string
		for _, l := range strings.SplitAfter(fixtureText(t, fixture), "\n") {
			switch {
			case row.MatchString(strings.TrimSuffix(l, "\n")):
				l = strings.ReplaceAll(strings.TrimSuffix(l, "\n"), "%", "%%") // a format, whose %d is the number
				rows = append(rows, row.ReplaceAllString(l, format)+"\n")
			case len(rows) == 0:
				head = append(head, l)
			default:
				after = append(after, l)
			}
		}
		if tail != "" {
			after = append(after, fixtureText(t, tail))
		}
		n := size / len(rows[0])
		return parsetest.Made(n+2, func(b []byte, i int) []byte {
			switch i {
			case 0:
				return append(b, strings.Join(head, "")...)
			case n + 1:
				return append(b, strings.Join(after, "")...)
			}
			return fmt.Appendf(b, rows[i%len(rows)], i)
		}), n + 1
	}
}

// fixtureText is a fixture under parse/.
func fixtureText(t *testing.T, fixture string) string {
	t.Helper()
	b, err := os.ReadFile("../../parse/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
