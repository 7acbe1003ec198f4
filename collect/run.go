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
// run's settings and before statements, the cold steps, the sessions that
// time and watch it, the run itself between statistics and probes, and
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
	var timed *session
	if cfg.Client == "pgx" && !t.Throughput() {
		if timed, err = c.timedSession(ctx, rec, cfg, sets); err != nil {
			return err
		}
		defer timed.Close()
	}
	// 4. The timed statement, watched.
	if err := c.watched(ctx, it, rec, meta, timed, sets, sessionSettings); err != nil {
		return err
	}
	// 5. The plan as executed, after the timed run so that it cannot warm it.
	if c.study.ExplainAnalyze(t) && explainable(t.SQL) && timed != nil {
		c.explain(ctx, rec, timed, "explain-analyze", explainAnalyzePrefix(c.version[cfg.Name]), t.SQL)
	}
	return nil
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
	if !reachable(ctx, cfg.DSN) && cfg.Start != nil {
		if err := c.shellStep(ctx, rec, "prepare", "start", cfg.Start); err != nil {
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
	rec.b.Run.Devices = strings.Join(c.runDevices(cfg), ",")
	return meta, nil
}

// timedSession opens the session the statement is timed on, with the
// run's settings.
func (c *collector) timedSession(ctx context.Context, rec *recorder, cfg *study.Config, sets []string) (*session, error) {
	timed, err := connect(ctx, cfg.DSN, rec)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", cfg.Name, err)
	}
	pid := int32(timed.conn.PID())
	rec.b.Run.BackendPID = &pid
	for _, set := range sets {
		if _, err := timed.query(ctx, "set", set); err != nil {
			timed.Close()
			return nil, err
		}
	}
	return timed, nil
}

// watched runs the timed statement or the throughput test between the
// probes and the statistics before and after it, sampling pg_aios during.
func (c *collector) watched(ctx context.Context, it Item, rec *recorder, meta, timed *session, sets []string, sessionSettings map[string]string) error {
	run := &rec.b.Run
	version := c.version[it.Config.Name]
	c.probes(ctx, rec, "before")
	var timedPID int32
	if run.BackendPID != nil {
		timedPID = *run.BackendPID
	}
	w, rows, err := meta.stats(ctx, version, "before", timedPID)
	run.WALLSNBefore, run.WALPosBefore, run.WALInsertLSNBefore, run.WALInsertPosBefore = w.lsn, w.pos, w.insertLSN, w.insertPos
	rec.b.Stats = append(rec.b.Stats, rows...)
	if err != nil {
		return fmt.Errorf("read statistics before the run: %w", err)
	}
	var runErr error
	aios := c.startAIOSampler(ctx, meta, version)
	if it.Test.Throughput() {
		runErr = c.throughputRun(ctx, it, rec, sessionSettings)
	} else {
		runErr = c.timedStatement(ctx, it, rec, timed, sets, version)
	}
	rec.mu.Lock()
	rec.b.Stats = append(rec.b.Stats, aios.Stop()...)
	rec.mu.Unlock()

	if timed != nil && version >= 150000 && runErr == nil {
		// Make the timed session's I/O statistics visible to the next read.
		timed.query(ctx, "stats", "select pg_stat_force_next_flush()")
	}
	w, rows, err = meta.stats(ctx, version, "after", timedPID)
	run.WALLSNAfter, run.WALPosAfter, run.WALInsertLSNAfter, run.WALInsertPosAfter = w.lsn, w.pos, w.insertLSN, w.insertPos
	rec.b.Stats = append(rec.b.Stats, rows...)
	c.probes(ctx, rec, "after")
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return fmt.Errorf("read statistics after the run: %w", err)
	}
	return nil
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

// timedStatement runs the test's statement and records diskstats around
// and during it.
func (c *collector) timedStatement(ctx context.Context, it Item, rec *recorder, timed *session, sets []string, version int32) error {
	run := &rec.b.Run
	if d := c.study.StatementTimeout(it.Test); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	var psqlScript []byte
	var psqlEnv map[string]string
	if timed == nil {
		psqlScript = psqlInput(sets, it.Test.SQL, version)
		var err error
		if psqlEnv, err = libpqEnv(it.Config.DSN); err != nil {
			return err
		}
	}

	before := readDiskstats()
	samp := startSampler(c.study.Disk.Sample.Duration)
	start := time.Now()
	var err error
	var res shellResult
	var results []result
	if timed != nil {
		results = timed.exec(ctx, "timed", it.Test.SQL)
		err = errorFirst(results)
		var pgErr *pgconn.PgError
		if err != nil && ctx.Err() == nil && timed.conn.IsClosed() && !errors.As(err, &pgErr) {
			// The server said nothing: a bare "unexpected EOF" would not
			// tell the reader of the run what happened.
			err = fmt.Errorf("the connection to %s was lost during the statement (%w): the server stopped, crashed or closed the session",
				it.Config.Name, err)
		}
	} else {
		res = runShell(ctx, it.Config.Psql, psqlEnv, 0, psqlScript)
	}
	elapsed := time.Since(start)
	during := samp.Stop()
	after := readDiskstats()

	run.StartedAt, run.EndedAt, run.ElapsedNs = start, start.Add(elapsed), elapsed.Nanoseconds()
	if timed != nil && len(results) > 0 {
		// The session's own measure is the tighter one: from sending the
		// statement to its last result.
		run.ElapsedNs = results[0].Elapsed.Nanoseconds()
	}
	if before.Err != nil {
		return fmt.Errorf("read %s: %w", diskstatsPath, before.Err)
	}
	rec.diskstats("before", []snapshot{before}, start)
	rec.diskstats("sample", during, start)
	rec.diskstats("after", []snapshot{after}, start)
	if timed == nil {
		rec.clientRun(string(psqlScript), start, elapsed, res)
		err = res.Err
	}
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("the statement ran past its timeout of %s and was cancelled%w", c.study.StatementTimeout(it.Test), errTimeout)
	}
	return err
}
