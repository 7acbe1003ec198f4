package collect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/samples/study"
)

func setStatements(m map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, "SET "+quoteIdent(k)+" = "+quoteLiteral(m[k]))
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// applySettings brings a configuration's settings into effect. A setting
// a session may change is returned as a SET for the run's sessions, and by
// name (an external client such as pgbench gets them through PGOPTIONS);
// any other is written with ALTER SYSTEM and the server reloaded, or
// restarted when the setting needs it. What another configuration of the
// same server wrote with ALTER SYSTEM and this one does not declare is put
// back as found (isolate). It also learns the data directory.
func (c *collector) applySettings(ctx context.Context, rec *recorder, cfg *study.Config) ([]string, map[string]string, error) {
	names := c.serverNames(cfg)
	if len(names) == 0 && c.dataDir[cfg.Name] != "" {
		return nil, nil, nil
	}
	s, err := connect(ctx, cfg.DSN, rec)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", cfg.Name, err)
	}
	defer s.Close()
	c.learnDataDir(ctx, s, cfg)
	if len(names) == 0 {
		return nil, nil, nil
	}
	r, err := s.query(ctx, "settings", "select name, context, coalesce(array_to_string(enumvals, ','), '') from pg_settings where name in ("+quotedList(names)+")")
	if err != nil {
		return nil, nil, err
	}
	context := map[string]string{}
	for _, row := range r.Rows {
		name := str(row[0])
		context[name] = str(row[1])
		if _, own := cfg.Settings[name]; own {
			if err := checkEnum(cfg, name, str(row[2])); err != nil {
				return nil, nil, err
			}
		}
	}
	var sets, system []string
	session := map[string]string{}
	for _, n := range names {
		_, own := cfg.Settings[n]
		switch context[n] {
		case "":
			if own {
				return nil, nil, fmt.Errorf("configuration %s: %q is not a setting of this server", cfg.Name, n)
			}
		case "user", "superuser":
			if own {
				sets = append(sets, "SET "+quoteIdent(n)+" = "+quoteLiteral(cfg.Settings[n]))
				session[n] = cfg.Settings[n]
			}
		case "internal":
			if own {
				return nil, nil, fmt.Errorf("configuration %s: %q is fixed when the server is built or initialised and cannot be set", cfg.Name, n)
			}
		default:
			system = append(system, n)
		}
	}
	if err := c.isolate(ctx, rec, s, cfg, system); err != nil {
		return nil, nil, err
	}
	return sets, session, nil
}

// learnDataDir asks the server where its data directory is, once, and
// keeps it when this machine has it (a server in a container may not).
func (c *collector) learnDataDir(ctx context.Context, s *session, cfg *study.Config) {
	if c.dataDir[cfg.Name] != "" {
		return
	}
	if r, err := s.query(ctx, "settings", "select setting from pg_settings where name = 'data_directory'"); err == nil && len(r.Rows) == 1 {
		if dir := str(r.Rows[0][0]); dir != "" {
			if _, err := os.Stat(dir); err == nil {
				c.dataDir[cfg.Name] = dir
			}
		}
	}
}

// checkEnum refuses a value an enum setting does not accept on this
// server, before it is set: a server started with it would not come back.
// io_uring is the case that matters: a server built without liburing does
// not offer it.
func checkEnum(cfg *study.Config, name, enumvals string) error {
	if enumvals == "" {
		return nil
	}
	v := cfg.Settings[name]
	vals := strings.Split(enumvals, ",")
	if slices.ContainsFunc(vals, func(e string) bool { return strings.EqualFold(e, v) }) {
		return nil
	}
	msg := fmt.Sprintf("configuration %s: %s cannot be %q on this server, which accepts %s", cfg.Name, name, v, strings.Join(vals, ", "))
	if name == "io_method" && strings.EqualFold(v, "io_uring") {
		msg += "; io_uring needs a server built with liburing (configure --with-liburing)"
	}
	return errors.New(msg)
}

// recordServer records the server's version and settings once per
// configuration and round.
func (c *collector) recordServer(ctx context.Context, meta *session, it Item, rec *recorder) error {
	key := fmt.Sprintf("%s/%d", it.Config.Name, it.Round)
	if c.facts[key] {
		return nil
	}
	srv, settings, err := meta.serverFacts(ctx)
	if err != nil {
		return fmt.Errorf("read the settings of %s: %w", it.Config.Name, err)
	}
	c.version[it.Config.Name] = srv.ServerVersionNum
	srv.Round, srv.Config = int32(it.Round), it.Config.Name
	dir := c.dataDir[it.Config.Name]
	if dir == "" {
		if _, err := os.Stat(srv.DataDirectory); err == nil && srv.DataDirectory != "" {
			dir = srv.DataDirectory
			c.dataDir[it.Config.Name] = dir
		}
	}
	if dir != "" {
		srv.Device, srv.Mount, _ = deviceOf(dir)
	}
	for i := range settings {
		settings[i].Round, settings[i].Config = srv.Round, srv.Config
	}
	if err := c.recordSizes(ctx, meta, it, rec); err != nil {
		return err
	}
	rec.mu.Lock()
	rec.b.Servers = append(rec.b.Servers, srv)
	rec.b.Settings = append(rec.b.Settings, settings...)
	rec.mu.Unlock()
	c.facts[key] = true
	return nil
}
