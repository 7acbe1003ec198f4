package collect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/pgstudy/pgstudy/samples"
)

// session is one dedicated connection. Notices arrive on it in the order
// the server sent them and are tied to the statement that was running, so
// it is never shared between statements of different runs, and never
// pooled.
type session struct {
	conn *pgconn.PgConn
	rec  *recorder
	mu   sync.Mutex
}

// connect opens a session whose notices go to rec.
func connect(ctx context.Context, dsn string, rec *recorder) (*session, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	s := &session{rec: rec}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if s.rec != nil {
			s.rec.notice(n)
		}
	}
	// On a timeout, ask the server to cancel the statement rather than
	// dropping the connection and leaving it running.
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, CancelRequestDelay: 0, DeadlineDelay: 5 * time.Second}
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	s.conn, err = pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (s *session) Close() {
	if s != nil && s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.conn.Close(ctx)
	}
}

// result is what one statement gave back.
type result struct {
	Tag     string
	Columns []string
	Rows    [][]*string
	Elapsed time.Duration
	Started time.Time
	Err     error
}

// exec sends sql with the simple query protocol, as psql does, and keeps
// every result set. The elapsed time is taken from the monotonic clock
// around the round trip.
func (s *session) exec(ctx context.Context, phase, sql string) []result {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := s.rec.beginStatement(phase, sql)
	started := time.Now()
	rr := s.conn.Exec(ctx, sql)
	results, err := rr.ReadAll()
	elapsed := time.Since(started)
	var out []result
	for _, r := range results {
		res := result{Tag: r.CommandTag.String(), Err: r.Err, Elapsed: elapsed, Started: started}
		for _, f := range r.FieldDescriptions {
			res.Columns = append(res.Columns, f.Name)
		}
		for _, row := range r.Rows {
			vals := make([]*string, len(row))
			for i, v := range row {
				if v != nil {
					str := string(v)
					vals[i] = &str
				}
			}
			res.Rows = append(res.Rows, vals)
		}
		out = append(out, res)
	}
	if err != nil && (len(out) == 0 || out[len(out)-1].Err == nil) {
		out = append(out, result{Err: err, Elapsed: elapsed, Started: started})
	}
	s.rec.endStatement(seq, started, elapsed, out)
	return out
}

// query runs a statement expected to succeed and returns its first result.
func (s *session) query(ctx context.Context, phase, sql string) (result, error) {
	rs := s.exec(ctx, phase, sql)
	for _, r := range rs {
		if r.Err != nil {
			return r, fmt.Errorf("%s: %w", firstLine(sql), r.Err)
		}
	}
	if len(rs) == 0 {
		return result{}, fmt.Errorf("%s: no result", firstLine(sql))
	}
	return rs[0], nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func errorFirst(rs []result) error {
	for _, r := range rs {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// waitReady connects until the server accepts a session or the time is up.
func waitReady(ctx context.Context, dsn string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		s, err := connect(cctx, dsn, nil)
		cancel()
		if err == nil {
			_, err = s.query(ctx, "ready", "select 1")
			s.Close()
			if err == nil {
				return nil
			}
		}
		last = err
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server did not accept a connection within %s: %w", timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// reachable reports whether a server answers now.
func reachable(ctx context.Context, dsn string) bool {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, err := connect(cctx, dsn, nil)
	if err != nil {
		return false
	}
	s.Close()
	return true
}

func isSQLState(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// serverFacts reads the version and every setting of a server.
func (s *session) serverFacts(ctx context.Context) (samples.Server, []samples.Setting, error) {
	var srv samples.Server
	r, err := s.query(ctx, "facts", "select version(), current_setting('server_version'), current_setting('server_version_num')::int, "+
		"current_setting('data_checksums'), coalesce((select setting from pg_settings where name = 'data_directory'), '')")
	if err != nil {
		return srv, nil, err
	}
	if len(r.Rows) != 1 {
		return srv, nil, fmt.Errorf("server facts: expected one row, got %d", len(r.Rows))
	}
	row := r.Rows[0]
	srv = samples.Server{ReadAt: time.Now(), Version: str(row[0]), ServerVersion: str(row[1]), DataChecksums: str(row[3]), DataDirectory: str(row[4])}
	var num int32
	fmt.Sscan(str(row[2]), &num)
	srv.ServerVersionNum = num
	r, err = s.query(ctx, "facts", "select name, setting, coalesce(unit, ''), source, context, vartype, coalesce(boot_val, ''), "+
		"coalesce(reset_val, ''), pending_restart from pg_settings order by name")
	if err != nil {
		return srv, nil, err
	}
	settings := make([]samples.Setting, 0, len(r.Rows))
	for _, row := range r.Rows {
		settings = append(settings, samples.Setting{Name: str(row[0]), Setting: str(row[1]), Unit: str(row[2]), Source: str(row[3]),
			Context: str(row[4]), VarType: str(row[5]), BootVal: str(row[6]), ResetVal: str(row[7]), PendingRestart: str(row[8]) == "t"})
	}
	return srv, settings, nil
}

// statViews are read before and after each run, where the server has them.
var statViews = []struct {
	name       string
	minVersion int32
}{{"pg_stat_wal", 140000}, {"pg_stat_io", 160000}}

// activityViews are read before and after each run, like statViews, to
// tell whether something else used the server during the timed statement:
// the other sessions at work (autovacuum workers among them), and the
// vacuum counters, which move when an autovacuum started and ended between
// the two reads. $timed is the timed session's backend, excluded with ours.
var activityViews = []struct{ name, sql string }{
	{"pg_stat_activity", "select row_to_json(a)::text from (select pid, backend_type, state, wait_event_type, wait_event, " +
		"datname, xact_start, query_start, left(query, 300) as query from pg_stat_activity " +
		"where pid <> pg_backend_pid() and pid <> $timed and (backend_type = 'autovacuum worker' " +
		"or (backend_type in ('client backend', 'parallel worker', 'background worker', 'walsender') and state is distinct from 'idle'))) a"},
	{"vacuum_counts", "select row_to_json(t)::text from (select current_database() as datname, " +
		"coalesce(sum(autovacuum_count), 0) as autovacuum_count, coalesce(sum(autoanalyze_count), 0) as autoanalyze_count, " +
		"coalesce(sum(vacuum_count), 0) as vacuum_count, coalesce(sum(analyze_count), 0) as analyze_count, " +
		"max(last_autovacuum) as last_autovacuum, max(last_autoanalyze) as last_autoanalyze from pg_stat_all_tables) t"},
}

// walPos reads a byte position; nil when the server gave none.
func walPos(v *string) *int64 {
	var p int64
	if _, err := fmt.Sscan(str(v), &p); err != nil {
		return nil
	}
	return &p
}

// walMark is the WAL's write and insert positions at one moment, as LSN
// text and as byte positions.
type walMark struct {
	lsn, insertLSN *string
	pos, insertPos *int64
}

// sqlWAL reads both positions in one statement, so that they are of the
// same moment.
const sqlWAL = "select pg_current_wal_lsn()::text, (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, " +
	"pg_current_wal_insert_lsn()::text, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint"

// stats reads the WAL positions, the statistics views and what else was
// at work on the server.
func (s *session) stats(ctx context.Context, version int32, phase string, timedPID int32) (w walMark, rows []samples.Stat, err error) {
	r, err := s.query(ctx, "stats", sqlWAL)
	if err != nil {
		return w, nil, err
	}
	if len(r.Rows) == 1 && len(r.Rows[0]) == 4 {
		row := r.Rows[0]
		w.lsn, w.insertLSN = row[0], row[2]
		w.pos, w.insertPos = walPos(row[1]), walPos(row[3])
	}
	for _, v := range statViews {
		if version < v.minVersion {
			continue
		}
		r, err := s.query(ctx, "stats", "select row_to_json(v)::text from "+v.name+" v")
		if err != nil {
			return w, rows, err
		}
		for i, row := range r.Rows {
			rows = append(rows, samples.Stat{Phase: phase, View: v.name, Row: int32(i + 1), JSON: str(row[0])})
		}
	}
	for _, v := range activityViews {
		r, err := s.query(ctx, "stats", strings.ReplaceAll(v.sql, "$timed", strconv.Itoa(int(timedPID))))
		if err != nil {
			return w, rows, err
		}
		for i, row := range r.Rows {
			rows = append(rows, samples.Stat{Phase: phase, View: v.name, Row: int32(i + 1), JSON: str(row[0])})
		}
	}
	return w, rows, nil
}

// quoteLiteral quotes a setting's value for SET and ALTER SYSTEM.
func quoteLiteral(v string) string {
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// quoteIdent quotes a setting's name.
func quoteIdent(name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(parts, ".")
}
