package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/pgstudy/pgstudy/samples"
)

// aiosQuery counts PostgreSQL 18's asynchronous I/O handles in use, by
// state, at one time (clock_timestamp() read once per sample), with the
// interval the collector samples at. A sample that finds no handle in use
// is one row with state null and n 0: "sampled, nothing in flight" is a
// row, and "not sampled" is no row at all.
func aiosQuery(every time.Duration) string {
	return "with t as materialized (select clock_timestamp() at time zone 'UTC' as c), " +
		"s as (select state, count(*) as n from pg_aios group by state) " +
		"select row_to_json(r)::text from (select to_char((select c from t), 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') as at, " +
		fmt.Sprintf("%d as every_ms, s.state, coalesce(s.n, 0) as n ", every.Milliseconds()) +
		"from (select) one left join s on true order by s.state) r"
}

// startAIOSampler reads pg_aios on the bookkeeping session while the timed
// statement runs, at the study's aios_sample interval (18+ only), whether
// or not the disk is sampled.
func (c *collector) startAIOSampler(ctx context.Context, meta *session, version int32) *ticking[samples.Stat] {
	every := c.study.AIOSampleEvery()
	if version < 180000 {
		every = 0
	}
	query := aiosQuery(every)
	if every > 0 {
		// Once before the statement, its result left out: a server just
		// restarted (a cold step) reads the view's catalog rows from the
		// disk, and during the statement those reads would wait behind
		// its own, on a throttled disk until the statement ends, and
		// every sample would come too late.
		meta.conn.Exec(ctx, query).ReadAll()
	}
	return startTicking(ctx, every, func(n int) ([]samples.Stat, bool) {
		// Straight on the connection, not through the recorder: its
		// statements would take the timed statement's notices.
		res, err := meta.conn.Exec(ctx, query).ReadAll()
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
