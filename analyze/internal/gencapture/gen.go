package gencapture

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/analyze/facts"
	"github.com/pgstudy/pgstudy/samples"
)

// server is the state of one configuration's server: its cumulative
// statistics, which survive the restarts of the cold steps.
type server struct {
	cfg      *configDef
	io       []jrow
	ioIdx    map[string]int // "backend|object|context"
	wal      jrow
	lsn      int64
	vac      jrow
	dirty    int64 // pages dirtied and not yet written: the next shutdown checkpoint writes them
	pid      int32
	settings []settingRow
	version  string
}

// gen builds the rows of one run after the other, carrying the state a
// real host and its servers carry from run to run.
type gen struct {
	opt     Options
	clock   time.Time
	vda     [17]uint64 // vda's counters, cumulative
	servers []*server
	up      []bool // which servers are running
	facts   map[[2]int]bool
	plans   []string
	static  []byte // the lines before vda's
	zram    []byte // the line after it
}

func newGen(opt Options) (*gen, error) {
	g := &gen{opt: opt, clock: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), facts: map[[2]int]bool{}}
	// vda as this machine's /proc/diskstats had it.
	g.vda = [17]uint64{1052571, 417881, 414380234, 2474733, 1570350, 390611, 137500072, 829773, 0, 590252, 3550889,
		423833, 82, 80422072, 112944, 398282, 133437}
	zero := " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	for i := range 8 {
		g.static = fmt.Appendf(g.static, "%4d %7d loop%d%s", 7, i, i, zero)
	}
	g.zram = fmt.Appendf(nil, "%4d %7d zram0%s", 253, 0, zero)
	for i := range tests {
		g.plans = append(g.plans, planText(&tests[i]))
	}
	reset := g.clock.Add(-26 * time.Hour).Format("2006-01-02T15:04:05.000000-07:00")
	for ci := range configs {
		c := &configs[ci]
		s := &server{cfg: c, ioIdx: map[string]int{}, pid: int32(2100 + 1000*ci), lsn: 0x2ED1648 + int64(ci)*0x1000000}
		var err error
		if s.io, err = parseRows(fixture(fmt.Sprintf("pg%d-stat-io.jsonl", c.major))); err != nil {
			return nil, err
		}
		for i, row := range s.io {
			row.get("stats_reset").str = reset
			s.ioIdx[row.get("backend_type").str+"|"+row.get("object").str+"|"+row.get("context").str] = i
		}
		walText := `{"wal_records":30169,"wal_fpi":1260,"wal_bytes":32150166,"wal_buffers_full":1453,"wal_write":2220,"wal_sync":21,"wal_write_time":0,"wal_sync_time":0,"stats_reset":""}`
		if c.major >= 18 {
			walText = `{"wal_records":23952,"wal_fpi":802,"wal_bytes":7589802,"wal_buffers_full":0,"stats_reset":""}`
		}
		rows, err := parseRows(walText)
		if err != nil {
			return nil, err
		}
		s.wal = rows[0]
		s.wal.get("stats_reset").str = reset
		rows, err = parseRows(`{"datname":"bench","autovacuum_count":3,"autoanalyze_count":4,"vacuum_count":26,"analyze_count":15,"last_autovacuum":null,"last_autoanalyze":null}`)
		if err != nil {
			return nil, err
		}
		s.vac = rows[0]
		if opt.Settings {
			if s.settings, err = parseSettings(fixture(fmt.Sprintf("pg%d-settings.tsv", c.major))); err != nil {
				return nil, err
			}
			s.settings = serverSettings(s.settings, c)
		}
		s.version = "PostgreSQL 17.10 on x86_64-pc-linux-gnu, compiled by gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0, 64-bit"
		if c.major == 18 {
			s.version = "PostgreSQL 18.4 on x86_64-pc-linux-gnu, compiled by gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0, 64-bit"
		}
		g.servers = append(g.servers, s)
		g.up = append(g.up, false)
	}
	g.up[len(g.up)-1] = true // the last configuration of a previous study is still up
	return g, nil
}

func dataDir(c *configDef) string { return fmt.Sprintf("/var/lib/postgresql/%d/%s", c.major, c.name) }

// serverSettings is the fixture's pg_settings as the configuration's
// server reports it: its port and data directory, and the settings the
// study changes with ALTER SYSTEM.
func serverSettings(rows []settingRow, c *configDef) []settingRow {
	out := make([]settingRow, len(rows))
	copy(out, rows)
	dir := dataDir(c)
	for i := range out {
		r := &out[i]
		switch r.name {
		case "port":
			r.setting, r.resetVal = strconv.Itoa(c.port), strconv.Itoa(c.port)
		case "data_directory":
			r.setting, r.resetVal = dir, dir
		case "config_file", "hba_file", "ident_file":
			base := r.setting[strings.LastIndexByte(r.setting, '/')+1:]
			r.setting, r.resetVal = dir+"/"+base, dir+"/"+base
		}
		for _, o := range c.pgOver {
			if r.name == o[0] {
				r.setting, r.resetVal, r.source = o[1], o[1], o[2]
			}
		}
	}
	return out
}

// ioRow returns a pg_stat_io row of the server.
func (s *server) ioRow(backend, object, context string) jrow {
	i, ok := s.ioIdx[backend+"|"+object+"|"+context]
	if !ok {
		panic(fmt.Sprintf("gencapture: no pg_stat_io row %s/%s/%s", backend, object, context))
	}
	return s.io[i]
}

// read counts reads of pages (and their bytes, from 18) in a pg_stat_io row.
func (s *server) read(backend, context string, pages, hits int64) {
	r := s.ioRow(backend, "relation", context)
	r.add("reads", pages)
	r.add("read_bytes", pages*pageSize)
	r.add("hits", hits)
	if context == "bulkread" {
		r.add("reuses", max(0, pages-16)) // the 256 kB ring
	}
}

// stop is what a clean shutdown leaves in the statistics: the checkpoint
// writes the dirty pages and a shutdown checkpoint record.
func (s *server) stop() {
	r := s.ioRow("checkpointer", "relation", "normal")
	r.add("writes", s.dirty)
	r.add("write_bytes", s.dirty*pageSize)
	r.add("fsyncs", min(s.dirty, 3))
	s.dirty = 0
	s.lsn += 120
	s.wal.add("wal_records", 1)
	s.wal.add("wal_bytes", 114)
}

// start: the startup process reads the last checkpoint (counted from 18).
func (s *server) start() {
	if s.cfg.major >= 18 {
		r := s.ioRow("startup", "wal", "normal")
		r.add("reads", 2)
		r.add("read_bytes", 2*pageSize)
	}
	s.lsn += 88 // the running-xacts record after start
	s.wal.add("wal_records", 1)
	s.wal.add("wal_bytes", 82)
}

// stats are the rows the collector reads before or after a run.
func (s *server) stats(phase string) []samples.Stat {
	rows := make([]samples.Stat, 0, len(s.io)+2)
	var b []byte
	b = s.wal.appendJSON(b[:0])
	rows = append(rows, samples.Stat{Phase: phase, View: "pg_stat_wal", Row: 1, JSON: string(b)})
	for i, r := range s.io {
		b = r.appendJSON(b[:0])
		rows = append(rows, samples.Stat{Phase: phase, View: "pg_stat_io", Row: int32(i + 1), JSON: string(b)})
	}
	b = s.vac.appendJSON(b[:0])
	rows = append(rows, samples.Stat{Phase: phase, View: "vacuum_counts", Row: 1, JSON: string(b)})
	return rows
}

func lsnText(pos int64) string { return fmt.Sprintf("%X/%X", pos>>32, pos&0xffffffff) }

// run builds the rows of one run whose figures r decided, in the order
// the collector writes them.
func (g *gen) run(it item, r Run) *samples.Batch {
	ci := it.confi
	c := &configs[ci]
	rb := &runBuilder{g: g, it: it, t: &tests[it.test], srv: g.servers[ci], now: g.clock,
		rng: rand.New(rand.NewPCG(g.opt.Seed^0x9e3779b97f4a7c15, uint64(it.id))),
		b: &samples.Batch{Run: samples.Run{RunID: it.id, Round: int32(it.round), Position: int32(it.pos), Config: c.name, Test: tests[it.test].name,
			Kind: "timed", Client: "pgx", Status: "ok", Cold: "stop-all; drop-caches; start", Devices: "vda"}}}
	rb.prepare(c)
	rb.cold(c)
	rb.facts(c)
	rb.timed(r)
	g.clock = rb.now.Add(rb.ms(50, 200))
	if !g.opt.NoFacts {
		facts.AddTo(rb.b) // as collect does when it commits a run
	}
	return rb.b
}

// runBuilder holds one run's rows as they are made, and its clock.
type runBuilder struct {
	g   *gen
	it  item
	t   *testDef
	srv *server
	rng *rand.Rand
	now time.Time
	b   *samples.Batch
}

// ms is a random duration between lo and hi milliseconds.
func (rb *runBuilder) ms(lo, hi float64) time.Duration {
	return time.Duration((lo + (hi-lo)*rb.rng.Float64()) * float64(time.Millisecond))
}

func (rb *runBuilder) step(phase, name, detail string, d time.Duration, exit *int32, out string) {
	rb.b.Steps = append(rb.b.Steps, samples.Step{RunID: rb.it.id, Seq: int32(len(rb.b.Steps) + 1), Phase: phase, Name: name, Detail: detail,
		StartedAt: rb.now, ElapsedNs: d.Nanoseconds(), ExitCode: exit, Output: out})
	rb.now = rb.now.Add(d)
}

func (rb *runBuilder) stmt(phase, sql, tag string, d time.Duration) int32 {
	seq := int32(len(rb.b.Statements) + 1)
	rb.b.Statements = append(rb.b.Statements, samples.Statement{RunID: rb.it.id, Seq: seq, Phase: phase, SQL: sql, StartedAt: rb.now,
		ElapsedNs: d.Nanoseconds(), CommandTag: tag})
	rb.now = rb.now.Add(d)
	return seq
}

func (rb *runBuilder) sets() {
	for _, s := range rb.t.set {
		rb.stmt("set", fmt.Sprintf("SET %q = '%s'", s[0], s[1]), "SET", rb.ms(0.08, 0.4))
	}
}

var zero = int32(0)

// prepare: the server under test is up; the plan, on a session of its own.
func (rb *runBuilder) prepare(c *configDef) {
	g, ci := rb.g, rb.it.confi
	if !g.up[ci] {
		rb.step("prepare", "start", "podman start "+c.name, rb.ms(600, 900), &zero, c.name+"\n")
		rb.srv.start()
		g.up[ci] = true
	}
	rb.step("prepare", "wait-ready", c.name, rb.ms(20, 60), nil, "")
	rb.sets()
	rb.stmt("explain", "EXPLAIN (FORMAT JSON) "+rb.t.sql, "EXPLAIN", rb.ms(2, 15))
	rb.b.Plans = append(rb.b.Plans, samples.Plan{RunID: rb.it.id, Kind: "explain", Format: "json", Text: g.plans[rb.it.test]})
}

// cold: every server stopped, the page cache dropped, this one started.
func (rb *runBuilder) cold(c *configDef) {
	g := rb.g
	for oi, o := range configs {
		if g.up[oi] {
			rb.step("cold", "stop-all", "podman stop "+o.name, rb.ms(300, 600), &zero, o.name+"\n")
			g.servers[oi].stop()
			g.up[oi] = false
		} else {
			rb.step("cold", "stop-all", o.name+": not running", 0, nil, "")
		}
	}
	rb.step("cold", "drop-caches", "sync; echo 3 > /proc/sys/vm/drop_caches", rb.ms(150, 400), nil, "")
	rb.step("cold", "start", "podman start "+c.name, rb.ms(600, 900), &zero, c.name+"\n")
	rb.srv.start()
	g.up[rb.it.confi] = true
	rb.step("cold", "wait-ready", c.name, rb.ms(20, 60), nil, "")
	// Starting a server after the cache was dropped reads its binaries and
	// catalogs; stopping the others wrote their checkpoints.
	g.gap(rb.rng)
}

// facts: the server's facts, once per configuration and round.
func (rb *runBuilder) facts(c *configDef) {
	g, it, srv := rb.g, rb.it, rb.srv
	if !g.opt.Settings || g.facts[[2]int{it.confi, it.round}] {
		return
	}
	g.facts[[2]int{it.confi, it.round}] = true
	rb.stmt("facts", sqlFacts, "SELECT 1", rb.ms(1, 4))
	rb.stmt("facts", sqlSettings, fmt.Sprintf("SELECT %d", len(srv.settings)), rb.ms(3, 8))
	num := int32(170010)
	checksums := "off"
	if c.major == 18 {
		num, checksums = 180004, "on"
	}
	rb.b.Servers = append(rb.b.Servers, samples.Server{RunID: it.id, Round: int32(it.round), Config: c.name, ReadAt: rb.now, Version: srv.version,
		ServerVersion: fmt.Sprintf("%d.%d", num/10000, num%100), ServerVersionNum: num, DataChecksums: checksums,
		DataDirectory: dataDir(c), Device: "vda", Mount: "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard"})
	for _, s := range srv.settings {
		rb.b.Settings = append(rb.b.Settings, samples.Setting{RunID: it.id, Round: int32(it.round), Config: c.name, Name: s.name,
			Setting: s.setting, Unit: s.unit, Source: s.source, Context: s.context, VarType: s.vartype, BootVal: s.bootVal,
			ResetVal: s.resetVal, PendingRestart: s.pending})
	}
}

// statsAt reads the statistics views, before or after the statement.
func (rb *runBuilder) statsAt(phase string, pid int32) {
	rb.stmt("stats", sqlLSN, "SELECT 1", rb.ms(0.2, 1))
	rb.stmt("stats", sqlWAL, "SELECT 1", rb.ms(0.2, 1))
	rb.stmt("stats", sqlIO, fmt.Sprintf("SELECT %d", len(rb.srv.io)), rb.ms(0.3, 1.5))
	rb.stmt("stats", fmt.Sprintf(sqlAct, pid), "SELECT 0", rb.ms(0.3, 1.5))
	rb.stmt("stats", sqlVac, "SELECT 1", rb.ms(0.3, 1.5))
	rb.b.Stats = append(rb.b.Stats, rb.srv.stats(phase)...)
}

// timed: the timed session, its settings, the statistics before, the
// statement watched, and the statistics after.
func (rb *runBuilder) timed(r Run) {
	g, it, t, srv, b := rb.g, rb.it, rb.t, rb.srv, rb.b
	srv.pid += int32(3 + rb.rng.IntN(5))
	pid := srv.pid
	b.Run.BackendPID = &pid
	rb.sets()
	posBefore := srv.lsn
	lsnBefore := lsnText(posBefore)
	b.Run.WALPosBefore, b.Run.WALLSNBefore = &posBefore, &lsnBefore
	// The buffers are flushed between runs here: insert and write agree.
	b.Run.WALInsertPosBefore, b.Run.WALInsertLSNBefore = &posBefore, &lsnBefore
	rb.statsAt("before", pid)

	start := rb.now.Add(rb.ms(0.2, 0.5))
	rb.now = start
	elapsed := time.Duration(r.ElapsedNs)
	seq := rb.stmt("timed", t.sql, t.tag, elapsed)
	b.Outputs = append(b.Outputs, samples.Output{RunID: it.id, Statement: seq, Seq: 1, Stream: "result", Text: t.result})
	b.Run.StartedAt, b.Run.EndedAt, b.Run.ElapsedNs = start, start.Add(elapsed+310*time.Microsecond), r.ElapsedNs
	b.Diskstats = g.diskstats(rb.rng, it, t, r, start, elapsed)
	g.effects(rb.rng, srv, t, r, start)
	rb.now = b.Run.EndedAt
	rb.stmt("stats", sqlFlush, "SELECT 1", rb.ms(0.1, 0.5))
	posAfter := srv.lsn
	lsnAfter := lsnText(posAfter)
	b.Run.WALPosAfter, b.Run.WALLSNAfter = &posAfter, &lsnAfter
	b.Run.WALInsertPosAfter, b.Run.WALInsertLSNAfter = &posAfter, &lsnAfter
	rb.statsAt("after", pid)
}

// effects counts what the timed statement did in the server's statistics.
func (g *gen) effects(rng *rand.Rand, srv *server, t *testDef, r Run, start time.Time) {
	pages := r.PGReadBytes / pageSize
	context := "normal"
	if t.bulk {
		context = "bulkread"
	}
	leader := pages
	if t.workers > 0 {
		leader = pages / int64(t.workers+1)
		srv.read("background worker", context, pages-leader, t.hits/2)
	}
	srv.read("client backend", context, leader, t.hits+int64(rng.IntN(20)))
	if r.WALBytes > 0 {
		srv.dirty += t.dirtied
		srv.lsn += r.WALBytes
		recs := int64(10000 + rng.IntN(40))
		srv.wal.add("wal_records", recs)
		srv.wal.add("wal_fpi", t.dirtied)
		srv.wal.add("wal_bytes", r.WALBytes-recs/10)
		srv.wal.add("wal_write", 1+r.WALBytes/(1<<20))
		srv.wal.add("wal_sync", 1)
		if srv.cfg.major >= 18 {
			w := srv.ioRow("client backend", "wal", "normal")
			w.add("writes", r.WALBytes/pageSize+1)
			w.add("write_bytes", (r.WALBytes/pageSize+1)*pageSize)
			w.add("fsyncs", 1)
		}
	}
	if r.Autovacuum {
		srv.vac.add("autovacuum_count", 1)
		at := start.Add(time.Duration(r.ElapsedNs / 2))
		f := srv.vac.get("last_autovacuum")
		f.null, f.isStr, f.str = false, true, at.Format("2006-01-02T15:04:05.000000-07:00")
	}
}

// gap is the device's work between two runs: the shutdown checkpoints of
// the servers stopped and the start of the next one.
func (g *gen) gap(rng *rand.Rand) {
	reads := uint64(700 + rng.IntN(400))
	writes := uint64(120 + rng.IntN(80))
	g.vda[0] += reads
	g.vda[1] += reads / 20
	g.vda[2] += reads * 56
	g.vda[3] += reads / 3
	g.vda[4] += writes
	g.vda[5] += writes / 4
	g.vda[6] += writes * 24
	g.vda[7] += writes
	g.vda[9] += 600 + reads/4
	g.vda[10] += reads/3 + writes
	g.vda[15] += 6
	g.vda[16] += 4
}

// diskstats are the run's /proc/diskstats snapshots: before, Samples
// during the statement, after. Between the first and the last vda read
// exactly r.ReadBytes in r.Reads requests.
func (g *gen) diskstats(rng *rand.Rand, it item, t *testDef, r Run, start time.Time, elapsed time.Duration) []samples.Diskstats {
	k := g.opt.Samples + 1 // intervals
	weights := make([]float64, k)
	for i := range weights {
		weights[i] = 0.7 + 0.6*rng.Float64()
	}
	reads := split(r.Reads, weights)
	sectors := split(r.ReadBytes/sector, weights)
	offsets := make([]int64, k+1)
	offsets[0] = -int64(200_000 + rng.IntN(80_000))
	for i := 1; i < k; i++ {
		offsets[i] = int64(i) * elapsed.Nanoseconds() / int64(k)
	}
	offsets[k] = elapsed.Nanoseconds() + int64(250_000+rng.IntN(100_000))
	await := 0.15 + float64(r.ReadBytes)/float64(max(r.Reads, 1))/1024/200 // ms per read: larger requests take longer
	merge := 0.02
	if !t.bulk {
		merge = 0.1
	}
	out := make([]samples.Diskstats, 0, k+1)
	snap := func(i int, phase string, inFlight uint64) {
		v := g.vda
		v[8] = inFlight
		text := appendDiskstats(make([]byte, 0, 640), g.static, g.zram, &v)
		out = append(out, samples.Diskstats{RunID: it.id, Seq: int32(i + 1), Phase: phase, TakenAt: start.Add(time.Duration(offsets[i])),
			OffsetNs: offsets[i], Text: string(text)})
	}
	snap(0, "before", 0)
	for i := range k {
		intervalMs := float64(offsets[i+1]-offsets[i]) / 1e6
		rd := uint64(reads[i])
		g.vda[0] += rd
		g.vda[1] += uint64(math.Round(float64(rd) * merge))
		g.vda[2] += uint64(sectors[i])
		readMs := uint64(math.Round(float64(rd) * await))
		g.vda[3] += readMs
		var wr, wrMs uint64
		if rng.IntN(3) == 0 {
			wr = 1 + uint64(rng.IntN(3)) // the journal, a log line
		}
		if i == k-1 && r.WALBytes > 0 {
			wr += uint64(r.WALBytes/(128<<10)) + 1 // the commit's WAL flush
			g.vda[6] += uint64(r.WALBytes/sector) + 1
			g.vda[15]++
			g.vda[16] += 1
		}
		wrMs = wr / 2
		g.vda[4] += wr
		g.vda[6] += wr * 8
		g.vda[7] += wrMs
		if rd > 0 || wr > 0 {
			g.vda[9] += uint64(math.Round(intervalMs * 0.95))
		}
		g.vda[10] += readMs + wrMs
		if i < k-1 {
			snap(i+1, "sample", 1+uint64(rng.IntN(3)))
		} else {
			snap(i+1, "after", 0)
		}
	}
	return out
}

// split divides total into len(weights) parts in proportion to the
// weights, the parts adding up to total exactly.
func split(total int64, weights []float64) []int64 {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	parts := make([]int64, len(weights))
	var cum float64
	var done int64
	for i, w := range weights {
		cum += w
		end := int64(math.Round(float64(total) * cum / sum))
		if i == len(weights)-1 {
			end = total
		}
		parts[i] = end - done
		done = end
	}
	return parts
}

// appendDiskstats writes /proc/diskstats as Linux 6.18 prints it: the
// static lines of the loop devices, vda's, zram0's.
func appendDiskstats(b, static, zram []byte, vda *[17]uint64) []byte {
	b = append(b, static...)
	b = append(b, " 254       0 vda"...)
	for _, v := range vda {
		b = append(b, ' ')
		b = strconv.AppendUint(b, v, 10)
	}
	b = append(b, '\n')
	return append(b, zram...)
}
