package vacuum

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The generator's log lines: processes, the clock, a server's life and
// the sessions and workers it runs.

type peerProc struct {
	pid     int
	line    int // %l
	session bool
	user    string
	db      string
	app     string
	client  string
}

// peerEvent is a line that will be written at a later time: a session's
// disconnection, the end of a checkpoint.
type peerEvent struct {
	at    time.Time
	proc  *peerProc
	stage int
	msg   string
}

type peerGen struct {
	cfg     peerConfig
	w       io.Writer
	n       int64 // bytes written
	err     error
	rng     *rand.Rand
	now     time.Time
	down    time.Time // when the previous server shut down
	pid     int
	xid     int64
	lsn     uint64
	buf     []byte
	pending []peerEvent
	truth   map[string]peerTotals
	tables  map[string][]peerTable // by database
	dbs     []string
}

// peerTable is a user table of the log.
type peerTable struct {
	db, schema, name string
	toastOID         int
}

func newPeerGen(w io.Writer, cfg peerConfig) *peerGen {
	g := &peerGen{
		cfg:    cfg,
		w:      w,
		rng:    rand.New(rand.NewPCG(cfg.Seed, 0x5eed)),
		now:    time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC),
		pid:    1200,
		xid:    750,
		lsn:    0x3000000,
		truth:  map[string]peerTotals{},
		tables: map[string][]peerTable{},
		dbs:    []string{"postgres", "app", "reporting"},
	}
	g.down = g.now.Add(-3 * time.Second)
	schemas := []string{"public", "sales", "audit"}
	for i := 1; i <= cfg.Tables; i++ {
		db := g.dbs[i%len(g.dbs)]
		g.tables[db] = append(g.tables[db], peerTable{db, schemas[(i/len(g.dbs))%len(schemas)], fmt.Sprintf("t%04d", i), 16384 + 3*i})
	}
	return g
}

// Random numbers: between lo and hi (included), and spread over the orders
// of magnitude between lo and hi.
func (g *peerGen) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.rng.Int64N(hi-lo+1)
}

func (g *peerGen) spread(lo, hi int64) int64 {
	if lo < 1 {
		lo = 1
	}
	if hi <= lo {
		return lo
	}
	return int64(math.Round(math.Exp(math.Log(float64(lo)) + g.rng.Float64()*(math.Log(float64(hi))-math.Log(float64(lo))))))
}

func (g *peerGen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *peerGen) newProc() *peerProc {
	g.pid += int(g.between(1, 40))
	if g.pid >= 4194304 {
		g.pid = 300
	}
	return &peerProc{pid: g.pid}
}

// advance moves the clock on by up to max and writes the pending lines
// that are due.
func (g *peerGen) advance(min, max time.Duration) {
	g.now = g.now.Add(min + time.Duration(g.rng.Int64N(int64(max-min)+1)))
	for len(g.pending) > 0 && !g.pending[0].at.After(g.now) {
		e := g.pending[0]
		g.pending = g.pending[1:]
		g.line(e.at, e.proc, e.stage, "LOG", e.msg, nil)
	}
}

func (g *peerGen) later(e peerEvent) {
	i, _ := slices.BinarySearchFunc(g.pending, e.at, func(e peerEvent, at time.Time) int { return e.at.Compare(at) })
	g.pending = slices.Insert(g.pending, i, e)
}

// line writes a line of proc with the prefix of cfg.Prefix, and its
// continuation lines. stage is how far a session is: 0 not authenticated,
// 1 authorized, 2 with its application name known.
func (g *peerGen) line(at time.Time, p *peerProc, stage int, sev, msg string, body []string) {
	if g.err != nil {
		return
	}
	p.line++
	b := g.buf[:0]
	user, db, app, client := "", "", "", ""
	if p.session {
		user, db, app, client = "[unknown]", "[unknown]", "[unknown]", p.client
		if stage >= 1 {
			user, db = p.user, p.db
		}
		if stage >= 2 {
			app = p.app
		}
	}
	if g.cfg.Prefix == peerPrefixDebian {
		b = at.AppendFormat(b, "2006-01-02 15:04:05.000 MST")
		b = append(b, " ["...)
		b = strconv.AppendInt(b, int64(p.pid), 10)
		b = append(b, "] "...)
		if p.session {
			b = append(b, user...)
			b = append(b, '@')
			b = append(b, db...)
			b = append(b, ' ')
		}
	} else {
		b = at.AppendFormat(b, "2006-01-02 15:04:05 MST")
		b = append(b, " ["...)
		b = strconv.AppendInt(b, int64(p.pid), 10)
		b = append(b, "]: ["...)
		b = strconv.AppendInt(b, int64(p.line), 10)
		b = append(b, "-1] user="...)
		b = append(b, user...)
		b = append(b, ",db="...)
		b = append(b, db...)
		b = append(b, ",app="...)
		b = append(b, app...)
		b = append(b, ",client="...)
		b = append(b, client...)
		b = append(b, ' ')
	}
	b = append(b, sev...)
	b = append(b, ":  "...)
	b = append(b, msg...)
	b = append(b, '\n')
	for _, l := range body {
		b = append(b, '\t')
		b = append(b, l...)
		b = append(b, '\n')
	}
	g.buf = b
	n, err := g.w.Write(b)
	g.n += int64(n)
	g.err = err
}

var (
	peerPortRe  = regexp.MustCompile(`port \d+|\.s\.PGSQL\.\d+`)
	peerDownRe  = regexp.MustCompile(`shut down at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`)
	peerPIDRe   = regexp.MustCompile(`\(PID \d+\)`)
	peerWroteRe = regexp.MustCompile(`wrote \d+ buffers \(\d+\.\d%\)`)
	peerLSNRe   = regexp.MustCompile(`lsn=[0-9A-F]+/[0-9A-F]+, redo lsn=[0-9A-F]+/[0-9A-F]+`)
)

// peerCheckpoints are the "checkpoint complete" messages of a checkpoint
// started by checkpoint_timeout, as the servers of the fixtures wrote them
// (log_checkpoints = on); the fixtures have only those of the shutdown
// checkpoint.
var peerCheckpoints = map[int]string{
	13: "checkpoint complete: wrote 908 buffers (5.5%); 0 WAL file(s) added, 0 removed, 1 recycled; write=14.406 s, sync=0.037 s, total=15.207 s; sync files=20, longest=0.006 s, average=0.002 s; distance=19659 kB, estimate=19659 kB",
	14: "checkpoint complete: wrote 915 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=16.003 s, sync=0.137 s, total=16.260 s; sync files=23, longest=0.018 s, average=0.006 s; distance=19683 kB, estimate=19683 kB",
	15: "checkpoint complete: wrote 910 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=18.728 s, sync=0.081 s, total=19.304 s; sync files=22, longest=0.009 s, average=0.004 s; distance=19676 kB, estimate=19676 kB",
	16: "checkpoint complete: wrote 910 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=18.983 s, sync=0.014 s, total=19.088 s; sync files=22, longest=0.003 s, average=0.001 s; distance=19675 kB, estimate=19675 kB; lsn=0/2814A98, redo lsn=0/2814A60",
	17: "checkpoint complete: wrote 910 buffers (5.6%); 0 WAL file(s) added, 0 removed, 1 recycled; write=16.506 s, sync=0.072 s, total=16.781 s; sync files=22, longest=0.009 s, average=0.004 s; distance=19674 kB, estimate=19674 kB; lsn=0/280F320, redo lsn=0/280F290",
	18: "checkpoint complete: wrote 907 buffers (5.5%), wrote 3 SLRU buffers; 0 WAL file(s) added, 0 removed, 1 recycled; write=15.938 s, sync=0.227 s, total=16.346 s; sync files=22, longest=0.108 s, average=0.011 s; distance=19680 kB, estimate=19680 kB; lsn=0/2A835C8, redo lsn=0/2A83538",
}

// server writes the log of one server, from its startup to its shutdown,
// until the log is about until bytes long.
func (g *peerGen) server(s *peerServer, until int64) {
	procs := map[string]*peerProc{}
	proc := func(pid string) *peerProc {
		p := procs[pid]
		if p == nil {
			p = g.newProc()
			procs[pid] = p
		}
		return p
	}
	var checkpointer *peerProc
	for _, l := range s.shutdown {
		if l.msg == "shutting down" {
			checkpointer = proc(l.pid)
		}
	}
	if checkpointer == nil {
		checkpointer = g.newProc()
	}
	for _, l := range s.startup {
		msg := peerPortRe.ReplaceAllStringFunc(l.msg, func(m string) string {
			if strings.HasPrefix(m, "port") {
				return "port 5432"
			}
			return ".s.PGSQL.5432"
		})
		msg = peerDownRe.ReplaceAllLiteralString(msg, "shut down at "+g.down.Format("2006-01-02 15:04:05 MST"))
		g.advance(time.Millisecond, 200*time.Millisecond)
		g.line(g.now, proc(l.pid), 2, l.sev, msg, nil)
	}
	nextCheckpoint := g.now.Add(5 * time.Minute)
	for g.n < until && g.err == nil {
		switch x := g.rng.Float64(); {
		case x < 0.75:
			g.worker(s)
		case x < 0.97:
			g.session(s.version)
		default:
			g.catalog(s)
		}
		if g.now.After(nextCheckpoint) {
			g.line(g.now, checkpointer, 2, "LOG", "checkpoint starting: time", nil)
			g.later(peerEvent{at: g.now.Add(time.Duration(g.between(20, 270)) * time.Second), proc: checkpointer, stage: 2, msg: g.checkpoint(s.version)})
			nextCheckpoint = nextCheckpoint.Add(5 * time.Minute)
		}
	}
	// The sessions end and the checkpoint completes before the shutdown.
	if len(g.pending) > 0 {
		g.now = g.pending[len(g.pending)-1].at
		g.advance(0, 0)
	}
	for _, l := range s.shutdown {
		msg := peerPIDRe.ReplaceAllStringFunc(l.msg, func(m string) string {
			return fmt.Sprintf("(PID %d)", proc(m[len("(PID "):len(m)-1]).pid)
		})
		g.advance(time.Millisecond, 100*time.Millisecond)
		g.line(g.now, proc(l.pid), 2, l.sev, msg, nil)
	}
	g.down = g.now
	g.advance(3*time.Second, 10*time.Second)
}

// checkpoint returns a "checkpoint complete" message of major with other
// numbers of buffers and LSNs.
func (g *peerGen) checkpoint(major int) string {
	msg := peerCheckpoints[major]
	buffers := g.spread(10, 16384)
	msg = peerWroteRe.ReplaceAllLiteralString(msg, fmt.Sprintf("wrote %d buffers (%.1f%%)", buffers, 100*float64(buffers)/16384))
	redo := g.lsn
	g.lsn += uint64(g.spread(1<<16, 1<<30))
	return peerLSNRe.ReplaceAllLiteralString(msg, fmt.Sprintf("lsn=%X/%X, redo lsn=%X/%X", g.lsn>>32, uint32(g.lsn), redo>>32, uint32(redo)))
}

var (
	peerUsers = []string{"app", "report", "postgres"}
	peerApps  = []string{"psql", "pgbench", "PostgreSQL JDBC Driver"}
)

// session writes the lines of a client connection: received and authorized
// now, the disconnection later.
func (g *peerGen) session(major int) {
	p := g.newProc()
	p.session = true
	p.user = peerUsers[g.rng.IntN(len(peerUsers))]
	p.db = g.dbs[g.rng.IntN(len(g.dbs))]
	p.app = peerApps[g.rng.IntN(len(peerApps))]
	host, port := "[local]", ""
	if g.chance(0.7) {
		host, port = fmt.Sprintf("10.0.%d.%d", g.between(0, 3), g.between(2, 254)), strconv.FormatInt(g.between(32768, 60999), 10)
	}
	p.client = host
	g.advance(time.Millisecond, 5*time.Second)
	start := g.now
	if port != "" {
		g.line(g.now, p, 0, "LOG", "connection received: host="+host+" port="+port, nil)
	} else {
		g.line(g.now, p, 0, "LOG", "connection received: host="+host, nil)
	}
	g.advance(time.Millisecond, 40*time.Millisecond)
	if major >= 17 {
		hba := 117
		if port != "" {
			hba = 119
		}
		g.line(g.now, p, 1, "LOG", fmt.Sprintf(`connection authenticated: user="%s" method=trust (/etc/postgresql/%d/main/pg_hba.conf:%d)`, p.user, major, hba), nil)
	}
	g.line(g.now, p, 1, "LOG", fmt.Sprintf("connection authorized: user=%s database=%s application_name=%s", p.user, p.db, p.app), nil)
	d := time.Duration(g.spread(20, 600_000)) * time.Millisecond
	at := start.Add(d)
	ms := d.Milliseconds()
	msg := fmt.Sprintf("disconnection: session time: %d:%02d:%02d.%03d user=%s database=%s host=%s", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000, p.user, p.db, host)
	if port != "" {
		msg += " port=" + port
	}
	g.later(peerEvent{at: at, proc: p, stage: 2, msg: msg})
}

// catalog writes the fixture's entries of catalog tables, as a worker of
// their database.
func (g *peerGen) catalog(s *peerServer) {
	if len(s.catalog) == 0 {
		return
	}
	p := g.newProc()
	g.advance(time.Second, 3*time.Second)
	for _, e := range s.catalog {
		name, _ := peerTableName(e.msg)
		if strings.Contains(e.msg, "vacuum ") {
			g.vacuum(s, p, e, name, "", 0)
		} else {
			g.analyze(p, e, name)
		}
	}
}

// worker writes the entries of an autovacuum worker: of one to four tables
// of a database, each vacuumed, analyzed or both, and maybe its TOAST table
// vacuumed.
func (g *peerGen) worker(s *peerServer) {
	db := g.dbs[g.rng.IntN(len(g.dbs))]
	tables := g.tables[db]
	if len(tables) == 0 {
		return
	}
	p := g.newProc()
	g.advance(500*time.Millisecond, 20*time.Second)
	for range g.between(1, 4) {
		tb := tables[g.rng.IntN(len(tables))]
		name := tb.db + "." + tb.schema + "." + tb.name
		vacuum, analyze := true, g.chance(0.4)
		if analyze && g.chance(0.3) {
			vacuum = false
		}
		if vacuum {
			g.vacuum(s, p, s.main[g.rng.IntN(len(s.main))], name, tb.name, 0)
		}
		if analyze {
			g.analyze(p, s.analyze[g.rng.IntN(len(s.analyze))], name)
		}
		if g.chance(0.3) {
			g.vacuum(s, p, s.toast[g.rng.IntN(len(s.toast))], fmt.Sprintf("%s.pg_toast.pg_toast_%d", tb.db, tb.toastOID), "", tb.toastOID)
		}
	}
}
