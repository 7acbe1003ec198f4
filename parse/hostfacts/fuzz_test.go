package hostfacts

import (
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// FuzzMeminfo: every input gives a *SyntaxError or a MemTotal, and
// well-formed warnings.
func FuzzMeminfo(f *testing.F) {
	golden.Fuzz(f, "meminfo", []string{
		"MemTotal: 1 kB\n",
		"MemTotal:\t99999999999999999999 kB\nHugePages_Total: 0\nMemTotal: 2 kB\n",
		"MemTotal 1 kB\n: 5\n",
	}, Meminfo, checkMemory, nil)
}

// FuzzCPUInfo: every input gives a *SyntaxError or at least one
// processor, and well-formed warnings.
func FuzzCPUInfo(f *testing.F) {
	golden.Fuzz(f, "cpuinfo", []string{
		"processor\t: 0\nmodel name\t: X\n\n",
		"processor:\nmodel name:\n",
		"no colon\n",
	}, CPUInfo, checkCPUs, nil)
}

// FuzzOSRelease: every input gives a *SyntaxError or a variable, and
// well-formed warnings.
func FuzzOSRelease(f *testing.F) {
	golden.Fuzz(f, "osrelease", []string{
		"ID=debian\n",
		"PRETTY_NAME=\"a \\\"b\\\"\"\nX='y'\nZ=\"\n",
		"# c\n=\n\"\n",
	}, OSRelease, checkOS, nil)
}
