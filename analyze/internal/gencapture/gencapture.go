// Package gencapture writes a synthetic capture for the benchmarks and
// tests of the analysis: what `pgstudy collect` records for a study of four
// configurations (PostgreSQL 17 and 18) and five tests with the pgx client,
// written through samples.Writer like a real one.
//
// Every raw output has the shape of the real thing: the plans are
// parse/explain/testdata fixtures, the pg_stat_io rows and pg_settings are
// copies of what real 17.10 and 18.4 servers printed (35 and 79 rows of
// pg_stat_io), /proc/diskstats is that of a small cloud VM (ten devices,
// loop0-7, vda, zram0). The numbers come from a generator seeded by
// Options.Seed, so the same options always give the same rows (the capture
// id, which samples draws at random, aside). Runs returns what the
// generator put in each run, for a test to compare the analysis with.
package gencapture

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pgstudy/pgstudy/samples"
)

// Options size a generated capture.
type Options struct {
	// Runs is the number of timed runs (1,000 when zero). The study has
	// four configurations and five tests, so 20 runs a round; the last
	// round is cut short when Runs is not a multiple of 20.
	Runs int
	// Samples is the number of /proc/diskstats snapshots taken during each
	// run, besides the ones before and after it (10 when zero; -1 for
	// none).
	Samples int
	// RunsPerPart is how many runs are committed together, as one Parquet
	// part per table (samples.Writer.CommitMany). 1 (the default) is what
	// collect writes: a part per run per table.
	RunsPerPart int
	// Seed chooses the numbers (1 when zero).
	Seed uint64
	// Settings adds what collect reads once per configuration and round:
	// the servers row and all of pg_settings (378 rows for 17, 398 for
	// 18), in the first run of each.
	Settings bool
	// Host is the machine's name ("bench-vm-1" when empty).
	Host string
	// NoFacts leaves out the runs' facts, as collectors before facts did:
	// the analysis computes them from the raw text.
	NoFacts bool
	// Study, when set, rewrites the study the capture records (to give
	// device limits, or keys another version wrote).
	Study func(yaml string) string
}

func (o *Options) defaults() {
	if o.Runs == 0 {
		o.Runs = 1000
	}
	if o.Samples == 0 {
		o.Samples = 10
	}
	if o.Samples < 0 {
		o.Samples = 0
	}
	if o.RunsPerPart <= 0 {
		o.RunsPerPart = 1
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Host == "" {
		o.Host = "bench-vm-1"
	}
}

// Run is what the generator put in one run: the figures an analysis of the
// capture must find.
type Run struct {
	RunID    int64
	Round    int
	Position int
	Test     string
	Config   string

	ElapsedNs   int64 // the client's time of the timed statement
	ReadBytes   int64 // vda's read sectors × 512 from the snapshot before to the one after
	Reads       int64 // vda's reads completed over the same window
	PGReadBytes int64 // pg_stat_io's reads × 8192 (read_bytes from 18), after minus before
	WALBytes    int64 // WAL position after minus before
	Autovacuum  bool  // an autovacuum ended during the run (vacuum_counts moved)
}

// item is one run of the schedule: indexes into tests and configs.
type item struct {
	id          int64
	round, pos  int
	test, confi int
}

func rounds(runs int) int {
	per := len(tests) * len(configs)
	return (runs + per - 1) / per
}

// schedule lays out runs as collect does with order: rotate: rounds, then
// tests, then the configurations taking turns, the first moving by one
// each round.
func schedule(runs int) []item {
	var items []item
	n := len(configs)
	for r := 1; len(items) < runs; r++ {
		for ti := range tests {
			for pos := range n {
				if len(items) == runs {
					return items
				}
				items = append(items, item{id: int64(len(items) + 1), round: r, pos: pos + 1, test: ti, confi: (pos + r - 1) % n})
			}
		}
	}
	return items
}

const (
	mib      = 1 << 20
	pageSize = 8192
	sector   = 512
)

// decide draws a run's figures. It depends on the seed and the run only, so
// Runs and Generate agree without generating the rows.
func decide(seed uint64, it item) Run {
	t, c := &tests[it.test], &configs[it.confi]
	rng := rand.New(rand.NewPCG(seed, uint64(it.id)))
	r := Run{RunID: it.id, Round: it.round, Position: it.pos, Test: t.name, Config: c.name}
	ms := t.baseMs * c.factor[t.name] * math.Exp(t.sigma*rng.NormFloat64())
	if rng.Float64() < 0.02 {
		ms *= 1.15 + 0.4*rng.Float64() // now and then a slow run
	}
	r.ElapsedNs = int64(ms * 1e6)
	sectors := int64(math.Round(t.readMiB * mib * (1 + 0.01*rng.NormFloat64()) / sector))
	r.ReadBytes = sectors * sector
	req := c.reqKiB[t.name] * 1024 * (1 + 0.02*rng.NormFloat64())
	r.Reads = max(1, int64(math.Round(float64(r.ReadBytes)/req)))
	r.PGReadBytes = int64(math.Round(float64(r.ReadBytes)*0.97/pageSize)) * pageSize
	if t.walBytes > 0 {
		r.WALBytes = int64(t.walBytes * (1 + 0.03*rng.NormFloat64()))
	}
	// The update test leaves 10,000 dead rows a run: pgbench_accounts
	// reaches autovacuum's threshold (50 + 20% of 2,000,000) every 40 of
	// them, and its autovacuum ends during that configuration's next run.
	r.Autovacuum = t.walBytes > 0 && (it.round+11*it.confi)%40 == 5
	return r
}

// Runs returns what Generate puts in each run, in run order.
func Runs(opt Options) []Run {
	opt.defaults()
	items := schedule(opt.Runs)
	out := make([]Run, len(items))
	for i, it := range items {
		out[i] = decide(opt.Seed, it)
	}
	return out
}

// Generate writes a capture of opt.Runs runs into dir, which must be empty
// or absent.
func Generate(dir string, opt Options) (err error) {
	opt.defaults()
	g, err := newGen(opt)
	if err != nil {
		return err
	}
	w, err := samples.Create(dir, samples.Options{})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	yaml := studyYAML(rounds(opt.Runs))
	if opt.Study != nil {
		yaml = opt.Study(yaml)
	}
	sum := sha256.Sum256([]byte(yaml))
	if err := w.WriteSession(samples.Capture{ToolVersion: "(devel)", StartedAt: g.clock.Add(-3 * time.Second),
		Command: "pgstudy collect study.yaml -o capture", StudyFile: "study.yaml", StudyYAML: yaml,
		StudySHA256: hex.EncodeToString(sum[:]), ScheduledRuns: int64(rounds(opt.Runs) * len(tests) * len(configs))},
		hostRows(opt.Host)); err != nil {
		return err
	}

	// Build the runs in one goroutine while this one writes them: encoding
	// and compressing take about as long as making the rows.
	items := schedule(opt.Runs)
	groups := make(chan []*samples.Batch, 2)
	stop := make(chan struct{})
	go func() {
		defer close(groups)
		var group []*samples.Batch
		for _, it := range items {
			group = append(group, g.run(it, decide(opt.Seed, it)))
			if len(group) == opt.RunsPerPart {
				select {
				case groups <- group:
				case <-stop:
					return
				}
				group = nil
			}
		}
		if len(group) > 0 {
			select {
			case groups <- group:
			case <-stop:
			}
		}
	}()
	defer func() {
		close(stop)
		for range groups {
		}
	}()
	for group := range groups {
		if len(group) == 1 {
			err = w.Commit(group[0])
		} else {
			err = w.CommitMany(group)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func hostRows(name string) []samples.Host {
	h := func(name, source, value string) samples.Host {
		return samples.Host{Name: name, Source: source, Value: value}
	}
	return []samples.Host{
		h("hostname", "gethostname", name),
		h("kernel.release", "/proc/sys/kernel/osrelease", "6.18.44\n"),
		h("kernel.version", "/proc/version", "Linux version 6.18.44 (builder@buildhost) (gcc (GCC) 15.3.0, GNU ld (GNU Binutils) 2.46) #1 SMP PREEMPT_DYNAMIC\n"),
		h("os.release", "/etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nVERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\nID=debian\n"),
		h("cpu.arch", "runtime.GOARCH", "amd64"),
		h("cpu.count", "runtime.NumCPU", "2"),
		h("cpu.info", "/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2095.989\ncache size\t: 1024 KB\n\n"+
			"processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2095.989\ncache size\t: 1024 KB\n\n"),
		h("memory.info", "/proc/meminfo", "MemTotal:        4025324 kB\nMemFree:         3264012 kB\nMemAvailable:    3581140 kB\nBuffers:           21088 kB\nCached:           412996 kB\nSwapTotal:             0 kB\n"),
		h("mounts", "/proc/self/mountinfo", "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n27 26 0:5 / /dev rw,nosuid - devtmpfs devtmpfs rw,size=2012662k\n"),
		h("vm.dirty_ratio", "/proc/sys/vm/dirty_ratio", "20\n"),
		h("vm.dirty_background_ratio", "/proc/sys/vm/dirty_background_ratio", "10\n"),
		h("vm.swappiness", "/proc/sys/vm/swappiness", "60\n"),
		h("device.vda.size", "/sys/block/vda/size", "104857600\n"),
		h("device.vda.queue.read_ahead_kb", "/sys/block/vda/queue/read_ahead_kb", "128\n"),
		h("device.vda.queue.scheduler", "/sys/block/vda/queue/scheduler", "[none] mq-deadline kyber bfq\n"),
		h("device.vda.queue.rotational", "/sys/block/vda/queue/rotational", "0\n"),
		h("device.vda.queue.logical_block_size", "/sys/block/vda/queue/logical_block_size", "512\n"),
		h("device.vda.queue.physical_block_size", "/sys/block/vda/queue/physical_block_size", "4096\n"),
		h("device.vda.queue.max_sectors_kb", "/sys/block/vda/queue/max_sectors_kb", "1280\n"),
		h("device.vda.queue.max_hw_sectors_kb", "/sys/block/vda/queue/max_hw_sectors_kb", "2147483647\n"),
		h("device.vda.queue.nr_requests", "/sys/block/vda/queue/nr_requests", "256\n"),
		h("device.vda.queue.nomerges", "/sys/block/vda/queue/nomerges", "0\n"),
	}
}

// The SQL the collector sends around a timed statement (collect/server.go).
const (
	sqlLSN = "select pg_current_wal_lsn()::text, (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, " +
		"pg_current_wal_insert_lsn()::text, (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint"
	sqlWAL = "select row_to_json(v)::text from pg_stat_wal v"
	sqlIO  = "select row_to_json(v)::text from pg_stat_io v"
	sqlAct = "select row_to_json(a)::text from (select pid, backend_type, state, wait_event_type, wait_event, " +
		"datname, xact_start, query_start, left(query, 300) as query from pg_stat_activity " +
		"where pid <> pg_backend_pid() and pid <> %d and (backend_type = 'autovacuum worker' " +
		"or (backend_type in ('client backend', 'parallel worker', 'background worker', 'walsender') and state is distinct from 'idle'))) a"
	sqlVac = "select row_to_json(t)::text from (select current_database() as datname, " +
		"coalesce(sum(autovacuum_count), 0) as autovacuum_count, coalesce(sum(autoanalyze_count), 0) as autoanalyze_count, " +
		"coalesce(sum(vacuum_count), 0) as vacuum_count, coalesce(sum(analyze_count), 0) as analyze_count, " +
		"max(last_autovacuum) as last_autovacuum, max(last_autoanalyze) as last_autoanalyze from pg_stat_all_tables) t"
	sqlFlush    = "select pg_stat_force_next_flush()"
	sqlFacts    = "select version(), current_setting('server_version'), current_setting('server_version_num')::int, current_setting('data_checksums'), coalesce((select setting from pg_settings where name = 'data_directory'), '')"
	sqlSettings = "select name, setting, coalesce(unit, ''), source, context, vartype, coalesce(boot_val, ''), coalesce(reset_val, ''), pending_restart from pg_settings order by name"
)
