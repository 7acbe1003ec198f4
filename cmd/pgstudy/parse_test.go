package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
		{"empty.log.gz", empty.String(), `: empty input; expected a PostgreSQL server log`},
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
