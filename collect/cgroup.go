package collect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// The server's own I/O, beside the device's: /proc/diskstats counts every
// process of the machine, so when the server runs in a cgroup of its own
// (podman and systemd put it in one; a configuration can name one; with
// cgroup: create pgstudy makes one and runs the start step in it), that
// group's I/O counters are copied verbatim next to each diskstats
// snapshot before and after a run, as probe rows:
//
//	name                                               command
//	cgroup io.stat                                     the file's path (cgroup v2)
//	cgroup blkio.throttle.io_service_bytes_recursive   the file's path (cgroup v1)
//	cgroup blkio.throttle.io_serviced_recursive        the file's path (cgroup v1)
//	cgroup of the server                               read /proc/PID/cgroup (how auto found it)
//	cgroup io                                          "" (Error says why there is no counter)
//
// v1's _recursive files are read where the kernel has them (they count a
// group's children too, as v2's io.stat does; a group without children
// prints the same in both), else the plain ones.

// CgroupProbe names the probe rows of the server's cgroup counters.
const (
	CgroupProbeV2      = "cgroup io.stat"
	CgroupProbeBytes   = "cgroup blkio.throttle.io_service_bytes"
	CgroupProbeIOs     = "cgroup blkio.throttle.io_serviced"
	CgroupProbeServer  = "cgroup of the server"
	CgroupProbeMissing = "cgroup io"
)

const (
	cgroupRoot = "/sys/fs/cgroup"
	blkioRoot  = "/sys/fs/cgroup/blkio"
)

// cgroupIO records the I/O counters of the server's cgroup for a run's
// phase ("before", "after"), or why there are none; nothing with
// cgroup: off.
func (c *collector) cgroupIO(rec *recorder, cfg *study.Config, phase string) {
	rows, files := c.cgroupRows(cfg, phase)
	for _, f := range files {
		at := time.Now()
		b, err := os.ReadFile(f.Command)
		f.StartedAt, f.ElapsedNs, f.Stdout = at, time.Since(at).Nanoseconds(), string(b)
		if err != nil {
			f.Error = err.Error()
		}
		rows = append(rows, f)
	}
	rec.mu.Lock()
	rec.b.Probes = append(rec.b.Probes, rows...)
	rec.mu.Unlock()
}

// cgroupRows are a phase's rows that say how the server's cgroup was
// found (or why it was not), and the rows of its counter files still to
// be read: each names its file in Command, for a reader that copies it
// elsewhere (inside a client's session) to fill Stdout.
func (c *collector) cgroupRows(cfg *study.Config, phase string) (said, files []samples.Probe) {
	if cfg == nil || cfg.Cgroup == study.CgroupOff {
		return nil, nil
	}
	started := time.Now()
	dir, found, err := c.serverCgroup(cfg)
	if found.name != "" {
		said = append(said, samples.Probe{Phase: phase, Name: CgroupProbeServer, Command: "read " + found.name, StartedAt: started, Stdout: found.text})
	}
	var paths [][2]string
	if err == nil {
		paths, err = counterFiles(dir)
	}
	if err != nil {
		return append(said, samples.Probe{Phase: phase, Name: CgroupProbeMissing, StartedAt: started,
			Error: "the server's I/O is not told apart from the device's: " + err.Error()}), nil
	}
	for _, f := range paths {
		files = append(files, samples.Probe{Phase: phase, Name: f[0], Command: f[1]})
	}
	return said, files
}

// counterFiles are the I/O counter files of a group's folder, each with
// its probe name: v2's io.stat, else v1's two blkio files.
func counterFiles(dir string) ([][2]string, error) {
	if p := filepath.Join(dir, "io.stat"); exists(p) {
		return [][2]string{{CgroupProbeV2, p}}, nil
	}
	var files [][2]string
	for _, f := range [][2]string{{CgroupProbeBytes, "blkio.throttle.io_service_bytes"}, {CgroupProbeIOs, "blkio.throttle.io_serviced"}} {
		p := filepath.Join(dir, f[1]+"_recursive")
		if !exists(p) {
			p = filepath.Join(dir, f[1])
		}
		if !exists(p) {
			return nil, fmt.Errorf("the cgroup %s has neither io.stat (cgroup v2 with the io controller) nor %s (cgroup v1 blkio)", dir, f[1])
		}
		files = append(files, [2]string{f[0], p})
	}
	return files, nil
}

// procText is a /proc file the server's group was found from, as read.
type procText struct{ name, text string }

// serverCgroup is the folder of the cgroup the configuration's server
// runs in: the one the study names, the one pgstudy made for it, or the
// one its postmaster is in (auto), when that is a group of its own.
func (c *collector) serverCgroup(cfg *study.Config) (string, procText, error) {
	switch cfg.Cgroup {
	case study.CgroupAuto, study.CgroupCreate:
	default:
		if _, err := os.Stat(cfg.Cgroup); err != nil {
			return "", procText{}, fmt.Errorf("the study's cgroup: %w", err)
		}
		return cfg.Cgroup, procText{}, nil
	}
	dir, found, err := c.postmasterCgroup(cfg)
	if cfg.Cgroup == study.CgroupCreate {
		made := c.cgroups[cfg.Name]
		if made == "" && err == nil && filepath.Base(dir) == "pgstudy-"+c.sharingStart(cfg)[0] {
			// Started in an earlier session that was stopped (a resume):
			// the group is the one pgstudy made then, removed at the end.
			made = dir
			c.cgroups[cfg.Name] = dir
		}
		switch {
		case made == "":
			return "", found, errors.New("cgroup: create, but the server was not started by pgstudy in this session (it was running already), so it is not in a group pgstudy made")
		case err == nil && dir != made:
			return "", found, fmt.Errorf("the server is in the cgroup %s, not in %s that pgstudy made and ran the start step in "+
				"(a start step that hands the server to a service manager, as podman and systemctl do, puts it elsewhere: name that group in cgroup:)", dir, made)
		}
		return made, found, nil
	}
	return dir, found, err
}

// postmasterCgroup finds the cgroup of the server's postmaster: its pid
// from postmaster.pid in the data directory, checked to be a process
// working in that directory (a pid of another PID namespace, as a
// container's, is not), and its group from /proc/PID/cgroup. A group
// that is the root, or pgstudy's own, is not the server's alone.
func (c *collector) postmasterCgroup(cfg *study.Config) (string, procText, error) {
	data := c.dataDir[cfg.Name]
	if data == "" {
		return "", procText{}, errors.New("the data directory is not on this machine (a server in a container?), so its postmaster cannot be found: name its cgroup in the study (cgroup: /sys/fs/cgroup/...)")
	}
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return "", procText{}, fmt.Errorf("find the postmaster: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return "", procText{}, fmt.Errorf("find the postmaster: the first line of %s is %q, not a pid", filepath.Join(data, "postmaster.pid"), first)
	}
	if err := sameDir(fmt.Sprintf("/proc/%d/cwd", pid), data); err != nil {
		return "", procText{}, fmt.Errorf("process %d of %s/postmaster.pid: %w", pid, data, err)
	}
	name := fmt.Sprintf("/proc/%d/cgroup", pid)
	text, err := os.ReadFile(name)
	found := procText{name, string(text)}
	if err != nil {
		return "", procText{}, err
	}
	own, _ := os.ReadFile("/proc/self/cgroup")
	dir, rel, err := groupFolder(found.text, string(own))
	if err != nil {
		return "", found, fmt.Errorf("%s: %w", name, err)
	}
	if rel == "/" {
		return "", found, errors.New("the server runs in the root cgroup, which counts every process of the machine: run it in a group of its own (cgroup: create, or a service manager's)")
	}
	return dir, found, nil
}

// sameDir says whether a process's working directory (link) is dir.
func sameDir(link, dir string) error {
	cwd, err := os.Readlink(link)
	if err != nil {
		return fmt.Errorf("cannot check that it is the server (%v)", err)
	}
	a, err1 := filepath.EvalSymlinks(cwd)
	b, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil || a != b {
		return fmt.Errorf("it works in %s, not in the data directory %s: not this server's postmaster", cwd, dir)
	}
	return nil
}

// groupFolder is the folder of a process's I/O cgroup from its
// /proc/PID/cgroup text: the v2 group when its folder has io.stat, else
// the v1 blkio group; with the group's path in its hierarchy. A group
// that is the collector's own (in own, /proc/self/cgroup) is refused: it
// counts pgstudy and whatever else runs beside it.
func groupFolder(text, own string) (dir, rel string, err error) {
	v2, v1 := hierarchyPath(text, ""), hierarchyPath(text, "blkio")
	mounts := cgroupMounts()
	switch {
	case v2 != "" && mounts.v2 != "" && exists(filepath.Join(mounts.v2, v2, "io.stat")):
		dir, rel = filepath.Join(mounts.v2, v2), v2
		if rel == hierarchyPath(own, "") && rel != "/" {
			return "", "", fmt.Errorf("the server is in pgstudy's own cgroup %s, which counts pgstudy and whatever runs beside it too", rel)
		}
	case v1 != "" && mounts.blkio != "":
		dir, rel = filepath.Join(mounts.blkio, v1), v1
		if rel == hierarchyPath(own, "blkio") && rel != "/" {
			return "", "", fmt.Errorf("the server is in pgstudy's own blkio cgroup %s, which counts pgstudy and whatever runs beside it too", rel)
		}
	default:
		return "", "", errors.New("no cgroup with I/O counters: neither cgroup v2 with the io controller nor v1 blkio is mounted for it")
	}
	return dir, rel, nil
}

// hierarchyPath is a process's group in the hierarchy of a v1
// controller, or with controller "" in v2's unified hierarchy.
func hierarchyPath(text, controller string) string {
	for _, line := range strings.Split(text, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if controller == "" && f[0] == "0" && f[1] == "" {
			return f[2]
		}
		if controller != "" && slices.Contains(strings.Split(f[1], ","), controller) {
			return f[2]
		}
	}
	return ""
}

// mounts are where the cgroup hierarchies with I/O counters are mounted.
type mounts struct{ v2, blkio string }

// cgroupMounts reads /proc/self/mountinfo for the v2 hierarchy and v1's
// blkio (a mount of the hierarchy's root only: a container's view of a
// sub-tree would need its root joined, which is not done).
func cgroupMounts() mounts {
	var m mounts
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return m
	}
	for _, line := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || f[3] != "/" {
			continue
		}
		switch {
		case g[0] == "cgroup2":
			m.v2 = f[4]
		case g[0] == "cgroup" && slices.Contains(strings.Split(g[2], ","), "blkio"):
			m.blkio = f[4]
		}
	}
	return m
}

// startInCgroup is the start step of a configuration with cgroup: create
// run in the group pgstudy makes for it: the shell joins the group first,
// so the server and every process it forks are in it. Other steps are
// returned as they are.
func (c *collector) startInCgroup(name string, sh *study.Shell) (*study.Shell, error) {
	// Configurations of one matrix entry share its start step, and the
	// server it starts: they share the group, named after the first.
	var cfg *study.Config
	for i := range c.study.Configs {
		if cf := &c.study.Configs[i]; cf.Start == sh && cf.Cgroup == study.CgroupCreate && name == "start" {
			cfg = cf
		}
	}
	if cfg == nil {
		return sh, nil
	}
	sharing := c.sharingStart(cfg)
	dir, err := c.makeCgroup(sharing[0])
	if err != nil {
		return nil, err
	}
	for _, cf := range sharing {
		c.cgroups[cf] = dir
	}
	joined := *sh
	joined.Sh = "echo $$ > " + shellQuote(filepath.Join(dir, "cgroup.procs")) + " || exit 1\n" + sh.Sh
	return &joined, nil
}

// cgroupPreflight finds, before the first run, what would keep every run
// of a configuration from its cgroup counters: a named group without
// them, cgroup: create where no group can be made.
func (c *collector) cgroupPreflight() []error {
	var errs []error
	for _, cfg := range c.study.Configs {
		switch cfg.Cgroup {
		case study.CgroupAuto, study.CgroupOff:
		case study.CgroupCreate:
			v1 := exists(filepath.Join(blkioRoot, "blkio.throttle.io_service_bytes"))
			ctl, _ := os.ReadFile(filepath.Join(cgroupRoot, "cgroup.controllers"))
			switch {
			case !v1 && !slices.Contains(strings.Fields(string(ctl)), "io"):
				errs = append(errs, fmt.Errorf("configuration %s: cgroup: create needs cgroup v1 blkio or cgroup v2 with the io controller, and this machine has neither", cfg.Name))
			case os.Geteuid() != 0:
				errs = append(errs, fmt.Errorf("configuration %s: cgroup: create makes a cgroup, which needs root", cfg.Name))
			}
		default:
			if _, err := os.Stat(cfg.Cgroup); err != nil {
				errs = append(errs, fmt.Errorf("configuration %s: cgroup: %w", cfg.Name, err))
			} else if _, err := counterFiles(cfg.Cgroup); err != nil {
				errs = append(errs, fmt.Errorf("configuration %s: %w", cfg.Name, err))
			}
		}
	}
	return errs
}

// sharingStart names the configurations with cgroup: create that share
// cfg's start step, in the study's order: cfg's group is named after the
// first.
func (c *collector) sharingStart(cfg *study.Config) []string {
	var names []string
	for _, cf := range c.study.Configs {
		if cf.Start == cfg.Start && cf.Cgroup == study.CgroupCreate {
			names = append(names, cf.Name)
		}
	}
	return names
}

// makeCgroup makes (once) the group a configuration's server is started
// in: under v1 blkio where the machine has it, else under v2 with the io
// controller enabled for its children.
func (c *collector) makeCgroup(config string) (string, error) {
	if dir := c.cgroups[config]; dir != "" && exists(dir) {
		return dir, nil
	}
	root := blkioRoot
	if !exists(filepath.Join(root, "blkio.throttle.io_service_bytes")) {
		root = cgroupRoot
		ctl, _ := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
		if !slices.Contains(strings.Fields(string(ctl)), "io") {
			return "", errors.New("cgroup: create needs cgroup v1 blkio or cgroup v2 with the io controller, and this machine has neither")
		}
		// Children get the io controller from their parent; a root that
		// holds processes (a container's) cannot give it.
		if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+io"), 0o644); err != nil {
			return "", fmt.Errorf("cgroup: create: enable the io controller in %s: %w", root, err)
		}
	}
	dir := filepath.Join(root, "pgstudy-"+config)
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("cgroup: create: %w (making a cgroup needs root)", err)
	}
	c.cgroups[config] = dir
	return dir, nil
}

// dropCgroups removes the groups pgstudy made, saying what it could not.
func (c *collector) dropCgroups() {
	if err := c.removeCgroups(); err != nil {
		c.progress.Logf("warning: %v", err)
	}
}

// removeCgroups removes the groups pgstudy made: what is still in one (a
// server left running) goes back to the root group first.
func (c *collector) removeCgroups() error {
	var errs []error
	for _, dir := range uniqueValues(c.cgroups) {
		if err := removeCgroup(dir, 5*time.Second); err != nil {
			errs = append(errs, fmt.Errorf("remove the cgroup %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}

// removeCgroup empties a group into its parent and removes it, trying
// again while the kernel says it is busy: a server that has just stopped
// can still be counted in its group for a moment (its last processes
// exiting), and one left running can fork between the move and the rmdir.
func removeCgroup(dir string, patience time.Duration) error {
	deadline := time.Now().Add(patience)
	for {
		if procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
			for _, pid := range strings.Fields(string(procs)) {
				// A process that has exited in between cannot be moved,
				// and needs not be.
				_ = os.WriteFile(filepath.Join(filepath.Dir(dir), "cgroup.procs"), []byte(pid), 0o644)
			}
		}
		err := os.Remove(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func uniqueValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
