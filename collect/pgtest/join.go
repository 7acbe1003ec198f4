package pgtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Join moves the test's own process into the group until the test ends,
// so that what it reads of the disk itself (a collector's calibration) is
// throttled as the servers started by StartCmd are. It goes back to the
// group it was in when the test ends, before the group is removed.
func (th *Throttle) Join(t testing.TB) {
	t.Helper()
	root := filepath.Dir(th.Group)
	back := root
	b, _ := os.ReadFile("/proc/self/cgroup")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && (!th.v2 && strings.Contains(","+f[1]+",", ",blkio,") || th.v2 && f[0] == "0") {
			back = filepath.Join(root, f[2])
		}
	}
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(th.Group, "cgroup.procs"), pid, 0o644); err != nil {
		t.Fatalf("pgtest: join the cgroup %s: %v", th.Group, err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(filepath.Join(back, "cgroup.procs"), pid, 0o644); err != nil {
			t.Errorf("pgtest: leave the cgroup %s for %s: %v", th.Group, back, err)
		}
	})
}
