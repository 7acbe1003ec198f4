package vacuum

import (
	"bufio"
	"fmt"
	"io"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/parse"
)

// TestAutovacuumSeqMemory streams a server log of 150 MB through
// AutovacuumSeq, made as it is read (the generator of
// autovacuum_peer_test.go: the fixtures' real entries over and over, with
// other tables, numbers, times and process IDs, among connections and
// checkpoints), with a VACUUM VERBOSE at INFO (13's messages) of a new
// backend every 200 writes, half of them cut short after "vacuuming"; each
// holds the records after it back until more than maxHeld wait, and they
// make more backends than maxBackends. The live heap, as each garbage
// collection measured it, must stay under 32 MiB: Autovacuum holds about
// 1.8 bytes a byte of log (270 MiB here). The records must add up to what
// the generator wrote.
func TestAutovacuumSeqMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 150 MB")
	}
	const limit = 32 << 20
	cfg := peerConfig{Versions: peerVersions, Prefix: peerPrefixBadger, Bytes: 150e6, Tables: 5000, Seed: 3}
	servers := peerServers(t, cfg)
	block := verboseBlock(t)
	pr, pw := io.Pipe()
	defer pr.Close() // ends the generator when the test stops early
	type result struct {
		truth map[string]peerTotals
		inj   *injector
	}
	done := make(chan result, 1)
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		inj := &injector{w: bw, block: block, every: 200}
		truth, err := peerWrite(inj, servers, cfg)
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
		done <- result{truth, inj}
	}()

	start := time.Now()
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	var peak uint64
	ours := map[string]peerTotals{}
	manual, n := 0, 0
	var warns []parse.Warning
	for r, err := range AutovacuumSeq(pr, "gen.log", func(w parse.Warning) { warns = append(warns, w) }) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n%256 == 0 {
			metrics.Read(live)
			peak = max(peak, live[0].Value.Uint64())
		}
		if !r.Automatic {
			manual++
			continue
		}
		if r.Operation == "vacuum" {
			k := r.Database + "." + r.Schema + "." + r.Table
			s := ours[k]
			s.Vacuums++
			s.TuplesRemoved += r.TuplesRemoved.V
			s.PagesRemoved += r.PagesRemoved.V
			ours[k] = s
		}
	}
	res := <-done
	metrics.Read(live)
	t.Logf("%d records in %v; peak live heap %.1f MiB over %d garbage collections; %d VACUUM VERBOSE injected, %d cut short",
		n, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20), live[1].Value.Uint64(), res.inj.blocks, res.inj.cut)
	if peak == 0 || peak > limit {
		t.Errorf("peak live heap %d MiB; want under %d MiB", peak>>20, limit>>20)
	}
	peerCheck(t, res.truth, ours, nil)
	// Each whole VACUUM VERBOSE is two records (t and its TOAST table), a
	// cut one is one record without its summary, and a warning.
	if want := 2*(res.inj.blocks-res.inj.cut) + res.inj.cut; manual != want || len(warns) != res.inj.cut || res.inj.blocks <= maxBackends {
		t.Errorf("%d VACUUM VERBOSE records and %d warnings (the first %v); want %d and %d, from more than %d backends",
			manual, len(warns), warns[:min(len(warns), 1)], want, res.inj.cut, maxBackends)
	}
	for _, w := range warns {
		if !isNoSummary(w) {
			t.Errorf("warning: %s", w)
			break
		}
	}
}

// verboseBlock is 13's VACUUM VERBOSE of t and its TOAST table at INFO
// (testdata/logformats), without the prefixes before "INFO:  " or
// "DETAIL:  ".
func verboseBlock(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, l := range fixtureLines(t, "logformats/pg13-logformats.log") {
		if strings.HasPrefix(l, "\t") && len(out) > 0 {
			out = append(out, l)
			continue
		}
		for _, label := range []string{"INFO:  ", "DETAIL:  ", "CONTEXT:  "} {
			if i := strings.Index(l, " "+label); i >= 0 && (label == "INFO:  " || len(out) > 0) {
				out = append(out, l[i+1:])
				break
			}
		}
		if len(out) > 0 && strings.Contains(l, " LOG:  ") {
			break
		}
	}
	if len(out) != 15 || !strings.HasPrefix(out[0], `INFO:  vacuuming "public.t"`) {
		t.Fatalf("the fixture has changed: %q", out)
	}
	return out
}

// injector passes on the generator's writes (each a message with its
// continuation lines) and every so many writes adds a VACUUM VERBOSE at
// INFO of a new backend; every other one stops after "vacuuming".
type injector struct {
	w      io.Writer
	block  []string
	every  int
	writes int
	blocks int
	cut    int
	buf    []byte
}

func (j *injector) Write(p []byte) (int, error) {
	if j.writes++; j.writes%j.every == 0 {
		j.blocks++
		lines := j.block
		if j.blocks%2 == 0 {
			lines, j.cut = lines[:1], j.cut+1
		}
		j.buf = j.buf[:0]
		prefix := fmt.Sprintf("2026-03-02 08:00:00 UTC [%d]: [1-1] user=postgres,db=postgres,app=psql,client=[local] ", 5_000_000+j.blocks)
		for _, l := range lines {
			if !strings.HasPrefix(l, "\t") {
				j.buf = append(j.buf, prefix...)
			}
			j.buf = append(j.buf, l...)
		}
		if _, err := j.w.Write(j.buf); err != nil {
			return 0, err
		}
	}
	return j.w.Write(p)
}

// TestParseSeqMemory streams 100 MB of psql's output through ParseSeq
// (every psql output of testdata/verbose, over and over, read as it is
// made): the live heap must stay under 32 MiB, where Parse holds every
// record (about 1.9 bytes a byte of output), and each copy must give the
// records of one.
func TestParseSeqMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 100 MB")
	}
	seqMemory(t, "*.psql.txt", 100e6, Parse, ParseSeq)
}
