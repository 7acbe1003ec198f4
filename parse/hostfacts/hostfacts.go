// Package hostfacts reads the facts about a host that the collector
// records verbatim in the host table, each from the file the kernel or the
// distribution writes it to:
//
//   - Meminfo: /proc/meminfo, "Key:   N kB" lines (memory.info);
//   - CPUInfo: /proc/cpuinfo, a block of "key\t: value" lines per
//     processor (cpu.info);
//   - OSRelease: /etc/os-release, shell-like KEY=value lines (os.release);
//   - Scheduler and SizeBytes: a block device's queue/scheduler and size
//     files under /sys/block (device.NAME.queue.scheduler, device.NAME.size).
//
// The readers of whole files follow parse's contract: a line not
// understood is a Warning, input that holds nothing of its kind is a
// *parse.SyntaxError, and a fact the file does not hold is absent.
package hostfacts

import "strings"

// maxLines bounds the lines read: a /proc/cpuinfo has a block of about 30
// lines per processor, and a thousand times the largest machines is not
// one of these files.
const maxLines = 1 << 20

// keyValue splits "key<sep>value", both trimmed of blanks; ok is false
// without sep or with an empty key.
func keyValue(line string, sep byte) (key, value string, ok bool) {
	i := strings.IndexByte(line, sep)
	if i < 0 {
		return "", "", false
	}
	key, value = strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+1:])
	return key, value, key != ""
}
