package sysbench

import (
	"fmt"
	"math"
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// interval reads "[ 5s ] thds: ..." and "[ 5s ] queue length: ...".
func (p *parser) interval(s string) string {
	t, rest, ok := strings.Cut(strings.TrimPrefix(s, "[ "), "s ] ")
	sec, ok2 := num.NonNegFloat(t)
	if !ok || !ok2 {
		return "want \"[ Ns ] ...\""
	}
	if q, ok := strings.CutPrefix(rest, "queue length: "); ok {
		return p.queueLength(sec, q)
	}
	if rest == "Checkpoint report:" {
		return "" // the report that follows is refused as a second report
	}
	iv := Interval{TimeS: sec}
	if msg := iv.read(strings.Fields(rest)); msg != "" {
		return msg
	}
	if k := len(p.run.Intervals); k > 0 && sec <= p.run.Intervals[k-1].TimeS {
		return fmt.Sprintf("an interval time (%gs) not after the one before (%gs); another run's output?", sec, p.run.Intervals[k-1].TimeS)
	}
	p.run.Intervals = append(p.run.Intervals, iv)
	return ""
}

// queueLength reads what follows "[ Ns ] queue length: " with --rate,
// "0, concurrency: 1" (database tests) or "0 concurrency: 1", into the
// interval line of the same time just before it.
func (p *parser) queueLength(sec float64, q string) string {
	ql, conc, ok := strings.Cut(q, " concurrency: ")
	l, ok1 := num.Count(strings.TrimSuffix(ql, ","))
	c, ok2 := num.Count(conc)
	if !ok || !ok1 || !ok2 {
		return "want \"queue length: N, concurrency: C\""
	}
	k := len(p.run.Intervals)
	if k == 0 || p.run.Intervals[k-1].TimeS != sec || p.run.Intervals[k-1].QueueLength != nil {
		return "a queue length line without its interval line"
	}
	p.run.Intervals[k-1].QueueLength, p.run.Intervals[k-1].Concurrency = &l, &c
	return ""
}

// read sets iv from the fields after "[ Ns ]": the thread count, the
// database tests' or the others' rates, and the latency.
func (iv *Interval) read(f []string) string {
	if len(f) < 2 || f[0] != "thds:" {
		return "an interval line without \"thds: N\""
	}
	th, ok := num.Count(f[1])
	if !ok || th > math.MaxInt32 {
		return "an interval line whose thread count is not a count"
	}
	iv.Threads = int(th)
	// The interval's figures live in one array: one allocation a line.
	vals := new([7]float64)
	var i int // where "lat" is followed by "(ms,P%):"
	var good bool
	switch {
	case len(f) == 15 && f[2] == "tps:" && f[4] == "qps:" && f[6] == "(r/w/o:" && f[8] == "lat" && f[11] == "err/s:" && f[13] == "reconn/s:":
		good, i = iv.readSQL(f, vals), 9
	case len(f) == 7 && f[2] == "eps:" && f[4] == "lat":
		vals[0], good = num.NonNegFloat(f[3])
		iv.EPS, i = &vals[0], 5
	}
	if !good {
		return "not a sysbench interval line"
	}
	return iv.readLatency(f[i], f[i+1]) // both layouts have a field there
}

// readSQL reads the database tests' rates, "tps: T qps: Q (r/w/o: R/W/O)
// lat (ms,P%): L err/s: E reconn/s: C" split into fields, into vals.
func (iv *Interval) readSQL(f []string, vals *[7]float64) bool {
	var ok [10]bool
	vals[0], ok[0] = num.NonNegFloat(f[3])
	vals[1], ok[1] = num.NonNegFloat(f[5])
	vals[2], ok[2] = num.NonNegFloat(f[12])
	vals[3], ok[3] = num.NonNegFloat(f[14])
	iv.TPS, iv.QPS, iv.ErrorsPerS, iv.ReconnectsPerS = &vals[0], &vals[1], &vals[2], &vals[3]
	// "1728.30/493.80/246.90)"
	var r, w, o, rest string
	r, rest, ok[4] = strings.Cut(f[7], "/")
	w, o, ok[5] = strings.Cut(rest, "/")
	o, ok[6] = strings.CutSuffix(o, ")")
	vals[4], ok[7] = num.NonNegFloat(r)
	vals[5], ok[8] = num.NonNegFloat(w)
	vals[6], ok[9] = num.NonNegFloat(o)
	iv.ReadsPerS, iv.WritesPerS, iv.OtherPerS = &vals[4], &vals[5], &vals[6]
	return ok == [10]bool{true, true, true, true, true, true, true, true, true, true}
}

// readLatency reads "(ms,95%):" and the latency that follows it.
func (iv *Interval) readLatency(pct, latency string) string {
	pct, ok := strings.CutPrefix(pct, "(ms,")
	pct, ok2 := strings.CutSuffix(pct, "%):")
	pc, ok3 := num.Count(pct)
	lat, ok4 := num.NonNegFloat(latency)
	if !ok || !ok2 || !ok3 || !ok4 || pc > 100 {
		return "an interval line without \"lat (ms,P%): L\""
	}
	iv.LatencyPercentile, iv.LatencyMs = int(pc), lat
	return ""
}
