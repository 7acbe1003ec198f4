package analyze

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/explain"
	"github.com/pgstudy/pgstudy/parse/psql"
	"github.com/pgstudy/pgstudy/parse/vacuum"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// capture is one capture read into runs.
type capture struct {
	info     CaptureInfo
	setup    Setup
	study    *study.Study
	runs     []*Run
	settings map[string]map[string]*settingValues // configuration, setting name
	rounds   map[roundSetting]RanSetting          // declared settings by configuration and round
	servers  []samples.Server
	applied  applied // how settings were applied, and the clients, as the steps and statements say

	calibrations []samples.Calibration
	pending      *pendingFacts // facts computed from the raw text, to store
	// series says whether the runs keep their disk figures between
	// snapshots (Options.SkipSeries).
	series bool
}

// settingValues are the values one setting had in one configuration's
// rounds, and the source of the last.
type settingValues struct {
	values map[string]bool
	source string
}

// readers is how many parts an analysis reads or computes facts of at
// once. Each holds a part's rows (a compacted part holds a whole table):
// with one per core, the peak memory grew with the machine (0.67 GB on 2
// cores, 4.7 GB on 64, for 50,000 runs), where it must not.
const readers = 2

// loadCapture reads every table a result needs, one part at a time, and
// keeps per run only what the analysis uses, so that a capture with many
// runs is not held whole.
func loadCapture(in Input, opt Options, keep func(round int, config string) bool) (*capture, error) {
	r := in.Reader
	fail := func(err error) (*capture, error) { return nil, fmt.Errorf("%s: %w", in.Name, err) }
	caps := r.Captures()
	if len(caps) == 0 {
		return fail(fmt.Errorf("not a capture: it has no session (was it made by pgstudy collect or import?)"))
	}
	c := &capture{info: CaptureInfo{Name: in.Name, ID: caps[0].CaptureID, Study: caps[0].StudyFile, Sessions: len(caps),
		Started: caps[0].StartedAt, Tool: caps[0].ToolVersion}}
	for _, cp := range caps {
		c.info.Scheduled = max(c.info.Scheduled, cp.ScheduledRuns)
	}
	// The latest session's study is the one the runs were scheduled by.
	var err error
	if c.study, err = storedStudy(caps[len(caps)-1]); err != nil {
		return fail(err)
	}
	c.info.ignored = c.study.Ignored

	hosts, err := samples.Read[samples.Host](r)
	if err != nil {
		return fail(err)
	}
	c.info.Host = hostName(in, hosts)

	byID, partRuns, err := c.readRuns(r)
	if err != nil {
		return fail(err)
	}
	// Before the facts: whether the runs' series are needed depends on
	// the devices' limits.
	if c.calibrations, err = samples.Read[samples.Calibration](r); err != nil {
		return fail(err)
	}
	c.series = !opt.SkipSeries || len(c.study.Disk.Limits) > 0 || len(c.calibrations) > 0

	// The facts and the tables are read side by side: each goroutine
	// fills its own fields of the runs (Problems under their lock).
	var g errgroup.Group
	g.SetLimit(readers)
	c.applied = newApplied()
	g.Go(func() error { return c.readFacts(r, partRuns, opt.Reparse, opt.note) })
	g.Go(func() error { return c.readStatements(r, byID) })
	g.Go(func() error { return c.readSteps(r, byID) })
	g.Go(func() error { return readPlans(r, byID) })
	g.Go(func() error { return c.readSettings(r, keep) })
	g.Go(func() (err error) {
		c.servers, err = samples.Read[samples.Server](r)
		return err
	})
	stat := map[int64]map[string]procStat{}
	// raw_bytes is read by no figure, but read whole all the same: a part
	// of it renamed, linked from outside or damaged is refused as any
	// other table's is.
	g.Go(func() error { return eachPart(r, func([]samples.RawBytes) error { return nil }) })
	g.Go(func() error { return readProcStat(r, byID, stat) })
	if err := g.Wait(); err != nil {
		return fail(err)
	}
	// After the facts: the server's share of the disk needs each run's
	// device, which its snapshots give.
	if err := readDisk(r, byID); err != nil {
		return fail(err)
	}
	if len(hosts) > 0 {
		c.warnMissingParts()
	}
	c.finishRuns(byID, stat)
	c.setup = setup(c, hosts, caps[0].StudyFile, caps[0].Command, c.runs)
	return c, nil
}

// finishRuns computes what each run's tables, all read, give together:
// its disk rates over its time, its costs from the before and after
// readings of /proc/stat, its problems in order.
func (c *capture) finishRuns(byID map[int64]*Run, stat map[int64]map[string]procStat) {
	for _, run := range byID {
		run.diskRatesFromTime()
	}
	for id, run := range byID {
		b, ok1 := stat[id]["before"]
		a, ok2 := stat[id]["after"]
		run.costs(b, a, ok1 && ok2)
	}
	for _, run := range c.runs {
		run.flushParseWarnings()
		slices.Sort(run.Problems) // found side by side, in any order
	}
}

// hostName names the host of a capture: as its input names it (a fleet's
// partition), else by the hostname it recorded, else by its folder.
func hostName(in Input, hosts []samples.Host) string {
	if in.Host != "" {
		return in.Host
	}
	for _, h := range hosts {
		if h.Name == "hostname" {
			return h.Value
		}
	}
	return filepath.Base(in.Name)
}

// readProcStat reads the /proc/stat probes of throughput runs into stat,
// by run and phase.
func readProcStat(r *samples.Reader, byID map[int64]*Run, stat map[int64]map[string]procStat) error {
	return eachPart(r, func(rows []samples.Probe) error {
		for _, p := range rows {
			if run := byID[p.RunID]; run != nil && run.Kind == "throughput" && p.Name == "/proc/stat" {
				if ps, ok := run.readProcStat(p.Stdout, p.Phase); ok {
					if stat[p.RunID] == nil {
						stat[p.RunID] = map[string]procStat{}
					}
					stat[p.RunID][p.Phase] = ps
				}
			}
		}
		return nil
	}, "run_id", "phase", "name", "stdout")
}

// readRuns reads the runs table into c.runs, in the order they ran, and
// notes the runs of the schedule it lacks. It returns the runs by id.
func (c *capture) readRuns(r *samples.Reader) (map[int64]*Run, map[string][]*Run, error) {
	parts, err := r.Parts("runs")
	if err != nil {
		return nil, nil, err
	}
	byID, partRuns := map[int64]*Run{}, map[string][]*Run{}
	var pool rowPool[samples.Run]
	// A part's runs are made where it is read, two parts at once: made
	// one after the other, they kept the second core idle. They are made
	// in one slice a part, not one allocation a run.
	err = inOrder(len(parts), func(i int) ([]*Run, error) {
		rows, err := samples.ReadPartInto(r, parts[i], pool.get(), runColumns...)
		if err != nil {
			return nil, err
		}
		defer pool.put(rows)
		made, runs := make([]Run, len(rows)), make([]*Run, len(rows))
		for k := range rows {
			c.fillRun(&made[k], &rows[k])
			runs[k] = &made[k]
		}
		return runs, nil
	}, func(i int, runs []*Run) error {
		p := parts[i]
		for _, run := range runs {
			if byID[run.RunID] != nil {
				return fmt.Errorf("run %d is in two parts of runs (the second in %s): a part copied by hand? move it out of the capture", run.RunID, p)
			}
			byID[run.RunID] = run
		}
		partRuns[p] = runs
		c.runs = append(c.runs, runs...)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	c.info.Runs = len(c.runs)
	for id := int64(1); id <= c.info.Scheduled; id++ {
		if byID[id] == nil {
			c.info.missing = append(c.info.missing, id)
		}
	}
	slices.SortFunc(c.runs, func(x, y *Run) int {
		return cmp.Or(x.Started.Compare(y.Started), cmp.Compare(x.RunID, y.RunID))
	})
	for i, run := range c.runs {
		run.Seq = i + 1
	}
	return byID, partRuns, nil
}

// runColumns are the columns of the runs table fillRun reads: the WAL
// positions as text (four strings a run, all different), the session, the
// end and the backend are left undecoded.
var runColumns = []string{"capture_id", "run_id", "round", "position", "config", "test", "kind", "client", "started_at",
	"elapsed_ns", "status", "error", "cold", "devices", "wal_pos_before", "wal_pos_after", "wal_insert_pos_before",
	"wal_insert_pos_after"}

// fillRun makes run the run of a runs row, with what the row itself
// gives (of the runColumns). Runs of several parts are made at once.
func (c *capture) fillRun(run *Run, sr *samples.Run) {
	*run = Run{Host: c.info.Host, Capture: c.info.ID, RunID: sr.RunID, Round: int(sr.Round), Position: int(sr.Position),
		Config: sr.Config, Test: sr.Test, Client: sr.Client, Status: sr.Status, Error: sr.Error, Cold: sr.Cold, Started: sr.StartedAt,
		Device: facts.Device(*sr), devices: sr.Devices}
	run.Kind = cmp.Or(sr.Kind, "timed")
	if sr.Client != "psql" && sr.Status == "ok" && run.Kind == "timed" {
		if sr.ElapsedNs > 0 {
			run.TimeMs, run.TimeSource, run.HasTime = float64(sr.ElapsedNs)/1e6, "client", true
		} else {
			run.warnf("its time is %d ns, which no statement takes (a damaged or hand-made part?): it is left out of the timings", sr.ElapsedNs)
		}
	}
	run.walBytes(*sr)
}

// warnMissingParts says of each run what a part lost in a copy took from
// it. A run pgstudy collect recorded has diskstats before and after it:
// without them its disk figures are unknown, which is said, not passed
// over; the same goes for its plan and statistics.
func (c *capture) warnMissingParts() {
	for _, run := range c.runs {
		if run.Status == "ok" && run.Disk == nil && !run.diskReset {
			run.warnf("the capture has no diskstats snapshots before and after it (a part lost in a copy?): its disk figures are unknown")
		}
		if run.explained && !run.hasPlan {
			run.warnf("the capture has no plan for it, though pgstudy ran EXPLAIN (a part lost in a copy?): the plan guards cannot judge it")
		}
		if run.Status == "ok" && !run.hasStats {
			run.warnf("the capture has no statistics (pg_stat_*) before and after it (a part lost in a copy?): " +
				"what PostgreSQL read and wrote is unknown, and the not-cold and activity guards cannot judge it")
		}
	}
}

// readTimed reads each run's timed statement (timed gives its seq): what
// its client printed and the notices the server sent.
func readTimed(r *samples.Reader, byID map[int64]*Run, timed map[int64]int32) error {
	outs := map[int64]map[string]string{}
	if err := eachPart(r, func(rows []samples.Output) error {
		for _, o := range rows {
			if seq, ok := timed[o.RunID]; ok && seq == o.Statement && (o.Stream == "stdout" || o.Stream == "stderr") {
				if outs[o.RunID] == nil {
					outs[o.RunID] = map[string]string{}
				}
				outs[o.RunID][o.Stream] += o.Text
			}
		}
		return nil
	}); err != nil {
		return err
	}
	notices := map[int64][]vacuum.Notice{}
	if err := eachPart(r, func(rows []samples.Notice) error {
		for _, n := range rows {
			if seq, ok := timed[n.RunID]; ok && seq == n.Statement {
				notices[n.RunID] = append(notices[n.RunID], vacuum.Notice{Severity: n.Severity, Code: n.Code, Message: n.Message,
					Detail: n.Detail, Hint: n.Hint, Where: n.Where})
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for id, run := range byID {
		run.readOutputs(outs[id], notices[id])
	}
	return nil
}

// readSettings keeps the distinct values of each setting of each
// configuration. pg_settings is read per configuration and round: a long
// study has hundreds of thousands of rows that repeat.
func (c *capture) readSettings(r *samples.Reader, keep func(round int, config string) bool) error {
	c.settings = map[string]map[string]*settingValues{}
	return eachPart(r, func(rows []samples.Setting) error {
		for _, st := range rows {
			if !keep(int(st.Round), st.Config) {
				continue
			}
			byName := c.settings[st.Config]
			if byName == nil {
				byName = map[string]*settingValues{}
				c.settings[st.Config] = byName
			}
			v := byName[st.Name]
			if v == nil {
				v = &settingValues{values: map[string]bool{}}
				byName[st.Name] = v
			}
			v.values[humanSetting(st.Setting, st.Unit)] = true
			v.source = st.Source
			c.keepRound(st)
		}
		return nil
	}, "run_id", "round", "config", "name", "setting", "unit", "source")
}

// readOutputs finds the time of a psql run in psql's Time: lines and the
// vacuum's figures in VACUUM VERBOSE's messages.
func (run *Run) readOutputs(out map[string]string, notices []vacuum.Notice) {
	src := fmt.Sprintf("run %d", run.RunID)
	if run.Kind == "throughput" {
		if out != nil && run.Status == "ok" {
			run.readThroughput(out)
		}
		return
	}
	if run.Client == "psql" && out != nil && run.Status == "ok" {
		po, warns, err := psql.Streams(strings.NewReader(out["stdout"]), strings.NewReader(out["stderr"]), src)
		run.warnParse("psql output", warns)
		run.WholeProcess = err == nil && po.Marker("before") == nil && run.Cold != importedCold
		if err != nil {
			run.warnf("psql output: %v", err)
		} else if st := timedPsqlStatement(po); st == nil {
			run.warnf("psql output: no statement with a Time: line (was \\timing on?)")
		} else if *st.TimeMs <= 0 {
			run.warnf("psql output: its Time: line says %g ms, which no statement takes: it is left out of the timings", *st.TimeMs)
		} else {
			run.TimeMs, run.TimeSource, run.HasTime = *st.TimeMs, "psql", true
		}
	}
	var recs []vacuum.Record
	var warns []parse.Warning
	var err error
	switch {
	case len(notices) > 0 && hasVacuum(notices):
		recs, warns, err = vacuum.Notices(notices, src+" notices")
	case out != nil && (strings.Contains(out["stderr"], "vacuuming ") || strings.Contains(out["stdout"], "vacuuming ")):
		stream := "stderr"
		if !strings.Contains(out[stream], "vacuuming ") {
			stream = "stdout"
		}
		// Named by its stream, as psql's own warnings are: line numbers
		// count in that stream.
		recs, warns, err = vacuum.Parse(strings.NewReader(out[stream]), src+":"+stream)
	}
	run.warnParse("vacuum output", warns)
	if err != nil {
		run.warnf("vacuum output: %v", err)
	}
	if len(recs) > 0 {
		run.Vacuum = totalVacuum(recs)
	}
}

func hasVacuum(ns []vacuum.Notice) bool {
	return slices.ContainsFunc(ns, func(n vacuum.Notice) bool { return strings.HasPrefix(n.Message, "vacuuming ") })
}

// timedPsqlStatement is the statement a psql run timed: the last one with
// a Time: line other than settings and transaction control. pgstudy's own
// script sends the settings, then the statement, then turns timing off;
// logs made by hand put their preparation (an update before a vacuum)
// first too.
func timedPsqlStatement(po *psql.Output) *psql.Statement {
	for i := len(po.Statements) - 1; i >= 0; i-- {
		st := &po.Statements[i]
		if st.TimeMs == nil || st.Hidden {
			continue
		}
		f := strings.Fields(strings.ToLower(st.SQL))
		if len(f) > 0 && slices.Contains([]string{"set", "reset", "show", "begin", "commit", "rollback", "start", "end", "\\timing"}, f[0]) {
			continue
		}
		return st
	}
	return nil
}

// PlanInfo is the plan a run's statement had.
type PlanInfo struct {
	Kind        string // "explain" or "explain-analyze"
	Fingerprint string
	Shape       string
	plan        *explain.Plan // shared between runs with the same text
}

// readPlans parses each run's plan; runs of one test mostly print the same
// text, which is parsed once.
func readPlans(r *samples.Reader, byID map[int64]*Run) error {
	// Keyed by the row's own strings: a key joined from them was a copy of
	// every plan's text.
	type planText struct{ kind, format, text string }
	cache := map[planText]*PlanInfo{}
	return eachPart(r, func(rows []samples.Plan) error {
		for _, p := range rows {
			run := byID[p.RunID]
			if run != nil {
				run.hasPlan = true
			}
			if run == nil || p.Error != "" || p.Text == "" {
				continue
			}
			if p.Kind == "explain-analyze" {
				run.readAnalyzed(p)
			}
			// The plan taken before the cold steps is the one the timed
			// statement ran; EXPLAIN ANALYZE's, taken after, stands in when
			// it is the only one.
			if run.Plan != nil && (run.Plan.Kind == "explain" || p.Kind != "explain") {
				continue
			}
			ck := planText{p.Kind, p.Format, p.Text}
			info, ok := cache[ck]
			if !ok {
				var plan *explain.Plan
				var warns []parse.Warning
				var err error
				src := fmt.Sprintf("run %d %s", p.RunID, p.Kind)
				if p.Format == "text" {
					plan, warns, err = explain.Text(strings.NewReader(p.Text), src)
				} else {
					plan, warns, err = explain.JSON(strings.NewReader(p.Text), src)
				}
				run.warnParse("plan", warns)
				if err != nil {
					run.warnf("plan: %v", err)
					continue
				}
				info = &PlanInfo{Kind: p.Kind, Fingerprint: plan.Fingerprint(), Shape: plan.Shape(), plan: plan}
				cache[ck] = info
			}
			run.Plan = info
		}
		return nil
	})
}

// guardIncomplete: a capture that lacks runs of its schedule was stopped
// and not resumed; its rounds are not all there, and a reader must know.
func (a *Analysis) guardIncomplete() {
	for _, c := range a.Captures {
		if len(c.missing) == 0 {
			continue
		}
		a.add(Finding{Guard: "incomplete", Severity: Warning, Host: c.Host, Runs: c.missing,
			Message: fmt.Sprintf("the capture %s holds %d of the %d runs its study scheduled; missing: %s. "+
				"The collection stopped early: `pgstudy collect STUDY -o %s --resume` carries on",
				c.Name, c.Runs, c.Scheduled, listRuns(c.missing), c.Name)})
	}
}

// walBytes sets the WAL the run generated from its insert positions, or
// from its write positions where the capture has no insert positions.
func (run *Run) walBytes(sr samples.Run) {
	switch {
	case sr.WALInsertPosBefore != nil && sr.WALInsertPosAfter != nil:
		d := *sr.WALInsertPosAfter - *sr.WALInsertPosBefore
		run.WALBytes, run.WALFrom = &d, "insert"
	case sr.WALPosBefore != nil && sr.WALPosAfter != nil:
		d := *sr.WALPosAfter - *sr.WALPosBefore
		run.WALBytes, run.WALFrom = &d, "write"
	}
}
