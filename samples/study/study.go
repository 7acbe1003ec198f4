package study

import (
	"math"
	"strings"
	"time"
)

// Study is a study file: which servers to compare, which statements to
// time, and how to make each timed run comparable with the others.
type Study struct {
	Name     string   `yaml:"name"`
	Client   string   `yaml:"client"` // default client: "pgx" or "psql"
	Configs  []Config `yaml:"configs"`
	Tests    []Test   `yaml:"tests"`
	Protocol Protocol `yaml:"protocol"`
	Disk     Disk     `yaml:"disk"`
	Probes   []Probe  `yaml:"probes"`

	ClientPos, ConfigsPos, TestsPos Pos

	// File is where the study was read from; Text is its content.
	File string
	Text []byte

	// Ignored are the keys a stored study has that this version does not
	// know (see Stored), each as the error it would otherwise be.
	Ignored ErrorList
}

// Config is one configuration under study: a server and how to reach,
// start and stop it.
type Config struct {
	Name     string            `yaml:"name"`
	DSN      string            `yaml:"dsn"`
	Start    *Shell            `yaml:"start"`
	Stop     *Shell            `yaml:"stop"`
	Client   string            `yaml:"client"`
	Psql     string            `yaml:"psql"` // the psql command line when client is psql
	Settings map[string]string `yaml:"settings"`
	DataDir  string            `yaml:"data_dir"` // where the server keeps its data, when pgstudy cannot ask it
	// Cgroup is the cgroup whose I/O counters are the server's: "auto"
	// (the default: the one its postmaster is in, when that is a group of
	// its own), "off", "create" (pgstudy makes one and runs the start
	// step in it) or a group's folder under /sys/fs/cgroup.
	Cgroup    string `yaml:"cgroup"`
	CgroupPos Pos
	// Matrix makes this entry one configuration per combination of the
	// values of its settings (io_method in sync, worker, io_uring times
	// effective_io_concurrency in 1, 16, 64), each named from its values:
	// pg18.io_method-sync.effective_io_concurrency-16. Once the study is
	// parsed, every configuration is one combination: Matrix is empty.
	Matrix Matrix `yaml:"matrix"`
	// SameAs names another configuration this one is a copy of, a
	// control: the same server version, settings and data, run as a
	// configuration of its own so that the difference between the two
	// measures the study's own noise (an A/A comparison).
	SameAs    string `yaml:"same_as"`
	SameAsPos Pos
	Pos       Pos
	DSNPos    Pos
	PsqlPos   Pos
}

// Test is one statement to time.
type Test struct {
	Name string `yaml:"name"`
	// Group is a heading the test is shown under in the relative tables,
	// with the tests listed next to it that share it (seed 003's point
	// queries, range queries, writes); "" is none.
	Group          string            `yaml:"group"`
	SQL            string            `yaml:"sql"`
	Set            map[string]string `yaml:"set"`
	Before         StringList        `yaml:"before"`
	Slice          *Slice            `yaml:"slice"`
	ExpectPlan     string            `yaml:"expect_plan"`
	ExplainAnalyze *bool             `yaml:"explain_analyze"`
	Explain        *bool             `yaml:"explain"`
	Timeout        Duration          `yaml:"timeout"`
	// A throughput test runs a client for a duration instead of timing
	// one statement: pgbench with these arguments (a built-in such as
	// "-S", or "-f script.sql"), or sysbench with a test and its options
	// ("oltp_point_select --tables=1 --table-size=100000").
	Pgbench  string `yaml:"pgbench"`
	Sysbench string `yaml:"sysbench"`
	Clients  int    `yaml:"clients"` // connections (and pgbench threads); 1 when absent
	// ClientsPos is where clients was given; none when it was not.
	ClientsPos Pos
	Duration   Duration `yaml:"duration"` // measured
	Warmup     Duration `yaml:"warmup"`   // run first, recorded, left out of the results
	Pos        Pos
	SQLPos     Pos
}

// Throughput says whether the test runs a client for a duration (pgbench,
// sysbench) rather than timing one statement.
func (t *Test) Throughput() bool {
	return strings.TrimSpace(t.Pgbench) != "" || strings.TrimSpace(t.Sysbench) != ""
}

// Slice names a contiguous range of rows that moves on each round, so that
// a test that changes rows (an update before a vacuum) changes new ones in
// every round: round r covers First+(r-1)*Size to First+r*Size-1. Last,
// when given, is the last row the slices may reach: a study file whose
// rounds need more slices than First to Last holds is refused, as every
// round past them would change the rows of an earlier one again. (A study
// a capture stored before that rule is read as it ran: its rounds wrapped
// back to First after Last.)
type Slice struct {
	First int64 `yaml:"first"`
	Size  int64 `yaml:"size"`
	Last  int64 `yaml:"last"`
	Pos   Pos
}

// reach is the last row of the last of rounds slices, or the largest row
// number where that is past it.
func (s *Slice) reach(rounds int) int64 {
	if s.Size > (math.MaxInt64-s.First)/int64(rounds) {
		return math.MaxInt64
	}
	return s.First + s.Size*int64(rounds) - 1
}

// fits is how many whole slices First to Last holds; -1 when Last is not
// given or the slice is refused for another reason.
func (s *Slice) fits() int64 {
	if s.Last == 0 || s.Size <= 0 || s.Last < s.First {
		return -1
	}
	span := s.Last - s.First + 1
	if span <= 0 { // First to Last overflows
		return -1
	}
	return span / s.Size
}

// Rows is the first and last row of round's slice.
func (s *Slice) Rows(round int) (lo, hi int64) {
	if s.Size <= 0 {
		return 0, 0 // refused by the checks
	}
	lo = s.First + int64(round-1)*s.Size
	if s.Last != 0 {
		span := s.Last - s.First + 1
		if n := span / s.Size; n > 0 {
			lo = s.First + int64(round-1)%n*s.Size
		}
	}
	return lo, lo + s.Size - 1
}

// Protocol is how runs are ordered and made cold.
type Protocol struct {
	Rounds         int      `yaml:"rounds"`
	Order          string   `yaml:"order"` // rotate, fixed, random
	Seed           int64    `yaml:"seed"`
	Cold           []Step   `yaml:"cold"`
	Timeout        Duration `yaml:"timeout"`    // per statement
	OnFailure      string   `yaml:"on_failure"` // continue, stop
	ExplainAnalyze bool     `yaml:"explain_analyze"`
	Explain        *bool    `yaml:"explain"`
	ReadyTimeout   Duration `yaml:"ready_timeout"`
	AIOSample      Duration `yaml:"aios_sample"` // pg_aios during each run (18+): AIOSampleEvery
	// Calibrate, when given, measures each data directory's device
	// before the first round and after the last (calibrate.go).
	Calibrate    *Calibrate `yaml:"calibrate"`
	Pos          Pos
	OrderPos     Pos
	RoundsPos    Pos
	SeedPos      Pos
	OnFailurePos Pos
}

// Disk says which block devices to record and how often.
type Disk struct {
	Devices []string         `yaml:"devices"`
	Sample  Duration         `yaml:"sample"`
	Limits  map[string]Limit `yaml:"limits"` // by device name, on the study's host
	// OthersShare is the share of the device's bytes read or written,
	// over a run, that other processes than the server's cgroup may do
	// before the analysis says they disturbed it; 0.1 when not given.
	OthersShare    *float64 `yaml:"others_share"`
	OthersSharePos Pos
	Pos            Pos
}

// Limit is what a device is provisioned for (a cloud volume's MiB/s and
// IOPS), for the analysis to compare throughput against; zero is no limit.
// The analysis writes it as JSON under the study's names.
type Limit struct {
	ReadMiBs  float64 `yaml:"read_mib_s" json:"read_mib_s,omitempty"`
	WriteMiBs float64 `yaml:"write_mib_s" json:"write_mib_s,omitempty"`
	MiBs      float64 `yaml:"mib_s" json:"mib_s,omitempty"` // read and written together
	IOPS      float64 `yaml:"iops" json:"iops,omitempty"`
}

// Probe is a shell command whose output is recorded before and after each
// run.
type Probe struct {
	Name    string            `yaml:"name"`
	Sh      string            `yaml:"sh"`
	Env     map[string]string `yaml:"env"`
	Timeout Duration          `yaml:"timeout"`
	Pos     Pos
}

// StringList is one string or a list of them, each with its place.
type StringList []PosString

// PosString is a string and where it was written.
type PosString struct {
	Value string
	Pos   Pos
}

// Shell is a shell command with its environment, run with sh -c.
type Shell struct {
	Sh      string            `yaml:"sh"`
	Env     map[string]string `yaml:"env"`
	Timeout Duration          `yaml:"timeout"`
	Pos     Pos
}

// Step is one cold-cache step.
type Step struct {
	Kind    string // stop-all, start, drop-caches, evict, wait-ready, sh
	Paths   []string
	Timeout time.Duration
	Shell   *Shell
	Pos     Pos
}

// String is how the step is written in a study file, and recorded.
func (s Step) String() string {
	switch s.Kind {
	case "sh":
		return "sh: " + s.Shell.Sh
	case "evict":
		return strings.TrimSpace("evict " + strings.Join(s.Paths, " "))
	case "wait-ready":
		return "wait-ready " + s.Timeout.String()
	}
	return s.Kind
}

// Config looks a configuration up by name.
func (s *Study) Config(name string) *Config {
	for i := range s.Configs {
		if s.Configs[i].Name == name {
			return &s.Configs[i]
		}
	}
	return nil
}

// Test looks a test up by name.
func (s *Study) Test(name string) *Test {
	for i := range s.Tests {
		if s.Tests[i].Name == name {
			return &s.Tests[i]
		}
	}
	return nil
}

// Explain says whether a test's plan is captured: the test says, else the
// protocol, else it is.
func (s *Study) Explain(t *Test) bool {
	if t.Explain != nil {
		return *t.Explain
	}
	if s.Protocol.Explain != nil {
		return *s.Protocol.Explain
	}
	return true
}

// ExplainAnalyze says whether a test's plan as executed is captured after
// its timed run.
func (s *Study) ExplainAnalyze(t *Test) bool {
	if t.ExplainAnalyze != nil {
		return *t.ExplainAnalyze
	}
	return s.Protocol.ExplainAnalyze
}

// DefaultAIOSample is how often pg_aios is read when the study does not
// say: cold scans on small hosts last 0.1 s to a few seconds, and 50 ms
// gives even the short ones two samples or more, while one sample costs
// the bookkeeping session one query over the server's I/O handles (well
// under a millisecond of a CPU on an idle PostgreSQL 18).
const DefaultAIOSample = 50 * time.Millisecond

// AIOSampleEvery is how often pg_aios is read during a timed run.
func (s *Study) AIOSampleEvery() time.Duration {
	if s.Protocol.AIOSample.Set {
		return s.Protocol.AIOSample.Duration
	}
	return DefaultAIOSample
}

// StatementTimeout is how long a test's statement may run; 0 is no limit.
func (s *Study) StatementTimeout(t *Test) time.Duration {
	if t.Timeout.Set {
		return t.Timeout.Duration
	}
	if s.Protocol.Timeout.Set {
		return s.Protocol.Timeout.Duration
	}
	return 0
}

// Declares says whether the study names a setting as a variable under
// test: in a configuration's settings or matrix, or a test's set.
func (s *Study) Declares(setting string) bool {
	for _, c := range s.Configs {
		if _, ok := c.Settings[setting]; ok {
			return true
		}
	}
	for _, t := range s.Tests {
		if _, ok := t.Set[setting]; ok {
			return true
		}
	}
	return false
}
