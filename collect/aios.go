package collect

import (
	"context"
	"sync"
	"time"

	"github.com/pgstudy/pgstudy/samples"
)

// aiosQuery counts PostgreSQL 18's asynchronous I/O handles in use, by
// state, with the time it was read: what pg_aios says is in flight.
const aiosQuery = "select row_to_json(t)::text from (select to_char(clock_timestamp() at time zone 'UTC', " +
	"'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') as at, state, count(*) as n from pg_aios group by state order by state) t"

// aiosSampler reads pg_aios on the bookkeeping session while the timed
// statement runs, at the study's diskstats interval (18+ only).
type aiosSampler struct {
	stopc chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	rows  []samples.Stat
}

func (c *collector) startAIOSampler(ctx context.Context, meta *session, version int32) *aiosSampler {
	a := &aiosSampler{stopc: make(chan struct{}), done: make(chan struct{})}
	every := c.study.Disk.Sample.Duration
	if version < 180000 || every <= 0 {
		close(a.done)
		return a
	}
	go func() {
		defer close(a.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-a.stopc:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			// Straight on the connection, not through the recorder: its
			// statements would take the timed statement's notices.
			res, err := meta.conn.Exec(ctx, aiosQuery).ReadAll()
			if err != nil || len(res) == 0 || res[0].Err != nil {
				return // the bookkeeping session is gone; the run goes on
			}
			a.mu.Lock()
			for _, row := range res[0].Rows {
				a.rows = append(a.rows, samples.Stat{Phase: "sample", View: "pg_aios", Row: int32(len(a.rows) + 1), JSON: string(row[0])})
			}
			a.mu.Unlock()
		}
	}()
	return a
}

// stop ends the sampling and returns the rows read.
func (a *aiosSampler) stop() []samples.Stat {
	select {
	case <-a.stopc:
	default:
		close(a.stopc)
	}
	<-a.done
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rows
}
