package collect

import (
	"context"

	"github.com/pgstudy/pgstudy/samples"
)

// aiosQuery counts PostgreSQL 18's asynchronous I/O handles in use, by
// state, with the time it was read: what pg_aios says is in flight.
const aiosQuery = "select row_to_json(t)::text from (select to_char(clock_timestamp() at time zone 'UTC', " +
	"'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') as at, state, count(*) as n from pg_aios group by state order by state) t"

// startAIOSampler reads pg_aios on the bookkeeping session while the timed
// statement runs, at the study's diskstats interval (18+ only).
func (c *collector) startAIOSampler(ctx context.Context, meta *session, version int32) *ticking[samples.Stat] {
	every := c.study.Disk.Sample.Duration
	if version < 180000 {
		every = 0
	}
	if every > 0 {
		// Once before the statement, its result left out: a server just
		// restarted (a cold step) reads the view's catalog rows from the
		// disk, and during the statement those reads would wait behind
		// its own, on a throttled disk until the statement ends, and
		// every sample would come too late.
		meta.conn.Exec(ctx, aiosQuery).ReadAll()
	}
	return startTicking(ctx, every, func(n int) ([]samples.Stat, bool) {
		// Straight on the connection, not through the recorder: its
		// statements would take the timed statement's notices.
		res, err := meta.conn.Exec(ctx, aiosQuery).ReadAll()
		if err != nil || len(res) == 0 || res[0].Err != nil {
			return nil, false // the bookkeeping session is gone; the run goes on
		}
		var rows []samples.Stat
		for _, row := range res[0].Rows {
			rows = append(rows, samples.Stat{Phase: "sample", View: "pg_aios", Row: int32(n + len(rows) + 1), JSON: string(row[0])})
		}
		return rows, true
	}, nil)
}
