package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pgstudy/pgstudy/analyze/iostat"
	"github.com/pgstudy/pgstudy/parse/pgstat"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// Options choose what is analysed and how.
type Options struct {
	// Baseline is the configuration others are compared with; "" is the
	// study's first configuration.
	Baseline string
	// FirstRound and LastRound bound the rounds analysed; 0 is no bound.
	FirstRound, LastRound int
	// Exclude drops runs: each entry is config=NAME, test=NAME, round=N,
	// run=ID or host=NAME.
	Exclude []string
	// Confidence is the level of the intervals (0.95 when zero); Alpha the
	// significance level of the tests (0.05 when zero).
	Confidence, Alpha float64
	// Tolerance is the smallest difference that matters, as a share (0.05
	// when zero): the size the rounds needed are computed to find, and the
	// margin within which two configurations are called equivalent.
	Tolerance float64
	// Controls says which copies of one setup are compared as A/A pairs:
	// "auto" (the default: those declared with same_as, and those identical
	// in everything the capture shows), "declared" (same_as only) or "off".
	Controls string
	// Reparse computes every run's facts again from the raw text (and
	// stores them, when the capture can be written), as for a capture
	// that has none.
	Reparse bool
	// SkipSeries leaves each run's disk figures between its snapshots
	// (Run.Series) unread, for a caller that shows neither the detail
	// tables nor the figures (DiskThroughput): a study of 100,000 runs
	// sampled ten times has a million of them. A capture with a device's
	// limit (declared, or a measured ceiling) has them read all the same:
	// the disk-bound guard and the disk table's bounded column hold runs
	// against the limit in their median interval.
	SkipSeries bool
	// Note, when set, is told what the analysis did to a capture besides
	// reading it: facts computed, stored, or not stored and why.
	Note func(string)
}

func (o *Options) note(msg string) {
	if o.Note != nil {
		o.Note(msg)
	}
}

func (o *Options) defaults() {
	if o.Tolerance == 0 {
		o.Tolerance = 0.05
	}
	if o.Controls == "" {
		o.Controls = "auto"
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
}

// Input is one capture to analyse, and a name for it in messages.
type Input struct {
	Name   string
	Reader *samples.Reader
	// Host names the host when the input does (a fleet's host=NAME
	// partition); otherwise the hostname the capture recorded does.
	Host string
}

// Run is one run of a capture as the analysis read it.
type Run struct {
	Host     string
	Capture  string
	RunID    int64
	Round    int
	Position int
	Config   string
	Test     string
	Kind     string // "timed", or "throughput" for a pgbench or sysbench test
	Client   string
	Status   string
	Error    string
	Cold     string
	Started  time.Time
	Seq      int // order of the run among all runs of its host, by start

	// TimeMs is the timed statement's duration; TimeSource says where it
	// came from ("client" for the pgx client's clock, "psql" for psql's
	// Time: line). HasTime is false when neither exists.
	TimeMs     float64
	TimeSource string
	HasTime    bool

	// WALBytes is the WAL generated during the run: the difference of the
	// WAL's insert positions read before and after it, or of its write
	// positions in a capture made before the insert position was recorded
	// (WALFrom says which: "insert" or "write"). The write position lags
	// by what still sits in the WAL buffers.
	WALBytes *int64
	WALFrom  string
	// WALRecords, WALFPI and WALStatBytes are pg_stat_wal's counts over
	// the run (14+): the whole server's, so a checkpoint or autovacuum
	// shows here too.
	WALRecords   *float64
	WALFPI       *float64
	WALStatBytes *float64

	// Disk is the run's device over the timed statement's window; Series
	// its figures between consecutive snapshots.
	Device string
	Disk   *iostat.Stats
	Series []DiskInterval
	// WholeProcess is set for a psql run collected before pgstudy
	// bracketed psql's statement (its output has no markers): its window
	// covers the whole psql process, its start, connection and settings
	// with the statement.
	WholeProcess bool
	// DiskRatesOver is "statement" when the snapshots' times were unknown
	// (an import's) and Disk's rates are over the statement's own time;
	// "" when over the snapshots'. Without either the rates are NaN.
	DiskRatesOver string
	// DeviceNum is the device's number ("MAJ:MIN"), from diskstats;
	// Server the server's own I/O on it, from its cgroup (nil when none
	// was recorded; ServerMissing says why, when collect said).
	DeviceNum     string
	Server        *ServerIO
	ServerMissing string

	Throughput *ThroughputRun
	// A throughput run's command lines as the collector ran them (secrets
	// removed): the measured run's, and the warm-up's ("" without one).
	Command, WarmupCommand string

	Plan    *PlanInfo
	Vacuum  *VacuumTotal
	PGReads *float64  // bytes PostgreSQL read from the kernel (pg_stat_io), when recorded
	IO      []IODelta // pg_stat_io's rows that moved during the run

	// AIO is what pg_aios said during the run (18+), nil when it was not
	// sampled (aios.go); Analyzed what EXPLAIN (ANALYZE, BUFFERS) said
	// after it, nil without such a plan (explainanalyze.go). IOMethod is
	// the configuration's io_method as its server reported it ("" before
	// 18, values joined by " / " when rounds differ).
	AIO      *AIOSampling
	Analyzed *AnalyzedPlan
	IOMethod string

	// Others are the other sessions seen at work on the server just
	// before or after the timed statement; Autovacuums is how many
	// autovacuums and autoanalyzes ended during it.
	Others      []Activity
	Autovacuums int64

	// RanWith are the values the run ran with of the settings its study's
	// configurations declare, by name (lower case).
	RanWith map[string]RanSetting

	Problems []string // what could not be read, with where

	parseWarnings parseWarnings // kept until the run is read, then problems

	diskReset bool // the device's counters went backwards during the run
	hasStats  bool // the capture has its pg_stat_* rows before or after it
	explained bool // pgstudy ran EXPLAIN for it (a statement of phase "explain")
	hasPlan   bool // the capture has a plans row for it, with or without an error

	sizes   []pgstat.RelationSize // the relations' sizes, read in this run (once per configuration and round)
	devices string                // the devices the runs row names, comma-separated
}

// DiskInterval is the device's figures between two snapshots of a run.
type DiskInterval struct {
	OffsetS float64 // end of the interval, from the start of the timed statement
	Stats   IntervalStats
}

// IntervalStats are the iostat figures of an interval that the series
// table, the throughput figure and the bounded guard read: a study of
// 100,000 runs sampled 10 times a run holds a million intervals, and all
// of iostat.Stats would be a third of its analysis's memory.
type IntervalStats struct {
	Seconds        float64
	RPerS, WPerS   float64 // r/s w/s
	RKiBPerS       float64 // rkB/s
	WKiBPerS       float64 // wkB/s
	RAreqSzKiB     float64 // rareq-sz
	AquSz, UtilPct float64 // aqu-sz %util
	Reset          bool    // the counters went backwards: not measurable
}

// Activity is another session at work on the server around a run.
type Activity struct {
	Phase       string
	PID         int64
	BackendType string
	State       string
	Query       string
}

// key names a group of runs: a test and configuration on a host.
type key struct{ Host, Test, Config string }

// Analysis is everything the analysis found.
type Analysis struct {
	Captures []CaptureInfo
	Setups   []Setup // one per capture, in order
	Hosts    []string
	Baseline string
	Configs  []string
	Tests    []string
	Runs     []*Run
	Excluded int

	Timings     []Timing
	Throughputs []ThroughputGroup
	Geomeans    []Geomean
	Disks       []DiskGroup
	Ceilings    []Ceiling // the devices' read ceilings pgstudy measured, per host and device in time order
	Vacuums     []VacuumRow
	WAL         []WALGroup
	ReadAmps    []ReadAmpGroup
	Contrast    []string // vacuum differences in words
	Plans       []PlanRow
	Settings    []SettingRow
	Findings    []Finding

	Confidence float64
	Alpha      float64
	Tolerance  float64

	// Noise are the A/A comparisons: copies of one setup, compared.
	Noise []NoiseFloor

	study    map[string]*study.Study               // by host
	byMetric map[key][]*Run                        // metricIndex's, once made
	byGroup  *runGroups                            // every run by group, made once the runs are all read (results)
	byTest   map[[2]string][]*Run                  // testRuns's, by host and test, made before the guards
	devTput  map[string]func() ([]*Run, []float64) // deviceThroughput's, by host, computed at the first call

	pending []*pendingFacts // facts computed from raw text, for StoreFacts
	note    func(string)
}

// CaptureInfo describes one capture analysed.
type CaptureInfo struct {
	Name      string    `json:"name"`
	ID        string    `json:"id"`
	Host      string    `json:"host"`
	Study     string    `json:"study"`
	Sessions  int       `json:"sessions"`
	Started   time.Time `json:"started_at"`
	Tool      string    `json:"tool_version"`
	Scheduled int64     `json:"scheduled_runs"`
	Runs      int       `json:"runs"`

	missing      []int64         // run ids of the schedule not in the capture
	ignored      study.ErrorList // keys of its study this version does not know
	hostWarnings parseWarnings   // what the host facts' parsers could not read
}

// sameCapture is an error finding when a capture is given a second time
// (two copies of one folder): its runs would count as two hosts'.
func (a *Analysis) sameCapture(seen map[string]string, id, name string) {
	if first, ok := seen[id]; ok && id != "" {
		a.add(Finding{Guard: "incomplete", Severity: Error,
			Message: fmt.Sprintf("%s and %s are the same capture (id %s): its runs are counted as two hosts' and every comparison across hosts is of a capture with itself; give each capture once", first, name, id)})
	}
	seen[id] = name
}

// Analyze reads the captures and computes every result.
func Analyze(inputs []Input, opt Options) (*Analysis, error) {
	opt.defaults()
	if !slices.Contains([]string{"auto", "declared", "off"}, opt.Controls) {
		return nil, optionErrorf("--controls %q: expected auto, declared or off", opt.Controls)
	}
	if !(opt.Tolerance > 0 && opt.Tolerance < 1) {
		return nil, optionErrorf("--tolerance %v: expected a share between 0 and 1, such as 5%% or 0.05", opt.Tolerance)
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("no capture to analyse")
	}
	ex, err := parseExcludes(opt.Exclude)
	if err != nil {
		return nil, err
	}
	a := &Analysis{Confidence: opt.Confidence, Alpha: opt.Alpha, Tolerance: opt.Tolerance, study: map[string]*study.Study{}, note: opt.Note}
	settings := map[string]map[string]map[string]*settingValues{}
	present := excludes{} // every value an --exclude could name
	seen := map[[2]string]bool{}
	note := func(k, v string) {
		if !seen[[2]string{k, v}] {
			seen[[2]string{k, v}] = true
			present[k] = append(present[k], v)
		}
	}
	keep := func(round int, config string) bool {
		return !slices.Contains(ex["config"], config) && !ex.hasNum("round", int64(round)) &&
			(opt.FirstRound == 0 || round >= opt.FirstRound) && (opt.LastRound == 0 || round <= opt.LastRound)
	}
	seenIDs := map[string]string{}
	for _, in := range inputs {
		c, err := loadCapture(in, opt, keep)
		if err != nil {
			return nil, err
		}
		if c.pending != nil {
			a.pending = append(a.pending, c.pending)
		}
		a.sameCapture(seenIDs, c.info.ID, in.Name)
		settings[a.addCapture(c, ex, opt, note)] = c.settings
	}
	if err := ex.check(present); err != nil {
		return nil, err
	}
	// Configurations and tests that runs name but the study does not (an
	// import has no study) come after, in order of appearance.
	for _, r := range a.Runs {
		if !slices.Contains(a.Configs, r.Config) {
			a.Configs = append(a.Configs, r.Config)
		}
		if !slices.Contains(a.Tests, r.Test) {
			a.Tests = append(a.Tests, r.Test)
		}
	}
	if len(a.Runs) == 0 && a.Excluded > 0 {
		return nil, optionErrorf("the exclusions and rounds asked for leave no run to analyse (%d excluded)", a.Excluded)
	}
	a.Baseline = opt.Baseline
	if a.Baseline == "" && len(a.Configs) > 0 {
		a.Baseline = a.Configs[0]
	}
	if !slices.Contains(a.Configs, a.Baseline) {
		return nil, optionErrorf("baseline %q is not a configuration of the captures (they have %s)", a.Baseline, strings.Join(a.Configs, ", "))
	}

	a.results(settings, opt)
	return a, nil
}

// results computes the tables and the findings. The timings and
// throughputs go on a core of their own beside the other tables: each
// fills its own fields of the analysis, and reads the runs, which no
// longer change (but for the io_method each run ran with, which only
// ioMethods and the tables after it read), and metricIndex, made before.
// The verdicts need both (the noise floors from controls); the guards
// need everything.
func (a *Analysis) results(settings map[string]map[string]map[string]*settingValues, opt Options) {
	a.byGroup = a.groupAll()
	a.metricIndex()
	var wg sync.WaitGroup
	wg.Go(func() {
		a.timings(opt)
		a.throughputs(opt)
	})
	a.disks()
	a.readAmps()
	a.vacuums()
	a.wal()
	a.plans()
	a.settingsDiff(settings)
	a.ioMethods(settings)
	a.controls(settings, opt)
	wg.Wait()
	a.verdicts(opt)
	a.indexTests()
	a.guards(opt)
}

// addCapture adds a capture's runs (those the options keep), its setup,
// study, configurations and tests, noting every value an --exclude could
// name. It returns the capture's host, told apart from an earlier
// capture's of the same host.
func (a *Analysis) addCapture(c *capture, ex excludes, opt Options, note func(k, v string)) string {
	c.fillRanWith() // both the runs' stats and the capture's settings are read
	host := c.info.Host
	if slices.Contains(a.Hosts, host) {
		// Two captures of one host (two studies, or a rerun) stay apart.
		host = c.info.Host + " (" + shortID(c.info.ID) + ")"
		c.info.Host = host
		for _, r := range c.runs {
			r.Host = host
		}
	}
	a.Hosts = append(a.Hosts, host)
	a.Captures = append(a.Captures, c.info)
	c.setup.Host = host
	a.Setups = append(a.Setups, c.setup)
	a.study[host] = c.study
	a.addCeilings(host, c.calibrations)
	for _, cf := range c.study.Configs {
		if !slices.Contains(a.Configs, cf.Name) {
			a.Configs = append(a.Configs, cf.Name)
		}
	}
	for _, t := range c.study.Tests {
		if !slices.Contains(a.Tests, t.Name) {
			a.Tests = append(a.Tests, t.Name)
		}
	}
	for _, r := range c.runs {
		if len(ex) > 0 { // only an --exclude needs them: 500,000 notes for 100,000 runs
			note("config", r.Config)
			note("test", r.Test)
			note("host", r.Host)
			note("round", strconv.Itoa(r.Round))
			note("run", strconv.FormatInt(r.RunID, 10))
		}
		if ex.drops(r) || (opt.FirstRound > 0 && r.Round < opt.FirstRound) || (opt.LastRound > 0 && r.Round > opt.LastRound) {
			a.Excluded++
			continue
		}
		a.Runs = append(a.Runs, r)
	}
	return host
}

// groupRuns returns the ok runs of each (host, test, config), in round
// order, and the keys in the analysis's order. The tables and guards call
// it a score of times over the same runs: they are grouped and sorted once
// (groupAll), and each call picks the ok runs of each group, which keeps
// their order.
func (a *Analysis) groupRuns(ok func(*Run) bool) (map[key][]*Run, []key) {
	all := a.byGroup
	if all == nil {
		all = a.groupAll()
	}
	groups := make(map[key][]*Run, len(all.runs))
	var keys []key
	for k, rs := range all.runs {
		n := 0
		for _, r := range rs {
			if ok(r) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		picked := make([]*Run, 0, n)
		for _, r := range rs {
			if ok(r) {
				picked = append(picked, r)
			}
		}
		groups[k] = picked
	}
	for _, k := range all.keys {
		if len(groups[k]) > 0 {
			keys = append(keys, k)
		}
	}
	return groups, keys
}

// runGroups are every run of the analysis by (host, test, config), those
// of the keys in round order, and the keys of the analysis's hosts, tests
// and configurations in its order.
type runGroups struct {
	runs map[key][]*Run
	keys []key
}

// groupAll groups every run: groupRuns for all.
func (a *Analysis) groupAll() *runGroups {
	g := &runGroups{runs: map[key][]*Run{}}
	for _, r := range a.Runs {
		k := key{r.Host, r.Test, r.Config}
		g.runs[k] = append(g.runs[k], r)
	}
	for _, h := range a.Hosts {
		for _, t := range a.Tests {
			for _, c := range a.Configs {
				if k := (key{h, t, c}); len(g.runs[k]) > 0 {
					g.keys = append(g.keys, k)
					// Round and id tell every two runs of a group apart:
					// any subset picked keeps the order it would sort to.
					slices.SortFunc(g.runs[k], func(x, y *Run) int {
						return cmp.Or(cmp.Compare(x.Round, y.Round), cmp.Compare(x.RunID, y.RunID))
					})
				}
			}
		}
	}
	return g
}

func okRun(r *Run) bool { return r.Status == "ok" }

// problems guards Run.Problems, which the readers of several tables add
// to at once.
var problems sync.Mutex

// warnf records a problem reading a run; problems become findings.
func (r *Run) warnf(format string, args ...any) {
	problems.Lock()
	defer problems.Unlock()
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}
