package collect

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/samples"
)

// sqlRelationSizes lists every user table, index, materialized view and
// TOAST table (the schemas of the system left out) with its size, one
// JSON object per row as the statistics views are recorded: an index
// names its table and a TOAST table its owner, so that a reader can tell
// which relations a test touches.
const sqlRelationSizes = "select row_to_json(r)::text from (select n.nspname as schema, c.relname as name, c.relkind::text as kind, " +
	"coalesce(it.relname, tt.relname) as \"table\", pg_relation_size(c.oid) as bytes, pg_total_relation_size(c.oid) as total_bytes, " +
	"c.reltuples::float8 as reltuples from pg_class c join pg_namespace n on n.oid = c.relnamespace " +
	"left join pg_index i on i.indexrelid = c.oid left join pg_class it on it.oid = i.indrelid " +
	"left join pg_class tt on tt.reltoastrelid = c.oid " +
	"where c.relkind in ('r', 'i', 'm', 't') and n.nspname not in ('pg_catalog', 'information_schema') " +
	"and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%' " +
	"and (n.nspname <> 'pg_toast' or tt.relnamespace not in (select oid from pg_namespace where nspname in ('pg_catalog', 'information_schema'))) " +
	"order by n.nspname, c.relname limit " + maxRelationSizes + ") r"

// maxRelationSizes bounds the rows read per configuration and round: a
// database of a hundred thousand partitions must not add a hundred
// thousand rows to every round. The largest first would be better;
// by name is what a reader can predict.
const maxRelationSizes = "10000"

// recordSizes records, once per configuration and round (recordServer
// calls it), the size of every user relation as samples.Stat rows of the
// view "relation_sizes" (phase "before": read after the round's first
// run's before statements and cold steps, before its timed statement),
// and, once per configuration in a session, the client that times it.
func (c *collector) recordSizes(ctx context.Context, meta *session, it Item, rec *recorder) error {
	r, err := meta.query(ctx, "facts", sqlRelationSizes)
	if err != nil {
		return fmt.Errorf("read the relation sizes of %s: %w", it.Config.Name, err)
	}
	rows := make([]samples.Stat, 0, len(r.Rows))
	for i, row := range r.Rows {
		rows = append(rows, samples.Stat{Phase: "before", View: "relation_sizes", Row: int32(i + 1), JSON: str(row[0])})
	}
	rec.mu.Lock()
	rec.b.Stats = append(rec.b.Stats, rows...)
	rec.mu.Unlock()
	if key := "client/" + it.Config.Name; !c.facts[key] {
		c.recordClient(ctx, it, rec)
		c.facts[key] = true
	}
	return nil
}

// recordClient records the client of a configuration as a step of phase
// "client", name "version": for psql, the output of its command line with
// --version (Detail is the command run); for pgx, the module's version
// this binary was built with (Detail "go build info"). A client that
// cannot say is recorded with its error: a result, not a failed run.
func (c *collector) recordClient(ctx context.Context, it Item, rec *recorder) {
	if it.Config.Client == "psql" {
		cmd := strings.TrimSpace(it.Config.Psql) + " --version"
		res := runShell(ctx, cmd, nil, 30*time.Second, nil)
		rec.step("client", "version", c.red.Structural(cmd), res.Started, res.Elapsed, res.ExitCode,
			string(res.Stdout)+string(res.Stderr), res.Err)
		return
	}
	started := time.Now()
	v, err := pgxVersion()
	rec.step("client", "version", "go build info", started, time.Since(started), nil, v, err)
}

// pgxVersion is the version of the pgx module in this binary's build
// information.
func pgxVersion() (string, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", fmt.Errorf("this binary has no build information")
	}
	for _, d := range bi.Deps {
		if strings.HasPrefix(d.Path, "github.com/jackc/pgx/") {
			if d.Replace != nil {
				d = d.Replace
			}
			return d.Path + " " + d.Version, nil
		}
	}
	return "", fmt.Errorf("the build information names no github.com/jackc/pgx module")
}
