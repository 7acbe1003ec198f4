package collect

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"gopkg.in/yaml.v3"

	"github.com/pgstudy/pgstudy/samples/infile"
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
	// Matrix makes this entry one configuration per combination of the
	// values of its settings (io_method in sync, worker, io_uring times
	// effective_io_concurrency in 1, 16, 64), each named from its values:
	// pg18.io_method-sync.effective_io_concurrency-16.
	Matrix  Matrix `yaml:"matrix"`
	Pos     Pos
	DSNPos  Pos
	PsqlPos Pos
}

// Matrix is the settings a configuration is swept over, in the order the
// study gives them; the last varies fastest.
type Matrix struct {
	Axes []Axis
	Pos  Pos
}

// Axis is one swept setting and its values.
type Axis struct {
	Name   string
	Values []string
	Pos    Pos
}

func (m *Matrix) decodeNode(d *decoder, n *yaml.Node) {
	m.Pos = posOf(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "expected matrix: a mapping of settings to lists of values, such as {effective_io_concurrency: [1, 16, 64]}")
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ax := Axis{Name: k.Value, Pos: posOf(k)}
		if slices.ContainsFunc(m.Axes, func(a Axis) bool { return a.Name == ax.Name }) {
			d.errorf(k, "matrix: %s appears twice", ax.Name)
			continue
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			d.errorf(v, "matrix: %s needs a list of values, such as [1, 16, 64]", ax.Name)
			continue
		}
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || e.Value == "" {
				d.errorf(e, "matrix: %s: expected a value, found %s", ax.Name, kindName(e))
				continue
			}
			if slices.Contains(ax.Values, e.Value) {
				d.errorf(e, "matrix: %s: %s appears twice", ax.Name, e.Value)
				continue
			}
			ax.Values = append(ax.Values, e.Value)
		}
		m.Axes = append(m.Axes, ax)
	}
}

// expandMatrix replaces each configuration that has a matrix by its
// combinations, in order.
func (s *Study) expandMatrix(d *decoder) {
	var out []Config
	for _, c := range s.Configs {
		if len(c.Matrix.Axes) == 0 {
			out = append(out, c)
			continue
		}
		for _, ax := range c.Matrix.Axes {
			if _, ok := c.Settings[ax.Name]; ok {
				d.errorAt(ax.Pos, "configuration %s: %s is in both settings and matrix", c.Name, ax.Name)
			}
		}
		// Counted before it is expanded: 9 axes of 10 values are a
		// billion configurations, which no study runs and no memory holds.
		n, sizes := 1, []string{}
		for _, ax := range c.Matrix.Axes {
			n = min(n*max(1, len(ax.Values)), maxConfigs+1)
			sizes = append(sizes, fmt.Sprint(len(ax.Values)))
		}
		if len(out)+n > maxConfigs {
			d.errorAt(c.Matrix.Axes[0].Pos, "configuration %s: its matrix (%s values) makes more than %d configurations; a study has at most %d",
				c.Name, strings.Join(sizes, " x "), maxConfigs-len(out), maxConfigs)
			continue
		}
		combos := [][]string{{}}
		for _, ax := range c.Matrix.Axes {
			var next [][]string
			for _, combo := range combos {
				for _, v := range ax.Values {
					next = append(next, append(slices.Clone(combo), v))
				}
			}
			combos = next
		}
		for _, combo := range combos {
			e := c
			e.Matrix = Matrix{}
			e.Settings = maps.Clone(c.Settings)
			if e.Settings == nil {
				e.Settings = map[string]string{}
			}
			name := c.Name
			for i, ax := range c.Matrix.Axes {
				e.Settings[ax.Name] = combo[i]
				name += "." + ax.Name + "-" + combo[i]
			}
			e.Name = name
			out = append(out, e)
		}
	}
	s.Configs = out
}

// Test is one statement to time.
type Test struct {
	Name           string            `yaml:"name"`
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
	Pgbench  string   `yaml:"pgbench"`
	Sysbench string   `yaml:"sysbench"`
	Clients  int      `yaml:"clients"`  // connections (and pgbench threads); 1 when absent
	Duration Duration `yaml:"duration"` // measured
	Warmup   Duration `yaml:"warmup"`   // run first, recorded, left out of the results
	Pos      Pos
	SQLPos   Pos

	before []*template.Template
}

// Throughput says whether the test runs a client for a duration (pgbench,
// sysbench) rather than timing one statement.
func (t *Test) Throughput() bool {
	return strings.TrimSpace(t.Pgbench) != "" || strings.TrimSpace(t.Sysbench) != ""
}

// Slice names a contiguous range of rows that moves on each round, so that
// a test that changes rows (an update before a vacuum) changes new ones in
// every round: round r covers First+(r-1)*Size to First+r*Size-1, wrapping
// back to First after Last when Last is given.
type Slice struct {
	First int64 `yaml:"first"`
	Size  int64 `yaml:"size"`
	Last  int64 `yaml:"last"`
	Pos   Pos
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
	Pos            Pos
	OrderPos       Pos
	RoundsPos      Pos
	SeedPos        Pos
	OnFailurePos   Pos
}

// Disk says which block devices to record and how often.
type Disk struct {
	Devices []string         `yaml:"devices"`
	Sample  Duration         `yaml:"sample"`
	Limits  map[string]Limit `yaml:"limits"`
	Pos     Pos
}

// Limit is what a device is provisioned for, for the analysis to compare
// throughput against.
type Limit struct {
	ReadMiBs  float64 `yaml:"read_mib_s"`
	WriteMiBs float64 `yaml:"write_mib_s"`
	MiBs      float64 `yaml:"mib_s"`
	IOPS      float64 `yaml:"iops"`
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

func (l *StringList) decodeNode(d *decoder, n *yaml.Node) {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = StringList{{n.Value, posOf(n)}}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				d.errorf(c, "expected a statement, found %s", kindName(c))
				continue
			}
			*l = append(*l, PosString{c.Value, posOf(c)})
		}
	default:
		d.errorf(n, "expected a statement or a list of statements, found %s", kindName(n))
	}
}

// Shell is a shell command with its environment, run with sh -c.
type Shell struct {
	Sh      string            `yaml:"sh"`
	Env     map[string]string `yaml:"env"`
	Timeout Duration          `yaml:"timeout"`
	Pos     Pos
}

func (s *Shell) decodeNode(d *decoder, n *yaml.Node) {
	s.Pos = posOf(n)
	if n.Kind == yaml.ScalarNode {
		s.Sh = n.Value
	} else {
		d.decodeStruct(n, reflectValue(s))
	}
	if strings.TrimSpace(s.Sh) == "" {
		d.errorf(n, "expected a shell command (text, or a mapping with sh:, env: and timeout:)")
	}
}

// Step is one cold-cache step.
type Step struct {
	Kind    string // stop-all, start, drop-caches, evict, wait-ready, sh
	Paths   []string
	Timeout time.Duration
	Shell   *Shell
	Pos     Pos
}

const stepKinds = "stop-all, start, drop-caches, evict [PATH...], wait-ready [TIMEOUT], or a mapping {sh: COMMAND}"

func (s *Step) decodeNode(d *decoder, n *yaml.Node) {
	s.Pos = posOf(n)
	if n.Kind == yaml.MappingNode {
		s.Kind = "sh"
		s.Shell = &Shell{}
		s.Shell.decodeNode(d, n)
		return
	}
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "expected a cold-cache step: %s", stepKinds)
		return
	}
	fields := strings.Fields(n.Value)
	if len(fields) == 0 {
		d.errorf(n, "expected a cold-cache step: %s", stepKinds)
		return
	}
	s.Kind = fields[0]
	args := fields[1:]
	switch s.Kind {
	case "stop-all", "start", "drop-caches":
		if len(args) > 0 {
			d.errorf(n, "%s takes no argument, found %q", s.Kind, strings.Join(args, " "))
		}
	case "evict":
		s.Paths = args
	case "wait-ready":
		s.Timeout = time.Minute
		if len(args) > 1 {
			d.errorf(n, "wait-ready takes one timeout, found %q", strings.Join(args, " "))
		} else if len(args) == 1 {
			t, err := time.ParseDuration(args[0])
			if err != nil || t <= 0 {
				d.errorf(n, "expected wait-ready with a positive timeout such as 2m, found %q", args[0])
			}
			s.Timeout = t
		}
	default:
		d.errorf(n, "unknown cold-cache step %q; expected %s", s.Kind, stepKinds)
	}
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

// maxRounds, maxConfigs, maxTests and maxRuns bound a study to what can
// finish (a million runs of a second each are eleven days) and to what its
// schedule can hold in memory.
const (
	maxRounds  = 10000
	maxConfigs = 1000
	maxTests   = 1000
	maxRuns    = 1_000_000
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// maxStudyBytes bounds a study file: a study is a page or two of YAML.
const maxStudyBytes = 4 << 20

// LoadStudy reads and checks a study file. Every problem found is reported,
// each as file:line:col: what was expected.
func LoadStudy(path string) (*Study, error) {
	text, err := infile.ReadFile(path, maxStudyBytes, "a study file")
	if err != nil {
		return nil, fmt.Errorf("read study: %w", err)
	}
	text, err = decodeText(path, text)
	if err != nil {
		return nil, err
	}
	return ParseStudy(path, text)
}

// ParseStudy checks a study given as text; file names it in errors.
func ParseStudy(file string, text []byte) (*Study, error) {
	d := &decoder{file: file}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, ErrorList{{File: file, Msg: "the study file is empty; `pgstudy init` writes an example"}}
		}
		if e := controlChar(file, text); e != nil {
			return nil, ErrorList{e}
		}
		return nil, ErrorList{yamlSyntaxError(file, err)}
	}
	if len(doc.Content) == 0 {
		return nil, ErrorList{{File: file, Msg: "the study file is empty; `pgstudy init` writes an example"}}
	}
	root := doc.Content[0]
	s := &Study{File: file, Text: text}
	if root.Kind != yaml.MappingNode {
		d.errorf(root, "expected a mapping with configs:, tests:, protocol:, disk: and probes:, found %s", kindName(root))
		return nil, d.errs
	}
	d.decodeStruct(root, reflectValue(s))
	s.check(d)
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *LocError) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		})
		return nil, d.errs
	}
	return s, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// controlChar locates the first character YAML does not allow, which the
// YAML parser reports without a place: most often the file is binary.
func controlChar(file string, text []byte) *LocError {
	line, col := 1, 1
	for _, r := range string(text) {
		switch {
		case r == '\n':
			line, col = line+1, 1
			continue
		case r == utf8.RuneError:
			return &LocError{File: file, Line: line, Col: col, Msg: "not valid YAML: expected UTF-8 text, found a byte that is not (is it a binary file?)"}
		case r != '\t' && r != '\r' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0):
			return &LocError{File: file, Line: line, Col: col, Msg: fmt.Sprintf("not valid YAML: expected text, found the control character %U (is it a binary file?)", r)}
		}
		col++
	}
	return nil
}

func yamlSyntaxError(file string, err error) *LocError {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		var line int
		fmt.Sscan(m[1], &line)
		return &LocError{File: file, Line: line, Col: 1, Msg: "not valid YAML: " + m[2]}
	}
	return &LocError{File: file, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
}

// errorAt records an error at p. Its text quotes what the study says, so
// its secrets are removed where they stand (a DSN given where a mapping
// was expected).
func (d *decoder) errorAt(p Pos, format string, args ...any) {
	msg := (*Redactor)(nil).Structural(fmt.Sprintf(format, args...))
	d.errs = append(d.errs, &LocError{File: d.file, Line: p.Line, Col: p.Col, Msg: msg})
}

// check applies defaults and the rules that span fields.
func (s *Study) check(d *decoder) {
	top := Pos{1, 1}
	if s.Client == "" {
		s.Client = "pgx"
	}
	if s.Client != "pgx" && s.Client != "psql" {
		d.errorAt(s.ClientPos, "client must be pgx or psql, found %q", s.Client)
	}
	if len(s.Configs) == 0 && s.ConfigsPos == (Pos{}) {
		d.errorAt(top, "expected configs: a list of at least one configuration (name, dsn, start, stop)")
	}
	if len(s.Tests) == 0 && s.TestsPos == (Pos{}) {
		d.errorAt(top, "expected tests: a list of at least one test (name, sql)")
	}
	s.expandMatrix(d)
	seen := map[string]Pos{}
	for i := range s.Configs {
		c := &s.Configs[i]
		checkName(d, c.Pos, "configuration", c.Name, seen)
		if c.Client == "" {
			c.Client = s.Client
		}
		switch c.Client {
		case "pgx":
			if c.Psql != "" {
				d.errorAt(c.Pos, "configuration %s: psql: is a command line for client psql, but its client is pgx", c.Name)
			}
		case "psql":
			if c.PsqlPos == (Pos{}) {
				c.Psql = "psql -X"
			} else if strings.TrimSpace(c.Psql) == "" {
				d.errorAt(c.PsqlPos, "configuration %s: psql is empty; expected the psql command line, such as psql -X", c.Name)
			}
		default:
			d.errorAt(c.Pos, "configuration %s: client must be pgx or psql, found %q", c.Name, c.Client)
		}
		if _, err := pgconn.ParseConfig(c.DSN); err != nil {
			d.errorAt(c.DSNPos, "configuration %s: expected a libpq connection string (postgres://... or key=value): %v", c.Name, redactErr(err, c.DSN))
		}
	}
	seen = map[string]Pos{}
	for i := range s.Tests {
		t := &s.Tests[i]
		checkName(d, t.Pos, "test", t.Name, seen)
		clients := 0
		for _, c := range []string{t.SQL, t.Pgbench, t.Sysbench} {
			if strings.TrimSpace(c) != "" {
				clients++
			}
		}
		switch {
		case clients > 1:
			d.errorAt(t.Pos, "test %s: expected one of sql:, pgbench: or sysbench:, found more than one", t.Name)
		case t.Throughput():
			if t.Duration.Duration <= 0 {
				d.errorAt(t.Pos, "test %s: a pgbench or sysbench test needs duration: the measured time, such as 30s", t.Name)
			}
			if t.Clients < 0 {
				d.errorAt(t.Pos, "test %s: clients must be at least 1, found %d", t.Name, t.Clients)
			}
			if t.Clients == 0 {
				t.Clients = 1
			}
		case strings.TrimSpace(t.SQL) == "":
			if t.SQLPos == (Pos{}) {
				d.errorAt(t.Pos, "test %s: expected sql: the statement to time (or pgbench: or sysbench: for a throughput test)", t.Name)
			} else {
				d.errorAt(t.SQLPos, "test %s: sql is empty; expected the statement to time", t.Name)
			}
		}
		if !t.Throughput() && (t.Clients != 0 || t.Duration.Duration != 0 || t.Warmup.Duration != 0) {
			d.errorAt(t.Pos, "test %s: clients, duration and warmup are for pgbench and sysbench tests", t.Name)
		}
		if t.Slice != nil && t.Slice.Size <= 0 {
			d.errorAt(t.Slice.Pos, "test %s: slice needs size: a positive number of rows", t.Name)
		}
		if t.Slice != nil && t.Slice.Last != 0 && t.Slice.Last-t.Slice.First+1 < t.Slice.Size {
			d.errorAt(t.Slice.Pos, "test %s: slice last must leave room for one slice of size %d after first", t.Name, t.Slice.Size)
		}
	}
	p := &s.Protocol
	if p.Rounds == 0 {
		p.Rounds = 5
	}
	if p.Rounds < 0 || p.Rounds > maxRounds {
		d.errorAt(p.RoundsPos, "protocol: rounds must be from 1 to %d, found %d", maxRounds, p.Rounds)
		p.Rounds = 0
	}
	if len(s.Tests) > maxTests {
		d.errorAt(s.TestsPos, "tests: %d tests; a study has at most %d", len(s.Tests), maxTests)
	}
	if runs := int64(len(s.Configs)) * int64(len(s.Tests)) * int64(p.Rounds); runs > maxRuns {
		d.errorAt(top, "the study schedules %d runs (%d configurations x %d tests x %d rounds); a study has at most %d",
			runs, len(s.Configs), len(s.Tests), p.Rounds, maxRuns)
		p.Rounds = 0 // nothing more to check round by round
	}
	for i := range s.Tests {
		t := &s.Tests[i]
		if sl := t.Slice; sl != nil && sl.Size > 0 && p.Rounds > 0 {
			if sl.First < 0 {
				d.errorAt(sl.Pos, "test %s: slice first must be 0 or more, found %d", t.Name, sl.First)
			} else if sl.Last == 0 && sl.Size > (math.MaxInt64-sl.First)/int64(p.Rounds) {
				d.errorAt(sl.Pos, "test %s: slice of %d rows from %d for %d rounds goes past the largest row number (%d)", t.Name, sl.Size, sl.First, p.Rounds, int64(math.MaxInt64))
			}
		}
	}
	switch p.Order {
	case "":
		p.Order = "rotate"
	case "rotate", "fixed", "random":
	default:
		d.errorAt(p.OrderPos, "protocol: order must be rotate, fixed or random, found %q", p.Order)
	}
	if p.Seed != 0 && p.Order != "random" {
		d.errorAt(p.SeedPos, "protocol: seed is only used with order: random")
	}
	switch p.OnFailure {
	case "":
		p.OnFailure = "continue"
	case "continue", "stop":
	default:
		d.errorAt(p.OnFailurePos, "protocol: on_failure must be continue or stop, found %q", p.OnFailure)
	}
	if !p.ReadyTimeout.Set {
		p.ReadyTimeout.Duration = time.Minute
	}
	for _, st := range p.Cold {
		switch st.Kind {
		case "start":
			for _, c := range s.Configs {
				if c.Start == nil {
					d.errorAt(st.Pos, "cold step start: configuration %s has no start: command to run", c.Name)
				}
			}
		case "stop-all":
			for _, c := range s.Configs {
				if c.Stop == nil {
					d.errorAt(st.Pos, "cold step stop-all: configuration %s has no stop: command to run", c.Name)
				}
			}
		}
	}
	if s.Disk.Sample.Set && s.Disk.Sample.Duration < 10*time.Millisecond {
		d.errorAt(s.Disk.Pos, "disk: sample must be at least 10ms, found %s", s.Disk.Sample.Duration)
	}
	for _, dev := range s.Disk.Devices {
		if !nameRE.MatchString(dev) || strings.Contains(dev, "/") {
			d.errorAt(s.Disk.Pos, "disk: expected a device name as in /proc/diskstats (nvme0n1, sda), found %q", dev)
		}
	}
	seen = map[string]Pos{}
	for _, pr := range s.Probes {
		checkName(d, pr.Pos, "probe", pr.Name, seen)
		if strings.TrimSpace(pr.Sh) == "" {
			d.errorAt(pr.Pos, "probe %s: expected sh: the command to run", pr.Name)
		}
	}
	s.compileTemplates(d)
}

func checkName(d *decoder, p Pos, what, name string, seen map[string]Pos) {
	switch {
	case name == "":
		d.errorAt(p, "expected name: for this %s", what)
	case !nameRE.MatchString(name):
		d.errorAt(p, "%s name %q: expected letters, digits, '.', '_' or '-'", what, name)
	default:
		if first, dup := seen[name]; dup {
			d.errorAt(p, "%s name %q is used twice (first at line %d)", what, name, first.Line)
		}
		seen[name] = p
	}
}

// config looks a configuration up by name.
func (s *Study) config(name string) *Config {
	for i := range s.Configs {
		if s.Configs[i].Name == name {
			return &s.Configs[i]
		}
	}
	return nil
}

// wantExplain says whether a test's plan is captured.
func (s *Study) wantExplain(t *Test) bool {
	if t.Explain != nil {
		return *t.Explain
	}
	if s.Protocol.Explain != nil {
		return *s.Protocol.Explain
	}
	return true
}

func (s *Study) wantExplainAnalyze(t *Test) bool {
	if t.ExplainAnalyze != nil {
		return *t.ExplainAnalyze
	}
	return s.Protocol.ExplainAnalyze
}

func (s *Study) timeout(t *Test) time.Duration {
	if t.Timeout.Set {
		return t.Timeout.Duration
	}
	if s.Protocol.Timeout.Set {
		return s.Protocol.Timeout.Duration
	}
	return 0
}
