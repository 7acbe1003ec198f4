package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/pgstudy/pgstudy/samples/study"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/outdir"
)

// Options are what a collect needs besides the study.
type Options struct {
	Out         string // the capture folder
	Resume      bool   // append to the capture in Out
	ToolVersion string
	Command     string          // the command line, for the record
	Progress    Progress        // nil: silent
	Stop        <-chan struct{} // closed: finish the current run, then stop
}

// Summary says how a collect ended.
type Summary struct {
	Dir         string
	Scheduled   int // runs in the schedule
	Done        int // runs in the capture, from earlier sessions and this one
	Ran         int // runs this session
	Failed      int // runs of this session that failed
	Interrupted bool
}

// ErrInterrupted is returned when a signal stopped a collect between runs;
// the capture is valid and can be resumed.
var ErrInterrupted = errors.New("interrupted")

// ErrRunsFailed is returned when the study finished but some runs failed.
var ErrRunsFailed = errors.New("some runs failed")

// errTimeout marks a run stopped by its statement timeout; it adds nothing
// to the message.
var errTimeout = silentError{errors.New("timeout")}

type silentError struct{ error }

func (silentError) Error() string { return "" }

// collector holds what lasts across runs.
type collector struct {
	study    *study.Study
	opt      Options
	w        *samples.Writer
	red      *Redactor
	progress Progress

	dataDir  map[string]string // configuration -> data directory, once learned
	version  map[string]int32  // configuration -> server_version_num
	facts    map[string]bool   // "config/round" whose server facts are recorded in this session
	applied  map[string]string // DSN -> the configuration whose settings it holds now
	sessions map[string][]string
}

// Collect runs a study and records it in opt.Out. It returns when the
// schedule is done, a run failed with on_failure: stop, or opt.Stop was
// closed; the capture is valid in every case.
func Collect(ctx context.Context, s *study.Study, opt Options) (*Summary, error) {
	red := NewRedactor(s)
	c := &collector{study: s, opt: opt, red: red, progress: opt.Progress,
		dataDir: map[string]string{}, version: map[string]int32{}, facts: map[string]bool{},
		applied: map[string]string{}, sessions: map[string][]string{}}
	if c.progress == nil {
		c.progress = nopProgress{}
	}
	// Where the capture goes is checked before anything runs.
	if err := outdir.CheckCapturePlace(opt.Out, opt.Resume); err != nil {
		return nil, err
	}
	if err := c.preflight(); err != nil {
		return nil, err
	}
	for _, cfg := range s.Configs {
		if cfg.DataDir != "" {
			c.dataDir[cfg.Name] = cfg.DataDir
		}
	}
	if n := red.Ambiguous(); n > 0 {
		c.progress.Logf("warning: %d secret(s) of the study are short, ordinary words (such as postgres) or also written elsewhere in the study "+
			"(a test's SQL): they are removed where they stand as secrets (DSNs, password keys, commands), but not searched for in recorded output "+
			"or the rest of the study, where masking them would change ordinary text; a step or a server that prints one has it stored", n)
	}

	studyText, err := red.Study(string(s.Text))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(studyText))
	wopt := samples.Options{Redact: red.String, Note: func(s string) { c.progress.Logf("warning: %s", s) }}
	var done map[int64]bool
	if opt.Resume {
		var st *samples.State
		c.w, st, err = samples.Resume(opt.Out, wopt)
		if err != nil {
			return nil, fmt.Errorf("resume %s: %w", opt.Out, err)
		}
		if st.Last.StudySHA256 != hex.EncodeToString(sum[:]) {
			c.w.Close()
			return nil, fmt.Errorf("resume %s: the study file %s is not the one this capture was started with; "+
				"resume with the same study, or start a new capture", opt.Out, s.File)
		}
		done = st.Done
	} else {
		c.w, err = samples.Create(opt.Out, wopt)
		if err != nil {
			return nil, fmt.Errorf("create capture: %w", err)
		}
		done = map[int64]bool{}
	}
	defer c.w.Close()

	items := Schedule(s)
	devices := s.Disk.Devices
	if len(devices) == 0 {
		devices = wholeDisks()
	}
	capRow := samples.Capture{ToolVersion: opt.ToolVersion, StartedAt: time.Now(), Command: opt.Command,
		StudyFile: s.File, StudyYAML: studyText, StudySHA256: hex.EncodeToString(sum[:]), ScheduledRuns: int64(len(items))}
	if err := c.w.WriteSession(capRow, hostFacts(devices)); err != nil {
		return nil, fmt.Errorf("write capture: %w", err)
	}

	sumry := &Summary{Dir: opt.Out, Scheduled: len(items), Done: len(done)}
	c.progress.Begin(len(items), len(done))
	defer c.progress.End()
	for _, it := range items {
		if done[it.RunID] {
			continue
		}
		if stopped(opt.Stop) || ctx.Err() != nil {
			sumry.Interrupted = true
			break
		}
		c.progress.RunStart(it)
		b := c.runOne(ctx, it)
		if ctx.Err() != nil {
			// A hard stop in the middle of the run: it is not recorded,
			// and resume runs it again.
			sumry.Interrupted = true
			break
		}
		if err := c.w.Commit(b); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return sumry, fmt.Errorf("the capture's disk is full: %w; the %d runs before this one are in the capture: "+
					"make room, then carry on with --resume", err, sumry.Done)
			}
			return sumry, fmt.Errorf("record %w", err)
		}
		sumry.Ran++
		sumry.Done++
		elapsed := time.Duration(b.Run.ElapsedNs)
		c.progress.RunEnd(it, b.Run.Status, elapsed, red.Text(b.Run.Error))
		if b.Run.Status != "ok" {
			sumry.Failed++
			if s.Protocol.OnFailure == "stop" {
				return sumry, fmt.Errorf("run %d (%s on %s, round %d) failed, and on_failure is stop: %s: %w",
					it.RunID, it.Test.Name, it.Config.Name, it.Round, red.Text(b.Run.Error), ErrRunsFailed)
			}
		}
	}
	if sumry.Interrupted {
		return sumry, ErrInterrupted
	}
	if sumry.Failed > 0 {
		return sumry, fmt.Errorf("%d of %d runs failed: %w", sumry.Failed, sumry.Ran, ErrRunsFailed)
	}
	return sumry, nil
}

func stopped(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// preflight finds what would fail in every run before the first one
// starts, so that a study does not stop in its fourth hour for a reason
// known at its start.
func (c *collector) preflight() error {
	var errs []error
	for _, st := range c.study.Protocol.Cold {
		switch st.Kind {
		case "drop-caches":
			if err := CanDropCaches(); err != nil {
				errs = append(errs, err)
			}
		case "evict":
			for _, p := range st.Paths {
				if _, err := os.Stat(p); err != nil {
					errs = append(errs, fmt.Errorf("cold step %q: %w", st.String(), err))
				}
			}
		}
	}
	for _, cfg := range c.study.Configs {
		if cfg.Client == "psql" {
			word := strings.Fields(cfg.Psql)[0]
			if _, err := exec.LookPath(word); err != nil {
				errs = append(errs, fmt.Errorf("configuration %s: the psql client command %q cannot run: %w", cfg.Name, word, err))
			}
		}
	}
	return errors.Join(errs...)
}

// runOne makes one timed run and returns its rows. A failure is recorded
// in the run, not returned: a failed run is a result too.
func (c *collector) runOne(ctx context.Context, it Item) *samples.Batch {
	rec := newRecorder(it)
	run := &rec.b.Run
	run.Status = "ok"
	err := c.timedRun(ctx, it, rec)
	if err != nil {
		run.Status = "failed"
		if errors.Is(err, errTimeout) || isSQLState(err, "57014") {
			run.Status = "timeout"
		}
		run.Error = err.Error()
	}
	return rec.b
}

func (c *collector) timedRun(ctx context.Context, it Item, rec *recorder) error {
	s, cfg, t := c.study, it.Config, it.Test
	run := &rec.b.Run

	// 1. The server under test is up, holds its configuration's settings,
	// and has had the test's before statements.
	if !reachable(ctx, cfg.DSN) && cfg.Start != nil {
		if err := c.shellStep(ctx, rec, "prepare", "start", cfg.Start); err != nil {
			return fmt.Errorf("start %s: %w", cfg.Name, err)
		}
	}
	if err := c.waitReady(ctx, rec, "prepare", cfg, s.Protocol.ReadyTimeout.Duration); err != nil {
		return err
	}
	sets, sessionSettings, err := c.applySettingsSession(ctx, rec, cfg)
	if err != nil {
		return err
	}
	configSets := slices.Clone(sets)
	sets = append(sets, setStatements(t.Set)...)
	if err := c.prepare(ctx, rec, it, sets); err != nil {
		return err
	}

	// 2. Cold.
	var cold []string
	for _, st := range s.Protocol.Cold {
		if err := c.coldStep(ctx, rec, st, cfg); err != nil {
			return fmt.Errorf("cold step %s: %w", st.String(), err)
		}
		cold = append(cold, st.String())
	}
	run.Cold = strings.Join(cold, "; ")
	if err := c.waitReady(ctx, rec, "cold", cfg, s.Protocol.ReadyTimeout.Duration); err != nil {
		return err
	}

	// 3. Bookkeeping on a session of its own, so the timed session sends
	// nothing but its settings and the statement.
	meta, err := connect(ctx, cfg.DSN, rec)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", cfg.Name, err)
	}
	defer meta.Close()
	// The settings recorded are those the configuration's sessions run
	// with: its session settings are applied here too.
	for _, set := range configSets {
		if _, err := meta.query(ctx, "set", set); err != nil {
			return err
		}
	}
	if err := c.recordServer(ctx, meta, it, rec); err != nil {
		return err
	}
	version := c.version[cfg.Name]
	run.Devices = strings.Join(c.runDevices(cfg), ",")

	var timed *session
	if cfg.Client == "pgx" && !t.Throughput() {
		timed, err = connect(ctx, cfg.DSN, rec)
		if err != nil {
			return fmt.Errorf("connect to %s: %w", cfg.Name, err)
		}
		defer timed.Close()
		pid := int32(timed.conn.PID())
		run.BackendPID = &pid
		for _, set := range sets {
			if _, err := timed.query(ctx, "set", set); err != nil {
				return err
			}
		}
	}

	// 4. The timed statement, watched.
	c.probes(ctx, rec, "before")
	var timedPID int32
	if run.BackendPID != nil {
		timedPID = *run.BackendPID
	}
	lsn, pos, rows, err := meta.stats(ctx, version, "before", timedPID)
	run.WALLSNBefore, run.WALPosBefore = lsn, pos
	rec.b.Stats = append(rec.b.Stats, rows...)
	if err != nil {
		return fmt.Errorf("read statistics before the run: %w", err)
	}
	var runErr error
	aios := c.startAIOSampler(ctx, meta, version)
	if t.Throughput() {
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
	lsn, pos, rows, err = meta.stats(ctx, version, "after", timedPID)
	run.WALLSNAfter, run.WALPosAfter = lsn, pos
	rec.b.Stats = append(rec.b.Stats, rows...)
	c.probes(ctx, rec, "after")
	if runErr != nil {
		return runErr
	}
	if err != nil {
		return fmt.Errorf("read statistics after the run: %w", err)
	}

	// 5. The plan as executed, after the timed run so that it cannot warm it.
	if s.ExplainAnalyze(t) && explainable(t.SQL) && timed != nil {
		c.explain(ctx, rec, timed, "explain-analyze", "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ", t.SQL)
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

// psqlInput is what psql is fed: its timing on, the settings, the
// statement. Queries are echoed so that each Time: line follows its
// statement in the output.
func psqlInput(sets []string, sql string, version int32) []byte {
	var b strings.Builder
	b.WriteString("\\set ON_ERROR_STOP on\n\\set ECHO queries\n\\timing on\n")
	for _, s := range sets {
		b.WriteString(s + ";\n")
	}
	sql = strings.TrimSpace(sql)
	b.WriteString(sql)
	if !terminated(sql) {
		// On a line of its own: the statement may end in a -- comment.
		b.WriteString("\n;")
	}
	b.WriteString("\n")
	if version >= 150000 {
		b.WriteString("\\timing off\n\\set ECHO none\nselect pg_stat_force_next_flush() \\g /dev/null\n")
	}
	return []byte(b.String())
}

// terminated reports whether SQL ends with a semicolon that psql will see:
// one outside quotes, dollar quotes and comments.
func terminated(sql string) bool {
	last := byte(0)
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(sql[i+1:], c)
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return last == ';'
			}
			i += j
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 3
			continue
		case c == '$':
			if m := dollarTag.FindString(sql[i:]); m != "" {
				j := strings.Index(sql[i+len(m):], m)
				if j < 0 {
					return false
				}
				i += len(m) + j + len(m) - 1
			}
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			last = c
		}
	}
	return last == ';'
}

var dollarTag = regexp.MustCompile(`^\$([A-Za-z_][A-Za-z_0-9]*)?\$`)

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
// a session may change is returned as a SET for the run's sessions; any
// other is written with ALTER SYSTEM and the server reloaded, or
// restarted when the setting needs it. It also learns the data directory.
func (c *collector) applySettings(ctx context.Context, rec *recorder, cfg *study.Config) ([]string, error) {
	sets, _, err := c.applySettingsSession(ctx, rec, cfg)
	return sets, err
}

// applySettingsSession is applySettings that also returns the settings a
// session applies itself (SET), by name: an external client such as
// pgbench gets them through PGOPTIONS.
func (c *collector) applySettingsSession(ctx context.Context, rec *recorder, cfg *study.Config) ([]string, map[string]string, error) {
	if len(cfg.Settings) == 0 && c.dataDir[cfg.Name] != "" {
		return nil, nil, nil
	}
	s, err := connect(ctx, cfg.DSN, rec)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", cfg.Name, err)
	}
	defer s.Close()
	if c.dataDir[cfg.Name] == "" {
		if r, err := s.query(ctx, "settings", "select setting from pg_settings where name = 'data_directory'"); err == nil && len(r.Rows) == 1 {
			if dir := str(r.Rows[0][0]); dir != "" {
				if _, err := os.Stat(dir); err == nil {
					c.dataDir[cfg.Name] = dir
				}
			}
		}
	}
	if len(cfg.Settings) == 0 {
		return nil, nil, nil
	}
	names := sortedKeys(cfg.Settings)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quoteLiteral(n)
	}
	r, err := s.query(ctx, "settings", "select name, context, coalesce(array_to_string(enumvals, ','), '') from pg_settings where name in ("+strings.Join(quoted, ", ")+")")
	if err != nil {
		return nil, nil, err
	}
	context := map[string]string{}
	for _, row := range r.Rows {
		name := str(row[0])
		context[name] = str(row[1])
		if err := checkEnum(cfg, name, str(row[2])); err != nil {
			return nil, nil, err
		}
	}
	var sets, system []string
	session := map[string]string{}
	for _, n := range names {
		switch context[n] {
		case "":
			return nil, nil, fmt.Errorf("configuration %s: %q is not a setting of this server", cfg.Name, n)
		case "user", "superuser":
			sets = append(sets, "SET "+quoteIdent(n)+" = "+quoteLiteral(cfg.Settings[n]))
			session[n] = cfg.Settings[n]
		case "internal":
			return nil, nil, fmt.Errorf("configuration %s: %q is fixed when the server is built or initialised and cannot be set", cfg.Name, n)
		default:
			system = append(system, n)
		}
	}
	if len(system) == 0 || c.applied[cfg.DSN] == cfg.Name {
		return sets, session, nil
	}
	for _, n := range system {
		if _, err := s.query(ctx, "settings", "ALTER SYSTEM SET "+quoteIdent(n)+" = "+quoteLiteral(cfg.Settings[n])); err != nil {
			return nil, nil, fmt.Errorf("configuration %s: %w", cfg.Name, err)
		}
	}
	if _, err := s.query(ctx, "settings", "select pg_reload_conf()"); err != nil {
		return nil, nil, err
	}
	// The reload is asynchronous; pending_restart shows once it is read.
	time.Sleep(300 * time.Millisecond)
	r, err = s.query(ctx, "settings", "select name from pg_settings where pending_restart and name in ("+strings.Join(quoted, ", ")+")")
	if err != nil {
		return nil, nil, err
	}
	if len(r.Rows) > 0 {
		if cfg.Stop == nil || cfg.Start == nil {
			return nil, nil, fmt.Errorf("configuration %s: %s needs a restart, and the configuration has no stop: and start: commands", cfg.Name, str(r.Rows[0][0]))
		}
		s.Close()
		if err := c.shellStep(ctx, rec, "settings", "stop", cfg.Stop); err != nil {
			return nil, nil, fmt.Errorf("restart %s for its settings: %w", cfg.Name, err)
		}
		if err := c.shellStep(ctx, rec, "settings", "start", cfg.Start); err != nil {
			return nil, nil, fmt.Errorf("restart %s for its settings: %w", cfg.Name, err)
		}
		if err := c.waitReady(ctx, rec, "settings", cfg, c.study.Protocol.ReadyTimeout.Duration); err != nil {
			return nil, nil, err
		}
	}
	c.applied[cfg.DSN] = cfg.Name
	return sets, session, nil
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
	rec.mu.Lock()
	rec.b.Servers = append(rec.b.Servers, srv)
	rec.b.Settings = append(rec.b.Settings, settings...)
	rec.mu.Unlock()
	c.facts[key] = true
	return nil
}

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
		return c.shellStep(ctx, rec, "cold", "start", cfg.Start)
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

// DefaultOut is where a capture goes when no folder is named.
func DefaultOut(study string) string {
	base := strings.TrimSuffix(filepath.Base(study), filepath.Ext(study))
	return base + "-" + time.Now().Format("20060102-150405")
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
