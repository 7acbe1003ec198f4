package study

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxRounds, maxConfigs, maxTests and maxRuns bound a study to what can
// finish (a million runs of a second each are eleven days) and to what its
// schedule can hold in memory.
const (
	MaxRounds  = 10000
	maxConfigs = 1000
	maxTests   = 1000
	maxRuns    = 1_000_000
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ValidName says whether a configuration, test or probe name is one a
// study file allows: letters, digits, '.', '_' and '-', not first.
func ValidName(name string) bool { return nameRE.MatchString(name) }

// check applies defaults and the rules that span fields, in the order of
// the file: configurations, tests, protocol, cold steps, disk, probes.
func (s *Study) check(d *decoder) {
	top := Pos{1, 1}
	if s.Client == "" {
		s.Client = "pgx"
	}
	if s.Client != "pgx" && s.Client != "psql" {
		d.errorAt(s.ClientPos, "client must be pgx or psql, found %q", s.Client)
	}
	switch {
	case len(s.Configs) > 0:
	case s.ConfigsPos == (Pos{}):
		d.errorAt(top, "expected configs: a list of at least one configuration (name, dsn, start, stop)")
	case !d.hasErrorAt(s.ConfigsPos):
		d.errorAt(s.ConfigsPos, "configs: expected at least one configuration (name, dsn, start, stop), found none")
	}
	switch {
	case len(s.Tests) > 0:
	case s.TestsPos == (Pos{}):
		d.errorAt(top, "expected tests: a list of at least one test (name, sql)")
	case !d.hasErrorAt(s.TestsPos):
		d.errorAt(s.TestsPos, "tests: expected at least one test (name, sql), found none")
	}
	s.expandMatrix(d)
	s.checkConfigs(d)
	s.checkSameAs(d)
	s.checkTests(d)
	s.checkProtocol(d)
	s.checkSlices(d)
	s.checkCold(d)
	s.checkDisk(d)
	s.checkCalibrate(d)
	s.checkCgroups(d)
	seen := map[string]Pos{}
	for _, pr := range s.Probes {
		d.checkName(pr.Pos, "probe", pr.Name, seen)
		if strings.TrimSpace(pr.Sh) == "" {
			d.errorAt(pr.Pos, "probe %s: expected sh: the command to run", pr.Name)
		}
	}
}

func (s *Study) checkConfigs(d *decoder) {
	seen := map[string]Pos{}
	for i := range s.Configs {
		c := &s.Configs[i]
		d.checkName(c.Pos, "configuration", c.Name, seen)
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
	}
}

func (s *Study) checkTests(d *decoder) {
	seen := map[string]Pos{}
	for i := range s.Tests {
		t := &s.Tests[i]
		d.checkName(t.Pos, "test", t.Name, seen)
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
			if opt := clientConflict(t); opt != "" {
				d.errorAt(t.Pos, "test %s: %s is pgstudy's to set (from clients:, duration: and the configuration's dsn); a run with it would not measure what the study says", t.Name, opt)
			}
			if t.Clients == 0 && t.ClientsPos != (Pos{}) && !d.hasErrorAt(t.ClientsPos) {
				d.errorAt(t.ClientsPos, "test %s: clients must be at least 1, found 0", t.Name)
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
		if g := t.Group; g != "" && (strings.TrimSpace(g) != g || strings.ContainsAny(g, "\n\r\t") || utf8.RuneCountInString(g) > 80) {
			d.errorAt(t.Pos, "test %s: group %q: expected a heading on one line, of 80 characters at most, without spaces around it", t.Name, g)
		} else if slices.Contains(ReservedGroups, g) {
			d.errorAt(t.Pos, "test %s: group %q is the relative tables' own heading (for %s); choose another", t.Name, g, "the geomean across tests, and tests without a group")
		}
		if t.Slice != nil && t.Slice.Size <= 0 {
			d.errorAt(t.Slice.Pos, "test %s: slice needs size: a positive number of rows", t.Name)
		}
		if t.Slice != nil && t.Slice.Last != 0 && t.Slice.Last-t.Slice.First+1 < t.Slice.Size {
			d.errorAt(t.Slice.Pos, "test %s: slice last must leave room for one slice of size %d after first", t.Name, t.Slice.Size)
		}
	}
}

func (s *Study) checkProtocol(d *decoder) {
	p := &s.Protocol
	if p.Rounds == 0 && p.RoundsPos != (Pos{}) && !d.hasErrorAt(p.RoundsPos) {
		d.errorAt(p.RoundsPos, "protocol: rounds must be from 1 to %d, found 0", MaxRounds)
	}
	if p.Rounds == 0 {
		p.Rounds = 5 // not given, or refused above
	}
	if p.Rounds < 0 || p.Rounds > MaxRounds {
		d.errorAt(p.RoundsPos, "protocol: rounds must be from 1 to %d, found %d", MaxRounds, p.Rounds)
		p.Rounds = 0
	}
	if len(s.Tests) > maxTests {
		d.errorAt(s.TestsPos, "tests: %d tests; a study has at most %d", len(s.Tests), maxTests)
	}
	if runs := int64(len(s.Configs)) * int64(len(s.Tests)) * int64(p.Rounds); runs > maxRuns {
		d.errorAt(Pos{1, 1}, "the study schedules %d runs (%d configurations x %d tests x %d rounds); a study has at most %d",
			runs, len(s.Configs), len(s.Tests), p.Rounds, maxRuns)
		p.Rounds = 0 // nothing more to check round by round
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
	if p.AIOSample.Set && p.AIOSample.Duration < 10*time.Millisecond {
		d.errorAt(p.Pos, "protocol: aios_sample must be at least 10ms, found %s", p.AIOSample.Duration)
	}
}

// checkSlices checks that every round's slice has row numbers.
func (s *Study) checkSlices(d *decoder) {
	rounds := s.Protocol.Rounds
	for i := range s.Tests {
		t := &s.Tests[i]
		if sl := t.Slice; sl != nil && sl.Size > 0 && rounds > 0 {
			if sl.First < 0 {
				d.errorAt(sl.Pos, "test %s: slice first must be 0 or more, found %d", t.Name, sl.First)
			} else if sl.Last == 0 && sl.Size > (math.MaxInt64-sl.First)/int64(rounds) {
				d.errorAt(sl.Pos, "test %s: slice of %d rows from %d for %d rounds goes past the largest row number (%d)", t.Name, sl.Size, sl.First, rounds, int64(math.MaxInt64))
			} else if n := sl.fits(); !d.stored && n >= 1 && n < int64(rounds) {
				d.errorAt(sl.Pos, "test %s: slice of %d rows in rows %d to %d holds %d slice(s), but the study has %d rounds: round %d would change "+
					"the rows of round 1 again; make last at least %d, size at most %d, or rounds at most %d",
					t.Name, sl.Size, sl.First, sl.Last, n, rounds, n+1, sl.reach(rounds), (sl.Last-sl.First+1)/int64(rounds), n)
			}
		}
	}
}

func (s *Study) checkCold(d *decoder) {
	for _, st := range s.Protocol.Cold {
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
}

func (s *Study) checkDisk(d *decoder) {
	if s.Disk.Sample.Set && s.Disk.Sample.Duration < 10*time.Millisecond {
		d.errorAt(s.Disk.Pos, "disk: sample must be at least 10ms, found %s", s.Disk.Sample.Duration)
	}
	for _, dev := range s.Disk.Devices {
		if !nameRE.MatchString(dev) || strings.Contains(dev, "/") {
			d.errorAt(s.Disk.Pos, "disk: expected a device name as in /proc/diskstats (nvme0n1, sda), found %q", dev)
		}
	}
}

// checkName refuses a missing, repeated or (in a study file, not a stored
// one) badly spelt name.
func (d *decoder) checkName(p Pos, what, name string, seen map[string]Pos) {
	switch {
	case name == "":
		d.errorAt(p, "expected name: for this %s", what)
	case !d.stored && !nameRE.MatchString(name):
		d.errorAt(p, "%s name %q: expected letters, digits, '.', '_' or '-'", what, name)
	default:
		if first, dup := seen[name]; dup {
			d.errorAt(p, "%s name %q is used twice (first at line %d)", what, name, first.Line)
		}
		seen[name] = p
	}
}

// The options of pgbench and sysbench that pgstudy sets itself: the
// clients, the duration, the progress lines it reads, the connection. A
// study's own would conflict (pgbench refuses -t beside -T) or win (a
// later --time), and the run would not be the one the dry run shows.
var (
	pgbenchOwn  = []string{"-c", "--client", "-j", "--jobs", "-T", "--time", "-t", "--transactions", "-P", "--progress", "-h", "--host", "-p", "--port", "-U", "--username"}
	sysbenchOwn = []string{"--threads", "--time", "--events", "--report-interval", "--db-driver", "--pgsql-host", "--pgsql-port", "--pgsql-user", "--pgsql-password", "--pgsql-db"}
)

// clientConflict is the first option of a throughput test's client
// arguments that pgstudy sets itself, or "".
func clientConflict(t *Test) string {
	args, own := strings.Fields(t.Pgbench), pgbenchOwn
	if strings.TrimSpace(t.Sysbench) != "" {
		args, own = strings.Fields(t.Sysbench), sysbenchOwn
	}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		for _, o := range own {
			// -c4 is -c 4; a long option may be --time=10.
			if name == o || (len(o) == 2 && len(a) > 2 && strings.HasPrefix(a, o) && !strings.HasPrefix(a, "--")) {
				return a
			}
		}
	}
	return ""
}

// ReservedGroups are the headings the relative tables give rows of no
// study group: the geomean across the tests, and tests without a group.
var ReservedGroups = []string{"all tests", "other tests"}
