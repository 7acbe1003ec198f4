package main

import (
	"encoding/json"
	"path/filepath"
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
