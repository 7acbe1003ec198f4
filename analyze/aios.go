package analyze

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze/stats"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/parse/pgstat"
)

// AIOSampling is what pg_aios (PostgreSQL 18) said during one run: the
// asynchronous I/O handles in use, sampled on the bookkeeping session
// while the timed statement ran. A run that was not sampled (a server
// before 18, a capture made before pg_aios was read) has none.
type AIOSampling struct {
	// Seen is how many samples the capture holds for the run. Complete
	// says it holds every sample taken, those that found nothing in
	// flight too; captures made before the collector recorded empty
	// samples (and the interval, EveryMs) kept only those that found some.
	Seen     int
	Complete bool
	EveryMs  *float64
	// Mean and Max are the handles in use over the samples seen; Median
	// over every sample taken, known only when Complete.
	Mean, Max float64
	Median    *float64
	// ByState is the most handles in each state in one sample.
	ByState map[string]float64
}

// aioSample is one sample of pg_aios: its rows, one per state.
type aioSample struct {
	n       float64
	every   pgstat.Num
	tagged  bool // every row carried the interval: a collector that records empty samples
	byState map[string]float64
}

// aioRuns gathers the pg_aios rows of every run, by run and sample time.
type aioRuns map[int64]map[string]*aioSample

// add reads one row of a sample.
func (m aioRuns) add(id int64, a pgstat.AIO) {
	byAt := m[id]
	if byAt == nil {
		byAt = map[string]*aioSample{}
		m[id] = byAt
	}
	s := byAt[a.At]
	if s == nil {
		s = &aioSample{tagged: true, byState: map[string]float64{}}
		byAt[a.At] = s
	}
	s.n += a.N.V
	s.tagged = s.tagged && a.EveryMs.Valid
	s.every = a.EveryMs
	if a.State != "" {
		s.byState[a.State] += a.N.V
	}
}

// finish sets each run's AIO from its samples.
func (m aioRuns) finish(byID map[int64]*Run) {
	for id, byAt := range m {
		s := &AIOSampling{Seen: len(byAt), Complete: true, ByState: map[string]float64{}}
		var ns []float64
		var sum float64
		for _, x := range byAt {
			ns = append(ns, x.n)
			sum += x.n
			s.Max = max(s.Max, x.n)
			s.Complete = s.Complete && x.tagged
			if x.every.Valid {
				e := x.every.V
				s.EveryMs = &e
			}
			for st, n := range x.byState {
				s.ByState[st] = max(s.ByState[st], n)
			}
		}
		s.Mean = sum / float64(len(ns))
		if s.Complete {
			med := stats.Median(ns)
			s.Median = &med
		}
		byID[id].AIO = s
	}
}

// aiosTable is pg_aios during each run: how many I/O handles were in use
// (PostgreSQL 18's reads in flight), blank where the run was not sampled.
func (a *Analysis) aiosTable() table.Table {
	t := table.Table{Name: "aios", Title: "Reads in flight (pg_aios)",
		Note: "pg_aios (PostgreSQL 18) read on a separate session while each run's statement ran, every `every` ms: " +
			"the server's asynchronous I/O handles in use, all sessions and I/O workers together. Blank is not sampled " +
			"(a server before 18, a failed run, a capture made before pgstudy sampled pg_aios), never 0. " +
			"Captures made before empty samples were recorded kept only the samples that found some I/O: " +
			"their samples and median are blank and their max is the most seen."}
	known := func(f func(s *AIOSampling) any) func(*Run) any {
		return func(r *Run) any {
			if r.AIO == nil {
				return nil
			}
			return f(r.AIO)
		}
	}
	return build(a, t, func(r *Run) string { return r.Host }, []table.Field[*Run]{
		table.On(table.Int("run", "run", ""), func(r *Run) any { return r.RunID }),
		table.On(table.Int("round", "round", ""), func(r *Run) any { return int64(r.Round) }),
		table.On(table.Text("test", "test"), func(r *Run) any { return r.Test }),
		table.On(table.Text("config", "config"), func(r *Run) any { return r.Config }),
		table.On(table.Num("time_ms", "time", "ms"), func(r *Run) any {
			if !r.HasTime {
				return nil
			}
			return r.TimeMs
		}),
		table.On(table.Int("samples", "samples", ""), known(func(s *AIOSampling) any {
			if !s.Complete {
				return nil
			}
			return int64(s.Seen)
		})),
		table.On(table.Num("every_ms", "every", "ms"), known(func(s *AIOSampling) any { return opt(s.EveryMs) })),
		table.On(table.Num("median_in_flight", "median in flight", ""), known(func(s *AIOSampling) any { return opt(s.Median) })),
		table.On(table.Num("max_in_flight", "max in flight", ""), known(func(s *AIOSampling) any { return s.Max })),
		table.On(table.Text("max_by_state", "max by state"), known(func(s *AIOSampling) any { return byStateText(s.ByState) })),
	}, a.Runs)
}

// sampledAIO says whether any run was sampled: the aios table is shown only then.
func (a *Analysis) sampledAIO() bool {
	return slices.ContainsFunc(a.Runs, func(r *Run) bool { return r.AIO != nil })
}

// byStateText is the most handles in each state, in pg_aios's order of
// an I/O's life, or nil when no handle was seen.
func byStateText(m map[string]float64) any {
	order := []string{"HANDED_OUT", "DEFINED", "STAGED", "SUBMITTED", "COMPLETED_IO", "COMPLETED_SHARED", "COMPLETED_LOCAL"}
	var states []string
	for st := range m {
		states = append(states, st)
	}
	slices.SortFunc(states, func(x, y string) int {
		ix, iy := slices.Index(order, x), slices.Index(order, y)
		if ix < 0 {
			ix = math.MaxInt
		}
		if iy < 0 {
			iy = math.MaxInt
		}
		if ix != iy {
			return ix - iy
		}
		return strings.Compare(x, y)
	})
	var parts []string
	for _, st := range states {
		parts = append(parts, fmt.Sprintf("%s %g", st, m[st]))
	}
	if len(parts) == 0 {
		return nil
	}
	return strings.Join(parts, ", ")
}
