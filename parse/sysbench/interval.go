package sysbench

import (
	"bytes"
	"fmt"
	"math"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// intervalPrefix starts a --report-interval line.
var intervalPrefix = []byte("[ ")

// interval reads line n, "[ 5s ] thds: ..." or "[ 5s ] queue length:
// ...", from its bytes: an hour's run prints 3600 of them, read without a
// string or a strings.Fields of their own. An interval is held until the
// next line, which may be its queue length.
func (p *parser) interval(n int, s []byte) string {
	t, rest, ok := bytes.Cut(s[len(intervalPrefix):], []byte("s ] "))
	sec, ok2 := num.NonNegFloat(t)
	if !ok || !ok2 {
		return "want \"[ Ns ] ...\""
	}
	if q, ok := bytes.CutPrefix(rest, []byte("queue length: ")); ok {
		return p.queueLength(sec, q)
	}
	if string(rest) == "Checkpoint report:" {
		return "" // the report that follows is refused as a second report
	}
	// Read in place, in the record it is yielded from: an Interval holds
	// no pointer, and its copy cost more than a field's read.
	slot := p.nextInterval()
	rec := &p.ivs[slot]
	if rec.Kind != KindInterval {
		rec.Kind = KindInterval
	}
	rec.Line, rec.Interval = n, Interval{TimeS: sec}
	var f [16][]byte
	k := parse.Fields(rest, f[:])
	if msg := rec.Interval.read(f[:min(k, len(f))], k); msg != "" {
		return msg
	}
	if p.intervals && sec <= p.lastTime {
		return fmt.Sprintf("an interval time (%gs) not after the one before (%gs); another run's output?", sec, p.lastTime)
	}
	if !p.intervals {
		p.firstLen = len(s) + 1
	}
	p.lastTime, p.intervals = sec, true
	p.hold(slot)
	return ""
}

// queueLength reads what follows "[ Ns ] queue length: " with --rate,
// "0, concurrency: 1" (database tests) or "0 concurrency: 1", into the
// interval line of the same time just before it.
func (p *parser) queueLength(sec float64, q []byte) string {
	ql, conc, ok := bytes.Cut(q, []byte(" concurrency: "))
	l, ok1 := num.Count(bytes.TrimSuffix(ql, []byte(",")))
	c, ok2 := num.Count(conc)
	if !ok || !ok1 || !ok2 {
		return "want \"queue length: N, concurrency: C\""
	}
	last := &p.ivs[p.cur].Interval
	if !p.held || last.TimeS != sec || last.QueueLength.Valid {
		return "a queue length line without its interval line"
	}
	last.QueueLength, last.Concurrency = parse.Some(l), parse.Some(c)
	p.release()
	return ""
}

// read sets iv from the fields after "[ Ns ]" (n of them, f the first
// ones): the thread count, the database tests' or the others' rates, and
// the latency.
func (iv *Interval) read(f [][]byte, n int) string {
	if n < 2 || string(f[0]) != "thds:" {
		return "an interval line without \"thds: N\""
	}
	th, ok := num.Count(f[1])
	if !ok || th > math.MaxInt32 {
		return "an interval line whose thread count is not a count"
	}
	iv.Threads = int(th)
	var i int // where "lat" is followed by "(ms,P%):"
	var good bool
	switch {
	case n == 15 && string(f[2]) == "tps:" && string(f[4]) == "qps:" && string(f[6]) == "(r/w/o:" && string(f[8]) == "lat" && string(f[11]) == "err/s:" && string(f[13]) == "reconn/s:":
		good, i = iv.readSQL(f), 9
	case n == 7 && string(f[2]) == "eps:" && string(f[4]) == "lat":
		eps, ok := num.NonNegFloat(f[3])
		iv.EPS, good, i = parse.Some(eps), ok, 5
	}
	if !good {
		return "not a sysbench interval line"
	}
	return iv.readLatency(f[i], f[i+1]) // both layouts have a field there
}

// readSQL reads the database tests' rates, "tps: T qps: Q (r/w/o: R/W/O)
// lat (ms,P%): L err/s: E reconn/s: C" split into fields.
func (iv *Interval) readSQL(f [][]byte) bool {
	var ok [10]bool
	var vals [7]float64
	vals[0], ok[0] = num.NonNegFloat(f[3])
	vals[1], ok[1] = num.NonNegFloat(f[5])
	vals[2], ok[2] = num.NonNegFloat(f[12])
	vals[3], ok[3] = num.NonNegFloat(f[14])
	iv.TPS, iv.QPS, iv.ErrorsPerS, iv.ReconnectsPerS = parse.Some(vals[0]), parse.Some(vals[1]), parse.Some(vals[2]), parse.Some(vals[3])
	// "1728.30/493.80/246.90)"
	var r, w, o, rest []byte
	r, rest, ok[4] = bytes.Cut(f[7], []byte("/"))
	w, o, ok[5] = bytes.Cut(rest, []byte("/"))
	o, ok[6] = bytes.CutSuffix(o, []byte(")"))
	vals[4], ok[7] = num.NonNegFloat(r)
	vals[5], ok[8] = num.NonNegFloat(w)
	vals[6], ok[9] = num.NonNegFloat(o)
	iv.ReadsPerS, iv.WritesPerS, iv.OtherPerS = parse.Some(vals[4]), parse.Some(vals[5]), parse.Some(vals[6])
	return ok == [10]bool{true, true, true, true, true, true, true, true, true, true}
}

// readLatency reads "(ms,95%):" and the latency that follows it.
func (iv *Interval) readLatency(pct, latency []byte) string {
	pct, ok := bytes.CutPrefix(pct, []byte("(ms,"))
	pct, ok2 := bytes.CutSuffix(pct, []byte("%):"))
	pc, ok3 := num.Count(pct)
	lat, ok4 := num.NonNegFloat(latency)
	if !ok || !ok2 || !ok3 || !ok4 || pc > 100 {
		return "an interval line without \"lat (ms,P%): L\""
	}
	iv.LatencyPercentile, iv.LatencyMs = int(pc), lat
	return ""
}
