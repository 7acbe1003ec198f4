package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/parse/hostfacts"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// Setup is what a write-up's "How we measured" says about one capture,
// drafted from what the collector recorded: the machine, its disk, the
// servers, and the protocol.
type Setup struct {
	Host    string           `json:"host"`
	Study   string           `json:"study"`
	Command string           `json:"command"`
	Tool    string           `json:"tool_version"`
	OS      string           `json:"os,omitempty"`
	Kernel  string           `json:"kernel,omitempty"`
	CPU     string           `json:"cpu,omitempty"`
	CPUs    *int64           `json:"cpus"`         // nil: unknown
	Memory  *int64           `json:"memory_bytes"` // nil: unknown
	Devices []DeviceSetup    `json:"devices,omitempty"`
	Servers []ServerSetup    `json:"servers"`
	Rounds  int              `json:"rounds"`
	Order   string           `json:"order"`
	Cold    string           `json:"cold"`
	Sample  time.Duration    `json:"sample_ns,omitempty"` // how often diskstats were read during a run; 0: before and after only
	Runs    int              `json:"runs"`
	Tests   []TestSetup      `json:"tests"`
	Limits  map[string]Limit `json:"limits,omitempty"` // by device: this host's, from its study
}

// DeviceSetup is a block device the runs read and its queue settings.
type DeviceSetup struct {
	Name      string `json:"name"`
	Model     string `json:"model,omitempty"`
	Size      *int64 `json:"size_bytes"`
	Scheduler string `json:"scheduler,omitempty"`
	// The queue's settings, as sysfs names and holds them (nil: not
	// recorded): read_ahead_kb and max_sectors_kb are in KiB.
	Rotational   *bool  `json:"rotational"`
	ReadAheadKB  *int64 `json:"read_ahead_kb"`
	MaxSectorsKB *int64 `json:"max_sectors_kb"`
	NrRequests   *int64 `json:"nr_requests"`
}

// ServerSetup is a configuration's server as the first round found it,
// with what a reader needs to set it up again.
type ServerSetup struct {
	Config        string `json:"config"`
	Version       string `json:"version"` // server_version
	Full          string `json:"full_version"`
	DataChecksums string `json:"data_checksums"`
	Client        string `json:"client"`
	// ClientOf is the study's client of the configuration (pgx or psql),
	// which the collector recorded the version of; Client is what its
	// runs ran (pgbench, sysbench for throughput tests).
	ClientOf string `json:"client_of,omitempty"`
	// ClientCommand is psql's command line as the study gives it;
	// ClientVersion is what the collector recorded of the client (psql's
	// --version, pgx's module version), ClientSource where it came from
	// (the command run, "go build info"), ClientError why it is unknown.
	// All are empty where the capture has no record (made before it).
	ClientCommand string `json:"client_command,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	ClientSource  string `json:"client_source,omitempty"`
	ClientError   string `json:"client_error,omitempty"`
	// Declared are the configuration's settings as the study declares
	// them, and how each was applied.
	Declared []DeclaredSetting `json:"declared_settings,omitempty"`
	// Settings are the settings that matter as the server reported them
	// (pg_settings) in the rounds analysed.
	Settings []ReportedSetting `json:"settings,omitempty"`
	// Relations are the sizes of the relations the tests touch, by round.
	Relations []RelationSetup `json:"relations,omitempty"`
}

// DeclaredSetting is one of a configuration's declared settings. Applied
// is how the capture's statements and steps say it was brought into
// effect: "SET on each session", "ALTER SYSTEM, then a reload" or
// "ALTER SYSTEM, then a restart"; empty where they do not say.
type DeclaredSetting struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Applied string `json:"applied,omitempty"`
}

// ReportedSetting is a setting as a configuration's server reported it:
// every distinct value of the rounds analysed (more than one when it
// changed between rounds), and the source of the last row read.
type ReportedSetting struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
	Source string   `json:"source"`
}

// RelationSetup is a table, index, materialized view or TOAST table (Kind
// as pg_class.relkind: r, i, m, t) and its size in each round it was read.
type RelationSetup struct {
	Schema string          `json:"schema"`
	Name   string          `json:"name"`
	Kind   string          `json:"kind"`
	Table  string          `json:"table,omitempty"` // an index's table, a TOAST table's owner
	Rounds []RelationRound `json:"rounds"`
}

// RelationRound is a relation's size as one round read it, before its
// first timed statement: pg_relation_size, pg_total_relation_size (with
// indexes and TOAST for a table) and reltuples (the planner's estimate);
// null where the server gave none (reltuples before the first vacuum).
type RelationRound struct {
	Round      int      `json:"round"`
	Bytes      *float64 `json:"bytes"`
	TotalBytes *float64 `json:"total_bytes"`
	Tuples     *float64 `json:"reltuples"`
}

// TestSetup is a statement test as a reader would run it again (a
// throughput test's is a ThroughputSetup; its SQL is empty here).
type TestSetup struct {
	Name       string            `json:"name"`
	SQL        string            `json:"sql"`
	ExpectPlan string            `json:"expect_plan,omitempty"`
	Set        map[string]string `json:"set,omitempty"`    // SET on the timed session
	Before     []string          `json:"before,omitempty"` // as written, before the cold steps of each run
	Slices     []SliceRound      `json:"slices,omitempty"` // the rows each round's slice covered
}

// SliceRound is the rows a test's slice covered in a round.
type SliceRound struct {
	Round int   `json:"round"`
	Lo    int64 `json:"lo"`
	Hi    int64 `json:"hi"`
}

// factInt is a host fact that holds a whole number, or nil.
func factInt(text string) *int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// setup drafts a capture's Setup.
func setup(c *capture, hosts []samples.Host, study string, cmd string, runs []*Run) Setup {
	s := Setup{Host: c.info.Host, Study: c.study.Name, Command: cmd, Tool: c.info.Tool, Limits: c.study.Disk.Limits}
	if s.Study == "" {
		s.Study = study
	}
	fact := map[string]string{}
	for _, h := range hosts {
		if h.Session == 1 || fact[h.Name] == "" {
			fact[h.Name] = strings.TrimSpace(h.Value)
		}
	}
	s.Kernel = fact["kernel.release"]
	s.CPUs = factInt(fact["cpu.count"])
	s.machine(fact, &c.info.hostWarnings)
	devs := map[string]bool{}
	for _, r := range runs {
		if r.Device != "" {
			devs[r.Device] = true
		}
	}
	for _, d := range sortedKeys(devs) {
		q := func(name string) string { return fact["device."+d+".queue."+name] }
		ds := DeviceSetup{Name: d, Model: fact["device."+d+".model"], ReadAheadKB: factInt(q("read_ahead_kb")),
			MaxSectorsKB: factInt(q("max_sectors_kb")), NrRequests: factInt(q("nr_requests")), Scheduler: hostfacts.Scheduler(q("scheduler"))}
		if r := factInt(q("rotational")); r != nil {
			rot := *r != 0
			ds.Rotational = &rot
		}
		if n, ok := hostfacts.SizeBytes(fact["device."+d+".size"]); ok {
			size := int64(n)
			ds.Size = &size
		}
		s.Devices = append(s.Devices, ds)
	}
	clients := configClients(runs)
	cold := map[string]int{}
	for _, r := range runs {
		s.Rounds = max(s.Rounds, r.Round)
		cold[r.Cold]++
	}
	s.Runs = len(runs)
	for k, n := range cold {
		if n > cold[s.Cold] || n == cold[s.Cold] && k < s.Cold {
			s.Cold = k
		}
	}
	s.Order = c.study.Protocol.Order
	if s.Order == "" {
		s.Order = "rotate" // an import's: it has no study
	}
	s.Sample = c.study.Disk.Sample.Duration
	servers := slices.Clone(c.servers)
	slices.SortFunc(servers, func(x, y samples.Server) int { return cmp.Compare(x.Round, y.Round) })
	seen := map[string]bool{}
	for _, sv := range servers {
		if seen[sv.Config] {
			continue
		}
		seen[sv.Config] = true
		ss := ServerSetup{Config: sv.Config, Version: sv.ServerVersion, Full: sv.Version,
			DataChecksums: sv.DataChecksums, Client: clients[sv.Config]}
		c.serverSetup(&ss, runs)
		s.Servers = append(s.Servers, ss)
	}
	for i := range c.study.Tests {
		s.Tests = append(s.Tests, testSetup(&c.study.Tests[i], s.Rounds))
	}
	return s
}

// machine fills in the OS, the CPU and the memory from the host facts that
// hold them, each read by its parser; what a parser could not read is kept
// in warns, as a run's outputs' warnings are, and becomes a finding. A
// fact the capture lacks (an import's) is left out without a word.
func (s *Setup) machine(fact map[string]string, warns *parseWarnings) {
	if text := fact["os.release"]; text != "" {
		o, ws, err := hostfacts.OSRelease(strings.NewReader(text), "host fact os.release")
		warns.Add("os.release", ws, err)
		s.OS = o.PrettyName()
	}
	if text := fact["cpu.info"]; text != "" {
		c, ws, err := hostfacts.CPUInfo(strings.NewReader(text), "host fact cpu.info")
		warns.Add("cpu.info", ws, err)
		s.CPU = c.ModelName
	}
	if text := fact["memory.info"]; text != "" {
		m, ws, err := hostfacts.Meminfo(strings.NewReader(text), "host fact memory.info")
		warns.Add("memory.info", ws, err)
		if kib, ok := m.TotalKiB(); ok && kib > 0 {
			b := int64(kib) * 1024
			s.Memory = &b
		}
	}
}

// guardHostFacts: a host fact its parser could not read leaves a line of
// "How we measured" blank or short, and a reader must know why.
func (a *Analysis) guardHostFacts() {
	for _, c := range a.Captures {
		for _, msg := range c.hostWarnings.Messages() {
			a.add(Finding{Guard: "unreadable", Severity: Warning, Host: c.Host,
				Message: fmt.Sprintf("the capture %s: host facts: %s", c.Name, msg)})
		}
	}
}

// Limit is a device's limit as a study gives it: samples/study's type,
// named here for render, which reads analyses and not studies.
type Limit = study.Limit

// Limit is what the study of host's capture gives as device's limit.
// Limits are per host: two hosts' devices of one name are not one device.
func (a *Analysis) Limit(host, device string) (Limit, bool) {
	for _, s := range a.Setups {
		if s.Host == host {
			l, ok := s.Limits[device]
			return l, ok
		}
	}
	return Limit{}, false
}
