package fixturegen

// The README of each fixture folder: what each fixture is, written from
// the names of the files the generator made.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var readmeHead = map[string]string{
	"vacuum": `# VACUUM VERBOSE fixtures

Real output of PostgreSQL 13 to 18. Written by parse/regenerate
(collect/internal/fixturegen); do not edit by hand.

Every case vacuums the same table, made afresh: t (id int primary key, k int,
payload text) with a second index t_k on k, 50,000 rows of which every tenth
holds 4 kB of random hexadecimal text in its TOAST table, VACUUM ANALYZE once,
then an UPDATE of k on a fifth of the rows and a DELETE of a seventh. The
server restarts before the VACUUM, so it reads (misses) rather than hits.
The cluster has autovacuum off and initdb's defaults otherwise (so data
checksums, and with them WAL for hint bits, only in 18).
Each case has two files, from two identical copies of that state:
.psql.txt is what psql -X -e printed for \timing on and the statements, its
standard output and standard error in one stream (as 2>&1 | tee has them);
.notices.jsonl is every notice the server sent for the VACUUM as pgx received
it, one JSON object a line (severity, code, message, detail, hint, where).
The parallel index vacuum's messages come in either order in 13 and 14.
`,
	"autovacuum": `# Autovacuum server log fixtures

Real server logs (logging_collector off, stderr to a file) of PostgreSQL 13 to
18 with log_autovacuum_min_duration = 0 and autovacuum_naptime = 1s. Written
by parse/regenerate (collect/internal/fixturegen); verbatim but for
the Unix socket folder, rewritten to /var/run/postgresql. Each holds the
startup, the automatic vacuum and analyze of table t (the table of
../verbose/README.md) and of its TOAST table after the initial insert and again
after an UPDATE and DELETE in one transaction, any entries for catalog tables
that autovacuum happened to process, and the shutdown.
`,
	"explain": `# EXPLAIN fixtures

Real EXPLAIN output of PostgreSQL 13 to 18 on pgbench -i -s 1 tables
(100,000 rows in pgbench_accounts; statistics on aid from every row), written
as psql -XAt prints it: the rows of the result's single column, each followed
by a newline. Written by parse/regenerate
(collect/internal/fixturegen); do not edit by hand. Except plain-seqscan, each
is EXPLAIN (ANALYZE, BUFFERS, SETTINGS, WAL, TIMING, FORMAT JSON or TEXT) run
right after a server restart, so shared buffers are cold and blocks are read;
-io files had track_io_timing on, the others off. The cluster has autovacuum
off and initdb's defaults otherwise (data checksums only in 18).
`,
	"psql": `# psql output fixtures

What Debian's psql 15 printed with -X -e, reading its input from standard
input, standard output and standard error in one stream (as 2>&1 | tee has
them). The pgNN-* files are written by parse/regenerate
(collect/internal/fixturegen); do not edit them by hand. The capture-* files
are made by capture.sh in this folder (its header says what each holds).
`,
}

var vacuumDesc = map[string]string{
	"vacuum-verbose":         "VACUUM (VERBOSE) t",
	"vacuum-verbose-analyze": "VACUUM (VERBOSE, ANALYZE) t",
	"vacuum-verbose-freeze":  "VACUUM (VERBOSE, FREEZE) t, aggressive",
	"vacuum-aggressive":      "VACUUM (VERBOSE) t after SET vacuum_freeze_table_age = 0, aggressive without FREEZE",
	"vacuum-verbose-io":      "VACUUM (VERBOSE) t after SET track_io_timing = on",
}

var explainDesc = map[string]string{
	"plain-seqscan":    "plain EXPLAIN (FORMAT JSON), no ANALYZE, default settings, of select count(*), sum(abalance) from pgbench_accounts (what the collector captures)",
	"parallel-seqscan": "count(*) by a Parallel Seq Scan with 2 workers (parallel costs 0, index and bitmap scans off)",
	"bitmap-heapscan":  "sum(abalance) of 20,000 rows by a Bitmap Heap Scan (seq and index scans off, no parallel workers)",
	"index-only-scan":  "count(*) of 50,000 rows by an Index Only Scan right after VACUUM (Heap Fetches: 0)",
	"update":           "UPDATE of 1,000 rows inside BEGIN ... ROLLBACK (WAL records and full page images)",
}

// ours matches the names of the files this generator writes.
var ours = regexp.MustCompile(`^pg\d+-`)

var fixtureName = regexp.MustCompile(`^pg(\d+)-(.+?)\.(psql\.txt|notices\.jsonl|json|txt|log)$`)

// writeReadmes writes each folder's README.md: the head, then one line for
// every fixture in the folder.
func writeReadmes(t *testing.T, out string) {
	t.Helper()
	for kind, head := range readmeHead {
		dir := filepath.Join(out, folders[kind])
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString(head)
		b.WriteString("\n")
		for _, e := range entries {
			if e.Name() == "README.md" || strings.HasSuffix(e.Name(), ".golden.json") {
				continue
			}
			if !ours.MatchString(e.Name()) {
				continue // another generator's (capture-* in psql/)
			}
			desc := describe(kind, e.Name())
			if desc == "" {
				t.Errorf("%s/%s: named like a fixture of this generator but not one it writes; remove it or describe it", kind, e.Name())
				continue
			}
			fmt.Fprintf(&b, "- `%s`: %s.\n", e.Name(), desc)
		}
		if t.Failed() {
			return
		}
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// describe says in one line what a fixture holds, or "" if the name is not
// one this generator writes.
func describe(kind, name string) string {
	m := fixtureName.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	v, kase, ext := "PostgreSQL "+m[1], m[2], m[3]
	if m[1] == "15" && kind != "psql" {
		v += " (Debian's build)"
	}
	switch kind {
	case "vacuum":
		d, ok := vacuumDesc[kase]
		if !ok {
			return ""
		}
		switch ext {
		case "psql.txt":
			return v + ", " + d + ": psql's output"
		case "notices.jsonl":
			return v + ", " + d + ": the notices"
		}
	case "autovacuum":
		if kase == "autovacuum" && ext == "log" {
			prefix := "'%m [%p] %q%u@%d '"
			if n, _ := strconv.Atoi(m[1]); pgbadgerPrefix[n] {
				prefix = "'%t [%p]: [%l-1] user=%u,db=%d,app=%a,client=%h ' (pgBadger's)"
			}
			return v + ", log_line_prefix " + prefix
		}
	case "explain":
		io := strings.HasSuffix(kase, "-io")
		d, ok := explainDesc[strings.TrimSuffix(kase, "-io")]
		if !ok || (kase == "plain-seqscan" && ext != "json") || (kase == "plain-seqscan-io") {
			return ""
		}
		if kase == "plain-seqscan" {
			return v + ", " + d
		}
		format := map[string]string{"json": "FORMAT JSON", "txt": "FORMAT TEXT"}[ext]
		if format == "" {
			return ""
		}
		return fmt.Sprintf("%s, %s, %s, track_io_timing %s", v, format, d, onOff(io))
	case "psql":
		switch {
		case kase == "session" && ext == "txt":
			return "server " + v + ": \\timing on, a SET, a small result aligned and unaligned, NOTICE, INFO and WARNING from a DO block, " +
				"two errors with LINE, caret and HINT (a misspelt column, a function with wrong argument types), " +
				"two statements on one line, and two joined with \\;"
		case kase == "long-timing" && ext == "txt":
			return "server " + v + ": select pg_sleep(61), so that Time: also shows minutes and seconds"
		}
	}
	return ""
}
