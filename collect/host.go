package collect

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/pgstudy/pgstudy/samples"
)

// hostFacts reads what a report's "How we measured" needs to say about the
// machine, verbatim, from where the kernel says it.
func hostFacts(devices []string) []samples.Host {
	var out []samples.Host
	add := func(name, source, value string) {
		out = append(out, samples.Host{Name: name, Source: source, Value: value})
	}
	file := func(name, path string) {
		if b, err := os.ReadFile(path); err == nil {
			add(name, path, string(b))
		}
	}
	if h, err := os.Hostname(); err == nil {
		add("hostname", "gethostname", h)
	}
	file("kernel.release", "/proc/sys/kernel/osrelease")
	file("kernel.version", "/proc/version")
	file("os.release", "/etc/os-release")
	add("cpu.arch", "runtime.GOARCH", runtime.GOARCH)
	add("cpu.count", "runtime.NumCPU", strconv.Itoa(runtime.NumCPU()))
	file("cpu.info", "/proc/cpuinfo")
	file("memory.info", "/proc/meminfo")
	file("cgroup.cpu.max", "/sys/fs/cgroup/cpu.max")
	file("cgroup.memory.max", "/sys/fs/cgroup/memory.max")
	file("mounts", "/proc/self/mountinfo")
	file("vm.dirty_ratio", "/proc/sys/vm/dirty_ratio")
	file("vm.dirty_background_ratio", "/proc/sys/vm/dirty_background_ratio")
	file("vm.swappiness", "/proc/sys/vm/swappiness")
	for _, dev := range devices {
		file("device."+dev+".size", filepath.Join("/sys/block", dev, "size"))
		file("device."+dev+".model", filepath.Join("/sys/block", dev, "device/model"))
		for _, q := range queueFiles {
			file("device."+dev+".queue."+q, filepath.Join("/sys/block", dev, "queue", q))
		}
	}
	return out
}
