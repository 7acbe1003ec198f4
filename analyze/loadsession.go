package analyze

import "github.com/pgstudy/pgstudy/samples"

// The statements and steps tables are read once each, for every reader of
// them: a capture of 100,000 runs has millions of statements, and each
// reading decodes and checks every part again.

// readStatements reads the statements: each run's timed statement (then
// its outputs and notices, readTimed), whether pgstudy ran EXPLAIN for
// it, the settings SET or written with ALTER SYSTEM (c.applied), and a
// throughput run's command line. The SQL of pgstudy's own statistics
// queries (phase "stats"), which nothing reads, is not decoded: they are
// most of a capture's statements.
func (c *capture) readStatements(r *samples.Reader, byID map[int64]*Run) error {
	timed := map[int64]int32{}
	names := setNames{}
	notStats := func(s *samples.Statement) bool { return s.Phase != "stats" }
	err := eachPartWhere(r, "sql", notStats, func(rows []samples.Statement) error {
		var run *Run
		for i := range rows {
			s := &rows[i]
			if i == 0 || s.RunID != rows[i-1].RunID { // a run's rows come together
				run = byID[s.RunID]
			}
			if run == nil {
				continue
			}
			switch s.Phase {
			case "timed":
				timed[s.RunID] = s.Seq
				if run.Kind == "throughput" {
					run.Command = s.SQL
				}
			case "explain":
				run.explained = true
			}
			c.applied.statement(s, run, names)
		}
		return nil
	}, "run_id", "seq", "phase", "sql", "error")
	if err != nil {
		return err
	}
	return readTimed(r, byID, timed)
}

// readSteps reads the steps: the restarts and the client's version of
// each configuration (c.applied), and a throughput run's warm-up command.
func (c *capture) readSteps(r *samples.Reader, byID map[int64]*Run) error {
	return eachPart(r, func(rows []samples.Step) error {
		var run *Run
		for i := range rows {
			st := &rows[i]
			if i == 0 || st.RunID != rows[i-1].RunID {
				run = byID[st.RunID]
			}
			if run == nil {
				continue
			}
			if run.Kind == "throughput" && st.Phase == "warmup" {
				run.WarmupCommand = st.Detail
			}
			c.applied.step(st, run)
		}
		return nil
	}, "run_id", "phase", "name", "error", "detail", "output")
}
