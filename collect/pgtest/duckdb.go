package pgtest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// DuckDBCounts asks DuckDB (scripts/duckdb-count.mjs, with the DuckDB that
// scripts/install-deps installs) to count the rows of each table of the
// capture in dir: a reader other than pgstudy's own. A table DuckDB cannot
// read fails the test; a DuckDB that is not installed skips it, or fails
// it when CI=true.
func DuckDBCounts(t testing.TB, dir string, tables ...string) map[string]int {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "..", "..", "scripts", "duckdb-count.mjs")
	out, err := exec.Command("node", append([]string{script, dir}, tables...)...).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "install-deps") {
			Missing(t, "DuckDB is not installed: %s", out)
		}
		t.Fatalf("duckdb-count: %v\n%s", err, out)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, n, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("duckdb-count printed %q", line)
		}
		counts[name], err = strconv.Atoi(n)
		if err != nil {
			t.Fatalf("duckdb-count printed %q", line)
		}
	}
	return counts
}
