package fixturegen

// The autovacuum entries of one server in every log format: the server
// writes stderr, csvlog and (15+) jsonlog at once through its logging
// collector, so the three files hold the same entries; the syslog and
// journald files are made from the stderr one (see syslogLines), as no
// syslog daemon runs where the fixtures are made; gzip, bzip2 and zstd
// copies are made by those tools.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// logFormatsDir is where the fixtures of every log format go, under parse.
var logFormatsDir = filepath.Join("vacuum", "testdata", "logformats")

func TestLogFormats(t *testing.T) {
	if os.Getenv("PGSTUDY_FIXTURES") != "1" {
		t.Skip("fixturegen writes the parsers' fixtures from real servers; it is not a test (see parse/regenerate)")
	}
	out := filepath.Join(testdataDir(t), logFormatsDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			if err := os.WriteFile(filepath.Join(out, "README.md"), []byte(logFormatsReadme), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	for _, major := range majors {
		t.Run(fmt.Sprintf("pg%d", major), func(t *testing.T) {
			t.Parallel()
			logFormats(t, major, out)
		})
	}
}

const logFormatsReadme = `# One server log in every format

Written by parse/regenerate (collect/internal/fixturegen, logformats_test.go);
do not edit by hand. For each of PostgreSQL 13 to 18, one server ran with
logging_collector on and log_destination 'stderr,csvlog' (and jsonlog from
15), log_line_prefix '%m [%p] ', lc_messages 'C', log_autovacuum_min_duration
0 and autovacuum_naptime 1s, so the files it wrote hold the same messages:
autovacuum's vacuum and analyze of a table t (5,000 rows, every tenth with
512 bytes of text) and of its TOAST table after the insert and again after an
UPDATE and a DELETE, any catalog tables autovacuum processed, and a
VACUUM (VERBOSE) t run with log_min_messages = info (its INFO messages; up to
14 several, each with a DETAIL of several lines). The Unix socket folder is
rewritten to /var/run/postgresql; nothing else is changed.

- ` + "`pgNN-logformats.log`" + `: the stderr log, as the logging collector wrote it.
- ` + "`pgNN-logformats.csv`" + `: the csvlog (24 columns in 13, 26 from 14).
- ` + "`pgNN-logformats.json`" + `: the jsonlog (15+).
- ` + "`pgNN-logformats.syslog`" + `, ` + "`.journal`" + `, ` + "`.journal-iso`" + `: NOT captures. No syslog daemon
  or journald runs where the fixtures are made, so these are the stderr log
  transformed the way the server sends each message to syslog (elog.c's
  write_syslog with syslog_sequence_numbers and syslog_split_messages on: one
  sequence number per message and process, "[SEQ]" for a message of one line
  and "[SEQ-CHUNK]" for each line of a longer one; the DETAIL of a message is
  part of it) and printed by rsyslog's default file template
  (RSYSLOG_TraditionalFileFormat, "Dec  4 20:14:34 db1 postgres[PID]: ", a tab
  escaped as #011), journalctl -o short ("Dec 04 20:14:34 db1 postgres[PID]: ")
  and journalctl -o short-iso ("2026-12-04T20:14:34+0000 db1 postgres[PID]: ");
  host db1. syslogLines in logformats_test.go is the transformation.
- ` + "`pg17-logformats.{log,csv,json}.{gz,bz2,zst}`" + `: copies made by gzip -9n, bzip2 -9 and zstd -19.
- ` + "`foreign-{fr,de}.{csv,json}`" + `: not from this generator: the csvlog and jsonlog of
  PostgreSQL 15 with lc_messages in French and German, made by
  capture-foreign.sh in this folder (its header says how).
`

// logFormats runs autovacuum and a VACUUM VERBOSE logged at INFO on a
// server that logs in every format it has, and writes each file.
func logFormats(t *testing.T, major int, out string) {
	dest := "stderr,csvlog"
	if major >= 15 {
		dest += ",jsonlog"
	}
	g := start(t, major, out, map[string]string{
		"autovacuum":                  "on",
		"autovacuum_naptime":          "1s",
		"log_autovacuum_min_duration": "0",
		"log_line_prefix":             "%m [%p] ",
		"logging_collector":           "on",
		"log_destination":             dest,
		"log_directory":               "log",
		"log_filename":                "postgresql.log",
		"log_rotation_age":            "0",
		"log_rotation_size":           "0",
	})
	logDir := filepath.Join(g.c.DataDir, "log")
	stderrLog := filepath.Join(logDir, "postgresql.log")
	g.sql(t,
		"create table t (id int primary key, k int not null, payload text)",
		`select setseed(0.25);
		 insert into t
		 select i, (i * 7919) % 10007,
		        case when i % 10 = 0
		             then (select string_agg(md5(random()::text || i || g), '') from generate_series(1, 16) as g)
		             else md5(i::text) end
		 from generate_series(1, 5000) as i`,
	)
	waitFile(t, major, stderrLog, 0, `automatic analyze of table "postgres.public.t"`, `automatic vacuum of table "postgres.public.t"`)
	time.Sleep(2 * time.Second)
	from := fileSize(stderrLog)
	g.sql(t, "update t set k = k + 1 where id % 5 = 0; delete from t where id % 3 = 0")
	waitFile(t, major, stderrLog, from, `automatic vacuum of table "postgres.public.t"`)
	// VACUUM VERBOSE's INFO messages in the log: up to 14 several, each
	// with a DETAIL of several lines.
	g.sql(t, "set log_min_messages = info", "vacuum (verbose) t")
	time.Sleep(2 * time.Second)
	if out, err := exec.Command("sh", "-c", g.c.StopCmd()).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	files := map[string]string{"log": stderrLog, "csv": filepath.Join(logDir, "postgresql.csv")}
	if major >= 15 {
		files["json"] = filepath.Join(logDir, "postgresql.json")
	}
	for ext, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(g.c.SocketDir), []byte("/var/run/postgresql"))
		g.writeIn(t, out, g.name("logformats", ext), b)
		if ext == "log" {
			syslog, journal, journalISO := syslogLines(t, b)
			g.writeIn(t, out, g.name("logformats", "syslog"), syslog)
			g.writeIn(t, out, g.name("logformats", "journal"), journal)
			g.writeIn(t, out, g.name("logformats", "journal-iso"), journalISO)
		}
		if major == 17 {
			compressed(t, g, out, g.name("logformats", ext), b)
		}
	}
}

// compressed writes gzip, bzip2 and zstd copies of a fixture, made by the
// tools logrotate and users run.
func compressed(t *testing.T, g *gen, out, name string, b []byte) {
	t.Helper()
	for _, c := range []struct{ ext, cmd string }{{"gz", "gzip -9n"}, {"bz2", "bzip2 -9"}, {"zst", "zstd -19 -q"}} {
		cmd := exec.Command("sh", "-c", c.cmd)
		cmd.Stdin = bytes.NewReader(b)
		z, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", c.cmd, err)
		}
		g.writeIn(t, out, name+"."+c.ext, z)
	}
}

func (g *gen) writeIn(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", name, len(b))
}

// waitFile waits until the file, from offset on, holds every one of the
// strings.
func waitFile(t *testing.T, major int, path string, offset int64, want ...string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, _ := os.ReadFile(path)
		if int64(len(b)) >= offset {
			b = b[offset:]
		}
		missing := 0
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pg%d: %s does not show %q after 2 minutes:\n%s", major, path, want, b)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// stderrStart is the start of a message in the stderr log: its prefix
// '%m [%p] ' then the severity.
var stderrStart = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.\d+ UTC \[(\d+)\] ([A-Z]+):  `)

// syslogLines transforms a stderr log into what the server would have sent
// to syslog (elog.c's write_syslog, syslog_sequence_numbers and
// syslog_split_messages on: each message numbered per process, each of its
// lines a syslog message "[seq-chunk] line", a message of one line
// "[seq] line"; no line here passes the 900-byte split) and how three
// readers print that: rsyslog's default file template
// (RSYSLOG_TraditionalFileFormat, tabs escaped as #011), journalctl -o short
// and journalctl -o short-iso. It is a transformation, not a capture: no
// syslog daemon runs where the fixtures are made. The host is "db1".
func syslogLines(t *testing.T, log []byte) (syslog, journal, journalISO []byte) {
	t.Helper()
	type msg struct {
		pid   string
		when  time.Time
		lines []string
	}
	var msgs []*msg
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		line := sc.Text()
		m := stderrStart.FindStringSubmatch(line)
		if m != nil && !isDetail(m[3]) {
			when, err := time.Parse("2006-01-02 15:04:05", m[1])
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, &msg{pid: m[2], when: when, lines: []string{line}})
			continue
		}
		if len(msgs) == 0 || m == nil && !strings.HasPrefix(line, "\t") {
			continue // the server's own stderr before the collector ran: not sent to syslog
		}
		msgs[len(msgs)-1].lines = append(msgs[len(msgs)-1].lines, line)
	}
	seq := map[string]int{}
	var s, j, ji bytes.Buffer
	for _, m := range msgs {
		seq[m.pid]++
		for i, l := range m.lines {
			tag := fmt.Sprintf("[%d-%d] ", seq[m.pid], i+1)
			if len(m.lines) == 1 {
				tag = fmt.Sprintf("[%d] ", seq[m.pid])
			}
			head := fmt.Sprintf("db1 postgres[%s]: ", m.pid)
			fmt.Fprintf(&s, "%s %s%s%s\n", m.when.Format("Jan _2 15:04:05"), head, tag, strings.ReplaceAll(l, "\t", "#011"))
			fmt.Fprintf(&j, "%s %s%s%s\n", m.when.Format("Jan 02 15:04:05"), head, tag, l)
			fmt.Fprintf(&ji, "%s %s%s%s\n", m.when.Format("2006-01-02T15:04:05-0700"), head, tag, l)
		}
	}
	return s.Bytes(), j.Bytes(), ji.Bytes()
}

// isDetail reports whether a label continues a message with another of
// its fields (DETAIL, HINT, ...): in the stderr log it has a prefix of its
// own, but the server sends it to syslog with its message, as one.
func isDetail(label string) bool {
	switch label {
	case "DETAIL", "HINT", "CONTEXT", "STATEMENT", "QUERY", "LOCATION":
		return true
	}
	return false
}
