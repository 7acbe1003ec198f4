package collect

import "testing"

// TestHierarchyPath: a process's group in v1's blkio hierarchy (alone or
// with other controllers on one line) and in v2's unified one.
func TestHierarchyPath(t *testing.T) {
	const text = "12:cpu,cpuacct:/x\n7:blkio,memory:/system.slice/postgresql@17-main.service\n1:name=systemd:/y\n0::/machine.slice/libpod-1.scope/container\n"
	if got := hierarchyPath(text, "blkio"); got != "/system.slice/postgresql@17-main.service" {
		t.Errorf("blkio: %q", got)
	}
	if got := hierarchyPath(text, ""); got != "/machine.slice/libpod-1.scope/container" {
		t.Errorf("v2: %q", got)
	}
	if got := hierarchyPath("7:blkio:/\n", ""); got != "" {
		t.Errorf("v2 of a v1-only process: %q", got)
	}
}
