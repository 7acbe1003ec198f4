package pgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Benchstat finds the benchstat binary: on PATH, else in $(go env GOBIN) or
// $(go env GOPATH)/bin. Missing, it fails the test in CI and skips it elsewhere.
func Benchstat(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("benchstat"); err == nil {
		return p
	}
	var dirs []string
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n") // GOBIN is often empty
		if len(lines) == 2 {
			if lines[0] != "" {
				dirs = append(dirs, lines[0])
			}
			for _, p := range filepath.SplitList(lines[1]) {
				dirs = append(dirs, filepath.Join(p, "bin"))
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, "benchstat")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	Missing(t, "benchstat is not installed (neither on PATH nor in $(go env GOPATH)/bin): run scripts/install-deps")
	return ""
}
