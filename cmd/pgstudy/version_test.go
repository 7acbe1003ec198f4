package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestVersionStamp builds pgstudy as scripts/release does, with a version
// set by -ldflags -X, runs the binary and checks that --version prints it.
// A build without the flag (go build, go install) prints the module's
// version from the build information instead: "(devel)" for a build from
// a work tree.
func TestVersionStamp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pgstudy twice")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "pgstudy")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	const stamp = "v9.8.7-3-gabcdef012345"
	for _, c := range []struct{ ldflags, want string }{
		{"-X main.version=" + stamp, "pgstudy version " + stamp + "\n"},
		{"", "pgstudy version (devel)"},
	} {
		build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", c.ldflags, "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build -ldflags %q: %v\n%s", c.ldflags, err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", bin, err)
		}
		if !strings.HasPrefix(string(out), c.want) {
			t.Errorf("built with -ldflags %q, --version printed %q, want %q", c.ldflags, out, c.want)
		}
	}
}
