package collect

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/samples/study"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pgstudy/pgstudy/samples"
)

// procStat is read before and after a throughput run: the CPU time and
// context switches of the whole machine, for the hardware cost per query.
// It is recorded verbatim as a probe row of this name.
const procStat = "/proc/stat"

// throughputCommand is the client's command line for a throughput test
// (pgbench or sysbench) run for d, with the connection in the libpq
// environment (PGHOST, ...) and, for sysbench, on its command line.
func throughputCommand(t *study.Test, dsn string, d time.Duration) (string, error) {
	secs := strconv.Itoa(max(1, int(d.Round(time.Second).Seconds())))
	clients := strconv.Itoa(t.Clients)
	if strings.TrimSpace(t.Pgbench) != "" {
		// -n: no vacuum of pgbench's tables before the run.
		return "pgbench -n -c " + clients + " -j " + clients + " -T " + secs + " --progress=1 " + strings.TrimSpace(t.Pgbench), nil
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "", fmt.Errorf("parse DSN: %s", redactErr(err, dsn))
	}
	f := strings.Fields(t.Sysbench)
	cmd := []string{"sysbench", f[0], "--db-driver=pgsql", "--pgsql-host=" + shellQuote(cfg.Host), "--pgsql-port=" + strconv.Itoa(int(cfg.Port)),
		"--pgsql-user=" + shellQuote(cfg.User), "--pgsql-db=" + shellQuote(cfg.Database), "--threads=" + clients, "--time=" + secs, "--report-interval=1"}
	if cfg.Password != "" {
		cmd = append(cmd, "--pgsql-password="+shellQuote(cfg.Password))
	}
	cmd = append(cmd, f[1:]...)
	return strings.Join(append(cmd, "run"), " "), nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// pgOptions passes session settings to a libpq client as PGOPTIONS.
func pgOptions(settings map[string]string) string {
	var b []string
	for _, k := range sortedKeys(settings) {
		v := strings.NewReplacer(`\`, `\\`, " ", `\ `).Replace(settings[k])
		b = append(b, "-c "+k+"="+v)
	}
	return strings.Join(b, " ")
}

// throughputRun runs a pgbench or sysbench test: an optional warm-up,
// recorded as a step and left out, then the measured run, with diskstats
// and /proc/stat before and after it (and diskstats sampled during it):
// the measured run's window, which leaves the warm-up out.
func (c *collector) throughputRun(ctx context.Context, it Item, rec *recorder, meta *session, session map[string]string) error {
	t, cfg := it.Test, it.Config
	run := &rec.b.Run
	run.Kind = "throughput"
	run.Client = "pgbench"
	if strings.TrimSpace(t.Sysbench) != "" {
		run.Client = "sysbench"
	}
	env, err := libpqEnv(cfg.DSN)
	if err != nil {
		return err
	}
	settings := map[string]string{}
	for k, v := range session {
		settings[k] = v
	}
	for k, v := range t.Set {
		settings[k] = v
	}
	if len(settings) > 0 {
		env["PGOPTIONS"] = pgOptions(settings)
	}
	if t.Warmup.Duration > 0 {
		cmd, err := throughputCommand(t, cfg.DSN, t.Warmup.Duration)
		if err != nil {
			return err
		}
		res := runShell(ctx, cmd, env, t.Warmup.Duration+time.Minute, nil)
		rec.step("warmup", run.Client, c.red.Structural(cmd), res.Started, res.Elapsed, res.ExitCode, string(res.Stdout)+string(res.Stderr), res.Err)
		if res.Err != nil {
			return fmt.Errorf("warm-up: %w", res.Err)
		}
	}
	cmd, err := throughputCommand(t, cfg.DSN, t.Duration.Duration)
	if err != nil {
		return err
	}
	w, err := c.openWindow(ctx, rec, meta, 0, true)
	if err != nil {
		return err
	}
	start := time.Now()
	res := runShell(ctx, cmd, env, t.Duration.Duration+time.Minute, nil)
	elapsed := time.Since(start)
	statsErr := w.close(ctx, nil)
	run.StartedAt, run.EndedAt, run.ElapsedNs = start, start.Add(elapsed), elapsed.Nanoseconds()
	rec.clientRun(c.red.Structural(cmd), start, elapsed, res)
	if res.Err != nil {
		return fmt.Errorf("%s: %w", run.Client, res.Err)
	}
	return statsErr
}

// procStat records /proc/stat verbatim as a probe row.
func (c *collector) procStat(rec *recorder, phase string) {
	started := time.Now()
	b, err := os.ReadFile(procStat)
	row := samples.Probe{Phase: phase, Name: procStat, Command: "read " + procStat, StartedAt: started,
		ElapsedNs: time.Since(started).Nanoseconds(), Stdout: string(b)}
	if err != nil {
		row.Error = err.Error()
	}
	rec.mu.Lock()
	rec.b.Probes = append(rec.b.Probes, row)
	rec.mu.Unlock()
}
