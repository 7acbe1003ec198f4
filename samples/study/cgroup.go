package study

import (
	"path/filepath"
	"strings"
)

// Cgroup modes: where the server's I/O counters come from.
const (
	CgroupAuto   = "auto"
	CgroupOff    = "off"
	CgroupCreate = "create"
)

// DefaultOthersShare is the share of the device's I/O other processes may
// do during a run before the analysis says so.
const DefaultOthersShare = 0.1

// checkCgroups checks each configuration's cgroup and the disk's share
// for other processes.
func (s *Study) checkCgroups(d *decoder) {
	for i := range s.Configs {
		c := &s.Configs[i]
		switch {
		case c.Cgroup == "":
			c.Cgroup = CgroupAuto
		case c.Cgroup == CgroupAuto || c.Cgroup == CgroupOff || c.Cgroup == CgroupCreate:
			if c.Cgroup == CgroupCreate && c.Start == nil {
				d.errorAt(c.CgroupPos, "configuration %s: cgroup: create runs the start step in a cgroup pgstudy makes, and the configuration has no start: command", c.Name)
			}
		case !filepath.IsAbs(c.Cgroup) || filepath.Clean(c.Cgroup) != c.Cgroup || strings.ContainsAny(c.Cgroup, "\n\r"):
			d.errorAt(c.CgroupPos, "configuration %s: cgroup must be auto, off, create or the absolute folder of a cgroup "+
				"(such as /sys/fs/cgroup/system.slice/postgresql.service), found %q", c.Name, c.Cgroup)
		}
	}
	if p := s.Disk.OthersShare; p != nil && (*p <= 0 || *p >= 1) {
		d.errorAt(s.Disk.OthersSharePos, "disk: others_share must be a fraction between 0 and 1 (0.1 is 10%% of the device's bytes), found %g", *p)
	}
}

// Others is the share of a device's I/O other processes may do during a
// run before the analysis says they disturbed it.
func (s *Study) Others() float64 {
	if s.Disk.OthersShare != nil {
		return *s.Disk.OthersShare
	}
	return DefaultOthersShare
}
