package vacuum

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The generator of TestAutovacuumMatchesPgBadger's logs: what it writes,
// and the fixtures' entries it writes them from.

type peerConfig struct {
	Versions []int  // the servers that wrote it, one after the other
	Prefix   string // peerPrefixDebian or peerPrefixBadger
	Bytes    int64  // about how long it is
	Tables   int    // how many user tables it is about
	Seed     uint64
}

// peerWriteLog writes the log cfg describes to path and returns the sums of
// its autovacuum entries per "db.schema.table".
func peerWriteLog(t testing.TB, path string, cfg peerConfig) map[string]peerTotals {
	t.Helper()
	servers := peerServers(t, cfg)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	truth, err := peerWrite(w, servers, cfg)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return truth
}

// peerServers reads the fixtures of the servers cfg names.
func peerServers(t testing.TB, cfg peerConfig) []*peerServer {
	t.Helper()
	var servers []*peerServer
	for _, v := range cfg.Versions {
		servers = append(servers, peerReadFixture(t, v))
	}
	return servers
}

// peerWrite writes the log cfg describes, as servers wrote it, to w and
// returns the sums of its autovacuum entries per "db.schema.table". Each
// call to w.Write is whole lines: a message and its continuation lines.
func peerWrite(w io.Writer, servers []*peerServer, cfg peerConfig) (map[string]peerTotals, error) {
	g := newPeerGen(w, cfg)
	// Each server writes about its share of the log, give or take a fifth,
	// so that the servers do not change at simple fractions of the file
	// (where pgbadger -j N splits it).
	per := cfg.Bytes / int64(len(servers))
	for i, s := range servers {
		until := cfg.Bytes
		if i < len(servers)-1 {
			until = per*int64(i+1) + per*g.between(-20, 20)/100
		}
		g.server(s, until)
		if g.err != nil {
			return nil, g.err
		}
	}
	return g.truth, nil
}

// peerEntry is an autovacuum or autoanalyze entry of a fixture.
type peerEntry struct {
	msg  string   // after "LOG:  "
	body []string // the continuation lines, without their tab
}

// peerLine is another line of a fixture.
type peerLine struct {
	pid, sev, msg string
}

// peerServer is what the generator takes from a fixture.
type peerServer struct {
	version           int
	startup, shutdown []peerLine
	// The entries of table t (main), of its TOAST table (toast), its
	// analyzes (analyze) and the catalog tables' (catalog).
	main, toast, analyze, catalog []peerEntry
}

var peerSeverities = []string{"LOG", "FATAL", "ERROR", "WARNING"}

// peerReadFixture reads testdata/autovacuum/pgNN-autovacuum.log.
func peerReadFixture(t testing.TB, major int) *peerServer {
	t.Helper()
	name := filepath.Join("testdata", "autovacuum", fmt.Sprintf("pg%d-autovacuum.log", major))
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := &peerServer{version: major}
	var cur *peerEntry
	var list *[]peerEntry
	seen := false
	for n, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if rest, ok := strings.CutPrefix(line, "\t"); ok {
			if cur == nil {
				t.Fatalf("%s:%d: a continuation line outside an autovacuum entry", name, n+1)
			}
			cur.body = append(cur.body, rest)
			continue
		}
		if cur != nil {
			*list = append(*list, *cur)
			cur = nil
		}
		sev, msg, pid := "", "", ""
		for _, l := range peerSeverities {
			if i := strings.Index(line, " "+l+":  "); i >= 0 {
				sev, msg = l, line[i+len(l)+4:]
				if j := strings.IndexByte(line, '['); j >= 0 && j < i {
					if k := strings.IndexByte(line[j:], ']'); k > 0 {
						pid = line[j+1 : j+k]
					}
				}
				break
			}
		}
		if sev == "" || pid == "" {
			t.Fatalf("%s:%d: no severity or process ID in %q", name, n+1, line)
		}
		if !strings.HasPrefix(msg, "automatic ") {
			if seen {
				s.shutdown = append(s.shutdown, peerLine{pid, sev, msg})
			} else {
				s.startup = append(s.startup, peerLine{pid, sev, msg})
			}
			continue
		}
		seen = true
		table, _ := peerTableName(msg)
		switch {
		case strings.HasPrefix(msg, "automatic analyze") && strings.HasSuffix(table, ".public.t"):
			list = &s.analyze
		case strings.Contains(msg, "vacuum ") && strings.HasSuffix(table, ".public.t"):
			list = &s.main
		case strings.Contains(msg, "vacuum ") && strings.Contains(table, ".pg_toast.pg_toast_"):
			list = &s.toast
		default:
			list = &s.catalog
		}
		cur = &peerEntry{msg: msg}
	}
	if cur != nil {
		*list = append(*list, *cur)
	}
	if len(s.main) == 0 || len(s.toast) == 0 || len(s.analyze) == 0 || len(s.startup) == 0 || len(s.shutdown) == 0 {
		t.Fatalf("%s: expected startup, autovacuum entries of t and its TOAST table, analyzes of t and shutdown", name)
	}
	return s
}

// peerTableName returns the quoted table name of an entry's first line and
// what follows it.
func peerTableName(msg string) (name, rest string) {
	i := strings.IndexByte(msg, '"')
	if i < 0 {
		return "", ""
	}
	j := strings.IndexByte(msg[i+1:], '"')
	if j < 0 {
		return "", ""
	}
	return msg[i+1 : i+1+j], msg[i+2+j:]
}
