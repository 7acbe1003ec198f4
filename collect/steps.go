package collect

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/samples/study"

	"github.com/pgstudy/pgstudy/samples"
)

// runDevices are the devices a run's disk figures are about: the study's,
// else the one holding the data directory, else every whole disk.
func (c *collector) runDevices(cfg *study.Config) []string {
	if len(c.study.Disk.Devices) > 0 {
		return c.study.Disk.Devices
	}
	if dir := c.dataDir[cfg.Name]; dir != "" {
		if dev, _, err := deviceOf(dir); err == nil && dev != "" {
			return []string{dev}
		}
	}
	return wholeDisks()
}

// coldStep runs one cold-cache step for a run on cfg.
func (c *collector) coldStep(ctx context.Context, rec *recorder, st study.Step, cfg *study.Config) error {
	switch st.Kind {
	case "stop-all":
		for i := range c.study.Configs {
			other := &c.study.Configs[i]
			if !reachable(ctx, other.DSN) {
				rec.step("cold", "stop-all", other.Name+": not running", time.Now(), 0, nil, "", nil)
				continue
			}
			if err := c.shellStep(ctx, rec, "cold", "stop-all", other.Stop); err != nil {
				return fmt.Errorf("stop %s: %w", other.Name, err)
			}
		}
		return nil
	case "start":
		return c.startServer(ctx, rec, "cold", cfg)
	case "sh":
		return c.shellStep(ctx, rec, "cold", "sh", st.Shell)
	case "wait-ready":
		return c.waitReady(ctx, rec, "cold", cfg, st.Timeout)
	case "drop-caches":
		started := time.Now()
		err := dropCaches()
		rec.step("cold", "drop-caches", "sync; echo 3 > /proc/sys/vm/drop_caches", started, time.Since(started), nil, "", err)
		return err
	case "evict":
		paths := st.Paths
		if len(paths) == 0 {
			dir := c.dataDir[cfg.Name]
			if dir == "" {
				return fmt.Errorf("evict without a path drops the data directory of the configuration under test, "+
					"and that of %s is not known here: give it as data_dir: or name the paths", cfg.Name)
			}
			paths = []string{dir}
		}
		started := time.Now()
		res, err := evict(paths)
		rec.step("cold", "evict", strings.Join(paths, " "), started, time.Since(started), nil,
			fmt.Sprintf("%d files, %d bytes", res.Files, res.Bytes), err)
		return err
	}
	return fmt.Errorf("unknown cold-cache step %q", st.Kind)
}

func (c *collector) shellStep(ctx context.Context, rec *recorder, phase, name string, sh *study.Shell) error {
	sh, err := c.startInCgroup(name, sh)
	if err != nil {
		return err
	}
	res := runShell(ctx, sh.Sh, sh.Env, sh.Timeout.Duration, nil)
	rec.step(phase, name, c.red.Structural(sh.Sh), res.Started, res.Elapsed, res.ExitCode, string(res.Stdout)+string(res.Stderr), res.Err)
	return res.Err
}

func (c *collector) waitReady(ctx context.Context, rec *recorder, phase string, cfg *study.Config, timeout time.Duration) error {
	started := time.Now()
	err := waitReady(ctx, cfg.DSN, timeout)
	rec.step(phase, "wait-ready", cfg.Name, started, time.Since(started), nil, "", err)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.Name, err)
	}
	return nil
}

func (c *collector) probes(ctx context.Context, rec *recorder, phase string) {
	for _, p := range c.study.Probes {
		timeout := 30 * time.Second
		if p.Timeout.Set {
			timeout = p.Timeout.Duration
		}
		res := runShell(ctx, p.Sh, p.Env, timeout, nil)
		row := samples.Probe{Phase: phase, Name: p.Name, Command: c.red.Structural(p.Sh), StartedAt: res.Started, ElapsedNs: res.Elapsed.Nanoseconds(),
			ExitCode: res.ExitCode, Stdout: string(res.Stdout), Stderr: string(res.Stderr)}
		if res.Err != nil {
			row.Error = res.Err.Error()
		}
		rec.mu.Lock()
		rec.b.Probes = append(rec.b.Probes, row)
		rec.mu.Unlock()
	}
}
