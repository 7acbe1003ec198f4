package collect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// timedRun is one run's steps, in order: the server made ready with the
// run's settings and before statements, the cold steps, the bookkeeping
// session, the statement (or throughput client) inside its window, and
// the plan as executed.
func (c *collector) timedRun(ctx context.Context, it Item, rec *recorder) error {
	cfg, t := it.Config, it.Test
	// 1. The server under test is up, holds its configuration's settings,
	// and has had the test's before statements.
	configSets, sessionSettings, err := c.ready(ctx, rec, it)
	if err != nil {
		return err
	}
	sets := append(slices.Clone(configSets), setStatements(t.Set)...)
	if err := c.prepare(ctx, rec, it, sets); err != nil {
		return err
	}
	// 2. Cold.
	if err := c.makeCold(ctx, rec, cfg); err != nil {
		return err
	}
	// 3. Bookkeeping on a session of its own, so the timed session sends
	// nothing but its settings and the statement.
	meta, err := c.metaSession(ctx, rec, it, configSets)
	if err != nil {
		return err
	}
	defer meta.Close()
	// 4. The timed statement (or throughput client), between the
	// snapshots of its window; 5. the plan as executed, after the timed
	// run so that it cannot warm it.
	switch {
	case t.Throughput():
		return c.throughputRun(ctx, it, rec, meta, sessionSettings)
	case cfg.Client == "psql":
		if err := c.psqlStatement(ctx, it, rec, meta, sets); err != nil {
			return err
		}
		return c.explainAnalyze(ctx, rec, it, nil, sets)
	default:
		return c.pgxStatement(ctx, it, rec, meta, sets)
	}
}

// explainAnalyzePrefix is the EXPLAIN that runs after a timed run: with
// the WAL the statement generated where the server reports it (13+).
func explainAnalyzePrefix(version int32) string {
	if version >= 130000 {
		return "EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) "
	}
	return "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "
}

// ready starts the configuration's server if it is down, waits for it and
// applies its settings: those a session sets itself are returned as SET
// statements and by name.
func (c *collector) ready(ctx context.Context, rec *recorder, it Item) ([]string, map[string]string, error) {
	cfg := it.Config
	// A configuration without start: is started by another of its server.
	by := cfg
	if by.Start == nil {
		by = c.configOf(cfg.DSN, true)
	}
	if by.Start != nil && !reachable(ctx, cfg.DSN) {
		if err := c.startServer(ctx, rec, "prepare", by); err != nil {
			return nil, nil, fmt.Errorf("start %s: %w", cfg.Name, err)
		}
	}
	if err := c.waitReady(ctx, rec, "prepare", cfg, c.study.Protocol.ReadyTimeout.Duration); err != nil {
		return nil, nil, err
	}
	return c.applySettings(ctx, rec, cfg)
}

// makeCold runs the cold steps and waits for the server.
func (c *collector) makeCold(ctx context.Context, rec *recorder, cfg *study.Config) error {
	var cold []string
	for _, st := range c.study.Protocol.Cold {
		if err := c.coldStep(ctx, rec, st, cfg); err != nil {
			return fmt.Errorf("cold step %s: %w", st.String(), err)
		}
		cold = append(cold, st.String())
	}
	rec.b.Run.Cold = strings.Join(cold, "; ")
	return c.waitReady(ctx, rec, "cold", cfg, c.study.Protocol.ReadyTimeout.Duration)
}

// metaSession opens the session that reads statistics around the run and
// records the server's facts.
func (c *collector) metaSession(ctx context.Context, rec *recorder, it Item, configSets []string) (*session, error) {
	cfg := it.Config
	meta, err := connect(ctx, cfg.DSN, rec)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", cfg.Name, err)
	}
	// The settings recorded are those the configuration's sessions run
	// with: its session settings are applied here too.
	for _, set := range configSets {
		if _, err := meta.query(ctx, "set", set); err != nil {
			meta.Close()
			return nil, err
		}
	}
	if err := c.recordServer(ctx, meta, it, rec); err != nil {
		meta.Close()
		return nil, err
	}
	if err := c.readBack(ctx, meta, rec); err != nil {
		meta.Close()
		return nil, err
	}
	rec.b.Run.Devices = strings.Join(c.runDevices(cfg), ",")
	return meta, nil
}

// prepare runs the before statements and takes the plan, on a session
// that ends before the cold steps: planning reads catalog and index pages,
// which the cold steps then drop.
func (c *collector) prepare(ctx context.Context, rec *recorder, it Item, sets []string) error {
	before, err := beforeSQL(c.study, it.Test, it.Config.Name, it.Round)
	if err != nil {
		return err
	}
	wantPlan := c.study.Explain(it.Test) && explainable(it.Test.SQL)
	if len(before) == 0 && !wantPlan {
		return nil
	}
	prep, err := connect(ctx, it.Config.DSN, rec)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", it.Config.Name, err)
	}
	defer prep.Close()
	for _, sql := range before {
		if err := errorFirst(prep.exec(ctx, "before", sql)); err != nil {
			return fmt.Errorf("before statement %q: %w", firstLine(sql), err)
		}
	}
	if wantPlan {
		for _, set := range sets {
			if _, err := prep.query(ctx, "set", set); err != nil {
				return err
			}
		}
		c.explain(ctx, rec, prep, "explain", "EXPLAIN (FORMAT JSON) ", it.Test.SQL)
	}
	return nil
}

func (c *collector) explain(ctx context.Context, rec *recorder, s *session, kind, prefix, sql string) {
	r, err := s.query(ctx, kind, prefix+strings.TrimRight(strings.TrimSpace(sql), ";"))
	p := samples.Plan{Kind: kind, Format: "json"}
	if err != nil {
		p.Error = err.Error()
	} else {
		var lines []string
		for _, row := range r.Rows {
			lines = append(lines, str(row[0]))
		}
		p.Text = strings.Join(lines, "\n")
	}
	rec.mu.Lock()
	rec.b.Plans = append(rec.b.Plans, p)
	rec.mu.Unlock()
}

// explainable says whether EXPLAIN accepts a statement.
func explainable(sql string) bool {
	f := strings.Fields(strings.ToLower(sql))
	if len(f) == 0 {
		return false
	}
	switch strings.TrimLeft(f[0], "(") {
	case "select", "with", "insert", "update", "delete", "merge", "values", "table", "execute":
		return !strings.Contains(strings.TrimRight(strings.TrimSpace(sql), ";"), ";")
	}
	return false
}

// explainAnalyze runs EXPLAIN (ANALYZE, BUFFERS) of the test's statement
// after its timed run, when the study asks for it: on the timed session
// (pgx), or on a session of its own with the run's settings (psql, whose
// session has ended). Either way the server plans and runs it as the
// timed session did, with the cache as the timed run left it, and rolls
// back what it wrote.
func (c *collector) explainAnalyze(ctx context.Context, rec *recorder, it Item, s *session, sets []string) error {
	if !c.study.ExplainAnalyze(it.Test) || !explainable(it.Test.SQL) {
		return nil
	}
	if s == nil {
		var err error
		if s, err = c.timedSession(ctx, rec, it.Config, sets); err != nil {
			return err
		}
		defer s.Close()
	}
	// EXPLAIN ANALYZE executes the statement: inside a transaction rolled
	// back, so that a writing test changes the data once per run, as
	// timed, and not a second time here.
	if _, err := s.query(ctx, "explain-analyze", "begin"); err != nil {
		return err
	}
	c.explain(ctx, rec, s, "explain-analyze", explainAnalyzePrefix(c.version[it.Config.Name]), it.Test.SQL)
	if _, err := s.query(ctx, "explain-analyze", "rollback"); err != nil {
		return fmt.Errorf("roll back EXPLAIN ANALYZE's execution of the statement: %w", err)
	}
	return nil
}

// timedSession opens a session with the run's settings.
func (c *collector) timedSession(ctx context.Context, rec *recorder, cfg *study.Config, sets []string) (*session, error) {
	s, err := connect(ctx, cfg.DSN, rec)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", cfg.Name, err)
	}
	for _, set := range sets {
		if _, err := s.query(ctx, "set", set); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// statementTimeout is ctx ended at the test's statement timeout, if any.
func (c *collector) statementTimeout(ctx context.Context, t *study.Test) (context.Context, context.CancelFunc) {
	if d := c.study.StatementTimeout(t); d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// timeoutErr is the run's error when its statement ran past its timeout.
func (c *collector) timeoutErr(t *study.Test) error {
	return fmt.Errorf("the statement ran past its timeout of %s and was cancelled%w", c.study.StatementTimeout(t), errTimeout)
}

// pgxStatement runs the test's statement on a session of its own, with
// the run's settings, inside its window; then the plan as executed, on
// the same session.
func (c *collector) pgxStatement(ctx context.Context, it Item, rec *recorder, meta *session, sets []string) error {
	run := &rec.b.Run
	timed, err := c.timedSession(ctx, rec, it.Config, sets)
	if err != nil {
		return err
	}
	defer timed.Close()
	pid := int32(timed.conn.PID())
	run.BackendPID = &pid
	w, err := c.openWindow(ctx, rec, meta, pid, false)
	if err != nil {
		return err
	}
	sctx, cancel := c.statementTimeout(ctx, it.Test)
	results := timed.exec(sctx, "timed", it.Test.SQL)
	timedOut := sctx.Err() == context.DeadlineExceeded
	cancel()
	end := time.Now()
	err = errorFirst(results)
	var flush func()
	if err == nil && c.version[it.Config.Name] >= 150000 {
		// Make the timed session's I/O statistics visible to the next read.
		flush = func() { timed.query(ctx, "stats", "select pg_stat_force_next_flush()") }
	}
	statsErr := w.close(ctx, flush)
	// The window's edges; the elapsed time is the session's own measure,
	// the tighter one: from sending the statement to its last result.
	run.StartedAt, run.EndedAt, run.ElapsedNs = w.Start, end, end.Sub(w.Start).Nanoseconds()
	if len(results) > 0 {
		run.ElapsedNs = results[0].Elapsed.Nanoseconds()
	}
	var pgErr *pgconn.PgError
	switch {
	case timedOut:
		return c.timeoutErr(it.Test)
	case err != nil && timed.conn.IsClosed() && !errors.As(err, &pgErr):
		// The server said nothing: a bare "unexpected EOF" would not
		// tell the reader of the run what happened.
		return fmt.Errorf("the connection to %s was lost during the statement (%w): the server stopped, crashed or closed the session",
			it.Config.Name, err)
	case err != nil:
		return err
	case statsErr != nil:
		return statsErr
	}
	return c.explainAnalyze(ctx, rec, it, timed, sets)
}
