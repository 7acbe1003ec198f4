package collect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// Configurations that share a server (the same DSN) share its
// postgresql.auto.conf. Before each run, the settings of that server that
// any of them writes with ALTER SYSTEM are brought to what the run's
// configuration needs: its own value where it declares one, else the entry
// the file had when pgstudy first looked (or no entry). At the end of the
// collect, each such file is brought back to what was found.

// autoConf is what pgstudy knows of one server's postgresql.auto.conf.
type autoConf struct {
	// found is each managed setting's entry before pgstudy's first
	// change: its value, or nil when the file had none.
	found map[string]*string
}

// autoConfEntries reads the entries of postgresql.auto.conf for names, as
// the file holds them now (pg_file_settings reads the file when asked).
// The last entry of a name is the one in force.
func autoConfEntries(ctx context.Context, s *session, names []string) (map[string]*string, error) {
	r, err := s.query(ctx, "settings", "select lower(name), setting from pg_file_settings "+
		"where sourcefile ~ '(^|/)postgresql\\.auto\\.conf$' and name is not null and lower(name) in ("+quotedList(names)+") order by seqno")
	if err != nil {
		return nil, fmt.Errorf("read postgresql.auto.conf through pg_file_settings (pgstudy reads it to put the server back as it was found; "+
			"it needs a superuser or a role granted pg_read_all_settings and execute on pg_show_all_file_settings): %w", err)
	}
	out := map[string]*string{}
	for _, n := range names {
		out[n] = nil
	}
	for _, row := range r.Rows {
		v := str(row[1])
		out[str(row[0])] = &v
	}
	return out, nil
}

func quotedList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteLiteral(strings.ToLower(n))
	}
	return strings.Join(q, ", ")
}

// isolate makes the server of cfg carry cfg's value of each system
// setting in system (the settings of this server that some configuration
// writes with ALTER SYSTEM) and the value found for the others, reloads
// it, and restarts it when one of them needs it. It closes s before a
// restart.
func (c *collector) isolate(ctx context.Context, rec *recorder, s *session, cfg *study.Config, system []string) error {
	if len(system) == 0 {
		return nil
	}
	now, err := autoConfEntries(ctx, s, system)
	if err != nil {
		return fmt.Errorf("configuration %s: %w", cfg.Name, err)
	}
	ac := c.autoConf[cfg.DSN]
	if ac == nil {
		ac = &autoConf{found: map[string]*string{}}
		c.autoConf[cfg.DSN] = ac
	}
	for _, n := range system {
		if _, ok := ac.found[n]; !ok {
			// A name first managed in this run: its entry before any
			// change of pgstudy's is the one the file has now. It is
			// recorded, so that a resume after a kill knows it.
			ac.found[n] = now[n]
			rec.found(n, now[n])
		}
	}
	want := map[string]*string{}
	for _, n := range system {
		want[n] = ac.found[n]
		if v, ok := cfg.Settings[n]; ok {
			want[n] = &v
		}
	}
	return c.writeAutoConf(ctx, rec, s, cfg, system, now, want)
}

// writeAutoConf changes the entries of postgresql.auto.conf that differ
// from want (nil: no entry), reloads the server, and restarts it when a
// setting of names is pending a restart, through cfg's stop: and start:
// or those of another configuration of the same server.
func (c *collector) writeAutoConf(ctx context.Context, rec *recorder, s *session, cfg *study.Config, names []string, now, want map[string]*string) error {
	changed := false
	for _, n := range names {
		if samePtr(now[n], want[n]) {
			continue
		}
		sql := "ALTER SYSTEM RESET " + quoteIdent(n)
		if want[n] != nil {
			sql = "ALTER SYSTEM SET " + quoteIdent(n) + " = " + quoteLiteral(*want[n])
		}
		if _, err := s.query(ctx, "settings", sql); err != nil {
			return fmt.Errorf("configuration %s: %w", cfg.Name, err)
		}
		changed = true
	}
	if changed {
		if _, err := s.query(ctx, "settings", "select pg_reload_conf()"); err != nil {
			return err
		}
		// The reload is asynchronous; pending_restart shows once it is read.
		time.Sleep(300 * time.Millisecond)
	}
	r, err := s.query(ctx, "settings", "select name from pg_settings where pending_restart and name in ("+quotedList(names)+")")
	if err != nil {
		return err
	}
	if len(r.Rows) == 0 {
		return nil
	}
	by := c.restarter(cfg)
	if by == nil {
		return fmt.Errorf("configuration %s: %s needs a restart, and no configuration of this server has stop: and start: commands", cfg.Name, str(r.Rows[0][0]))
	}
	s.Close()
	if err := c.shellStep(ctx, rec, "settings", "stop", by.Stop); err != nil {
		return fmt.Errorf("restart %s for its settings: %w", cfg.Name, err)
	}
	if err := c.startServer(ctx, rec, "settings", by); err != nil {
		return fmt.Errorf("restart %s for its settings: %w", cfg.Name, err)
	}
	return c.waitReady(ctx, rec, "settings", cfg, c.study.Protocol.ReadyTimeout.Duration)
}

func samePtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// restarter is the configuration whose stop: and start: restart cfg's
// server: cfg's own, else the first of the same server that has both.
func (c *collector) restarter(cfg *study.Config) *study.Config {
	if cfg.Stop != nil && cfg.Start != nil {
		return cfg
	}
	for i := range c.study.Configs {
		o := &c.study.Configs[i]
		if o.DSN == cfg.DSN && o.Stop != nil && o.Start != nil {
			return o
		}
	}
	return nil
}

// startServer runs cfg's start: command and remembers the server as one
// collect started.
func (c *collector) startServer(ctx context.Context, rec *recorder, phase string, cfg *study.Config) error {
	err := c.shellStep(ctx, rec, phase, "start", cfg.Start)
	if _, ok := c.started[cfg.DSN]; !ok {
		c.started[cfg.DSN] = cfg
	}
	return err
}

// serverNames are the settings that the configurations of cfg's server
// declare, sorted.
func (c *collector) serverNames(cfg *study.Config) []string {
	var names []string
	for _, o := range c.study.Configs {
		if o.DSN != cfg.DSN {
			continue
		}
		for n := range o.Settings {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// noteRunning records, before the first run, which servers with a start:
// command are up, so that the end of the collect leaves each as found.
func (c *collector) noteRunning(ctx context.Context) {
	for _, cfg := range c.study.Configs {
		if _, seen := c.foundUp[cfg.DSN]; !seen && cfg.Start != nil {
			c.foundUp[cfg.DSN] = reachable(ctx, cfg.DSN)
		}
	}
}

// finish puts the servers back as collect found them: each
// postgresql.auto.conf pgstudy changed holds its entries again (reloaded,
// and restarted where a setting needs it and the server stays up), and
// each server collect started that was down before the first run is
// stopped, unless opt.LeaveRunning. It runs after an interruption too,
// with a context of its own: a cancelled collect still cleans up.
func (c *collector) finish(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*c.study.Protocol.ReadyTimeout.Duration+time.Minute)
	defer cancel()
	rec := newRecorder(Item{Config: &study.Config{}, Test: &study.Test{}})
	var errs []error
	for _, dsn := range sortedKeys(c.autoConf) {
		if err := c.restoreAutoConf(ctx, rec, dsn); err != nil {
			errs = append(errs, err)
		}
	}
	for _, dsn := range sortedKeys(c.foundUp) {
		if cfg := c.configOf(dsn, true); c.foundUp[dsn] && !reachable(ctx, dsn) {
			// Up when collect began, stopped by a cold step: up again.
			if err := c.shellStep(ctx, rec, "finish", "start", cfg.Start); err != nil {
				errs = append(errs, fmt.Errorf("start %s again, which was up before collect: %w", cfg.Name, err))
			}
		}
	}
	if !c.opt.LeaveRunning {
		for _, dsn := range sortedKeys(c.started) {
			cfg := c.started[dsn]
			if c.foundUp[dsn] || !reachable(ctx, dsn) {
				continue
			}
			if cfg.Stop == nil {
				errs = append(errs, fmt.Errorf("configuration %s: collect started its server, which has no stop: command to stop it again", cfg.Name))
				continue
			}
			if err := c.shellStep(ctx, rec, "finish", "stop", cfg.Stop); err != nil {
				errs = append(errs, fmt.Errorf("stop %s, which collect started: %w", cfg.Name, err))
			} else {
				c.progress.Logf("stopped %s, which collect started (--leave-running keeps it up)", cfg.Name)
			}
		}
	}
	return errors.Join(errs...)
}

// restoreAutoConf brings one server's postgresql.auto.conf back to the
// entries found before pgstudy's first change.
func (c *collector) restoreAutoConf(ctx context.Context, rec *recorder, dsn string) error {
	ac := c.autoConf[dsn]
	cfg := c.configOf(dsn, false)
	if !reachable(ctx, dsn) {
		by := c.restarter(cfg)
		if by == nil {
			return fmt.Errorf("configuration %s: its server is down and has no start: command, so postgresql.auto.conf could not be put back as found", cfg.Name)
		}
		if err := c.startServer(ctx, rec, "finish", by); err != nil {
			return fmt.Errorf("start %s to put its settings back: %w", cfg.Name, err)
		}
		if err := c.waitReady(ctx, rec, "finish", cfg, c.study.Protocol.ReadyTimeout.Duration); err != nil {
			return err
		}
	}
	s, err := connect(ctx, dsn, nil)
	if err != nil {
		return fmt.Errorf("connect to %s to put its settings back: %w", cfg.Name, err)
	}
	defer s.Close()
	names := sortedKeys(ac.found)
	now, err := autoConfEntries(ctx, s, names)
	if err != nil {
		return fmt.Errorf("configuration %s: %w", cfg.Name, err)
	}
	if err := c.writeAutoConf(ctx, rec, s, cfg, names, now, ac.found); err != nil {
		return fmt.Errorf("put the settings of %s back as found: %w", cfg.Name, err)
	}
	return nil
}

// configOf is the first configuration of a server, or the first with a
// start: command.
func (c *collector) configOf(dsn string, withStart bool) *study.Config {
	for i := range c.study.Configs {
		if cfg := c.study.Configs[i]; cfg.DSN == dsn && (!withStart || cfg.Start != nil) {
			return &c.study.Configs[i]
		}
	}
	return &study.Config{DSN: dsn}
}

// noReadBack is set by tests that make a capture as pgstudy did before it
// read the settings back before each run.
var noReadBack bool

// readBack records the settings the run runs with, as the bookkeeping
// session (which carries the configuration's SETs) sees them just before
// the statement: every setting any configuration of the study declares.
// They are Stat rows of view "pg_settings", phase "before".
func (c *collector) readBack(ctx context.Context, meta *session, rec *recorder) error {
	if noReadBack {
		return nil
	}
	var names []string
	for _, cfg := range c.study.Configs {
		for n := range cfg.Settings {
			if !slices.Contains(names, strings.ToLower(n)) {
				names = append(names, strings.ToLower(n))
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	r, err := meta.query(ctx, "settings", "select row_to_json(s)::text from (select name, setting, unit, source, pending_restart "+
		"from pg_settings where name in ("+quotedList(names)+") order by name) s")
	if err != nil {
		return fmt.Errorf("read back the run's settings: %w", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, row := range r.Rows {
		rec.b.Stats = append(rec.b.Stats, samples.Stat{Phase: "before", View: "pg_settings", Row: int32(i + 1), JSON: str(row[0])})
	}
	return nil
}
