package analyze

import (
	"slices"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
)

// A run's WAL is counted by up to five sources, which answer different
// questions. The statement's own accounts (VACUUM VERBOSE's "WAL usage",
// EXPLAIN ANALYZE's WAL) count what the statement generated. The server's
// (pg_stat_wal's counters, the WAL insert position) count everything the
// server wrote over the run's window: the checkpointer, the background
// writer, autovacuum, parallel workers and other sessions too. They are
// shown side by side, each labelled, so that no reader takes a ratio of
// one for a ratio of the other.
const (
	walScopeStatement = "statement"
	walScopeServer    = "server"
)

// walSources are the sources in the order the WAL table lists them, with
// what each counts; get reads a run's figures from it, nil where the run
// has none.
var walSources = []struct {
	key, scope, label string
	get               func(r *Run) (bytes, records, fpi *float64)
}{
	{"vacuum_verbose", walScopeStatement, "VACUUM VERBOSE's WAL usage", func(r *Run) (b, rec, fpi *float64) {
		if r.Vacuum == nil || r.Vacuum.WALBytes == nil {
			return nil, nil, nil
		}
		return i2f(r.Vacuum.WALBytes), i2f(r.Vacuum.WALRecords), i2f(r.Vacuum.WALFPI)
	}},
	{"explain_analyze", walScopeStatement, "EXPLAIN ANALYZE's WAL (its own execution, after the timed run)", func(r *Run) (b, rec, fpi *float64) {
		if r.Analyzed == nil || r.Analyzed.WALBytes == nil {
			return nil, nil, nil
		}
		return i2f(r.Analyzed.WALBytes), i2f(r.Analyzed.WALRecords), i2f(r.Analyzed.WALFPI)
	}},
	{"pg_stat_wal", walScopeServer, "pg_stat_wal's counters, as the server's processes reported them (each flushes its counts at intervals, so a delta can miss WAL written in the window and hold WAL written before it)", func(r *Run) (b, rec, fpi *float64) {
		return r.WALStatBytes, r.WALRecords, r.WALFPI
	}},
	{"wal_insert_lsn", walScopeServer, "the WAL insert position (pg_current_wal_insert_lsn())", func(r *Run) (b, rec, fpi *float64) {
		if r.WALFrom != "insert" {
			return nil, nil, nil
		}
		return i2f(r.WALBytes), nil, nil
	}},
	{"wal_write_lsn", walScopeServer, "the WAL write position (pg_current_wal_lsn(), which lags by what sat in the WAL buffers: captures made before the insert position was recorded)", func(r *Run) (b, rec, fpi *float64) {
		if r.WALFrom != "write" {
			return nil, nil, nil
		}
		return i2f(r.WALBytes), nil, nil
	}},
}

// WALGroup is the WAL a test and configuration wrote by one source, median
// over its runs. A figure the source does not give is nil.
type WALGroup struct {
	Host   string
	Test   string
	Config string
	Source string // a key of walSources
	Scope  string // "statement" or "server"
	N      int
	Bytes  *float64
	Min    *float64
	Max    *float64
	// Records and FPI are the median records and full page images.
	Records *float64
	FPI     *float64
}

// wal groups every ok run's WAL by source.
func (a *Analysis) wal() {
	groups, keys := a.groupRuns(okRun)
	for _, k := range keys {
		for _, src := range walSources {
			var bytes, recs, fpis []float64
			for _, r := range groups[k] {
				b, rec, fpi := src.get(r)
				if b != nil {
					bytes = append(bytes, *b)
				}
				if rec != nil {
					recs = append(recs, *rec)
				}
				if fpi != nil {
					fpis = append(fpis, *fpi)
				}
			}
			n := max(len(bytes), len(recs))
			if n == 0 {
				continue
			}
			g := WALGroup{Host: k.Host, Test: k.Test, Config: k.Config, Source: src.key, Scope: src.scope, N: n,
				Bytes: median(bytes), Records: median(recs), FPI: median(fpis)}
			if len(bytes) > 0 {
				lo, hi := slices.Min(bytes), slices.Max(bytes)
				g.Min, g.Max = &lo, &hi
			}
			a.WAL = append(a.WAL, g)
		}
	}
}

// median is the median of xs, or nil when there are none.
func median(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m := stats.Median(xs)
	return &m
}

func (a *Analysis) walTable() table.Table {
	note := "The WAL of each test and configuration by source, medians over rounds (min and max of the bytes). " +
		"Statement sources count the WAL the statement generated itself: " + a.walLabels(walScopeStatement) + ". " +
		"Server sources count all the WAL the server wrote between the readings before and after the run, the statement's and that of " +
		"the checkpointer, the background writer, autovacuum, parallel workers and other sessions: " + a.walLabels(walScopeServer) +
		". The two scopes disagree when other work wrote WAL during the run, and pg_stat_wal with the insert position when processes reported their counts late; compare configurations within one source, and quote the statement's own where it exists."
	t := table.Table{Name: "wal", Title: "WAL written", Note: note}
	return build(a, t, func(w WALGroup) string { return w.Host }, []table.Field[WALGroup]{
		table.On(table.Text("test", "test"), func(w WALGroup) any { return w.Test }),
		table.On(table.Text("config", "config"), func(w WALGroup) any { return w.Config }),
		table.On(table.Text("scope", "counts"), func(w WALGroup) any { return w.Scope }),
		table.On(table.Text("source", "source"), func(w WALGroup) any { return w.Source }),
		table.On(table.Int("n", "n", ""), func(w WALGroup) any { return int64(w.N) }),
		table.On(table.Bytes("wal_bytes", "wal", "MiB"), func(w WALGroup) any { return optBytes(w.Bytes) }),
		table.On(table.Bytes("min_bytes", "min", "MiB"), func(w WALGroup) any { return optBytes(w.Min) }),
		table.On(table.Bytes("max_bytes", "max", "MiB"), func(w WALGroup) any { return optBytes(w.Max) }),
		table.On(table.Num("records", "records", ""), func(w WALGroup) any { return opt(w.Records) }),
		table.On(table.Num("full_page_images", "full page images", ""), func(w WALGroup) any { return opt(w.FPI) }),
	}, a.WAL)
}

// walLabels lists the sources of a scope that the analysis has, by key
// and with what each is.
func (a *Analysis) walLabels(scope string) string {
	has := map[string]bool{}
	for _, g := range a.WAL {
		has[g.Source] = true
	}
	s := ""
	for _, src := range walSources {
		if src.scope != scope || !has[src.key] {
			continue
		}
		if s != "" {
			s += "; "
		}
		s += src.key + " = " + src.label
	}
	if s == "" {
		return "none in this capture"
	}
	return s
}
