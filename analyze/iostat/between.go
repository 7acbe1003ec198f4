package iostat

import "github.com/pgstudy/pgstudy/parse/diskstats"

// Between computes Stats for each named device present in both snapshots,
// in the order of devices (a name given twice is reported twice).
//
// With no devices named, it reports every whole disk (not a partition: see
// IsPartition) that has completed a request since boot, in the kernel's
// order: like iostat -x without device names, which shows the entries of
// /sys/block that have done I/O, and not the idle loop and zram devices
// that would otherwise fill the report. A named device is reported even
// when idle, as iostat does.
func Between(before, after diskstats.Snapshot, seconds float64, devices []string) []Stats {
	if len(devices) > 0 {
		var out []Stats
		for _, name := range devices {
			a, okA := after.Device(name)
			b, okB := before.Device(name)
			if okA && okB {
				out = append(out, delta(&b, &a, seconds))
			}
		}
		return out
	}
	names := make([]string, len(after.Devices))
	for i, d := range after.Devices {
		names[i] = d.Name
	}
	// Index before by name once: a host can have hundreds of devices
	// (dm, loop), and Device is a linear search.
	prev := make(map[string]int, len(before.Devices))
	for i, d := range before.Devices {
		if _, dup := prev[d.Name]; !dup {
			prev[d.Name] = i
		}
	}
	var out []Stats
	for _, a := range after.Devices {
		i, ok := prev[a.Name]
		if !ok || !used(a) || isPartition(a.Name, names) {
			continue
		}
		out = append(out, delta(&before.Devices[i], &a, seconds))
	}
	return out
}

// Of is iostat's figures for one device from its counters before to
// after, an interval of seconds: Between for a device known by name. The
// counters are read, not kept.
func Of(before, after *diskstats.Counters, seconds float64) Stats {
	return delta(before, after, seconds)
}

// used says whether a device has completed a request since its counters
// started (iostat's test for listing a device nobody named).
func used(d diskstats.Counters) bool {
	if d.ReadsCompleted > 0 || d.WritesCompleted > 0 {
		return true
	}
	if d.Discards.Valid && d.Discards.V.Completed > 0 {
		return true
	}
	return d.Flushes.Valid && d.Flushes.V.Completed > 0
}

// isPartition says whether name is a partition of one of the devices in
// all (the names of one snapshot), by the kernel's naming rule for
// partitions: the disk's name and the partition number, with a "p"
// between them when the disk's name ends in a digit (sda → sda1, vdb →
// vdb2, xvda → xvda1, nvme0n1 → nvme0n1p1, mmcblk0 → mmcblk0p1, loop0 →
// loop0p1). The disk need not be in all for the common disk families (sd,
// vd, xvd, hd, nvme, mmcblk), whose partitions the pattern alone tells.
//
// Device-mapper (dm-N) and md devices are whole: partitions made on them
// with kpartx are dm devices themselves, and mmcblk0boot0 or mmcblk0rpmb
// are separate hardware areas, not partitions. /proc/diskstats does not
// say what is a partition (/sys/class/block/NAME/partition does), so this
// is a rule on names, which is what a capture read elsewhere has.
func isPartition(name string, all []string) bool {
	for _, disk := range all {
		if disk != name && partitionOf(name, disk) {
			return true
		}
	}
	return knownPartition(name)
}

// partitionOf says whether name is disk's partition by the kernel's rule.
func partitionOf(name, disk string) bool {
	if disk == "" || len(name) <= len(disk) || name[:len(disk)] != disk {
		return false
	}
	rest := name[len(disk):]
	if isDigit(disk[len(disk)-1]) {
		if rest[0] != 'p' {
			return false
		}
		rest = rest[1:]
	}
	return partNumber(rest)
}

// knownPartition tells partitions of the common disk families by name
// alone: sdX1, vdX1, xvdX1, hdX1 (letters then a number) and nvme0n1p1,
// mmcblk0p1 (a number, "p", a number).
func knownPartition(name string) bool {
	for _, prefix := range []string{"xvd", "sd", "vd", "hd"} {
		if len(name) > len(prefix) && name[:len(prefix)] == prefix {
			rest := name[len(prefix):]
			i := 0
			for i < len(rest) && rest[i] >= 'a' && rest[i] <= 'z' {
				i++
			}
			return i > 0 && partNumber(rest[i:])
		}
	}
	switch {
	case len(name) > 4 && name[:4] == "nvme":
		// nvme<ctrl>n<ns>p<part>
		rest, ok := skipNumber(name[4:])
		if !ok || rest == "" || rest[0] != 'n' {
			return false
		}
		rest, ok = skipNumber(rest[1:])
		return ok && rest != "" && rest[0] == 'p' && partNumber(rest[1:])
	case len(name) > 6 && name[:6] == "mmcblk":
		rest, ok := skipNumber(name[6:])
		return ok && rest != "" && rest[0] == 'p' && partNumber(rest[1:])
	}
	return false
}

// partNumber says whether s is a partition number: digits, not starting
// with 0 (partitions count from 1).
func partNumber(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// skipNumber drops the leading digits of s, reporting whether there were any.
func skipNumber(s string) (string, bool) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[i:], i > 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
