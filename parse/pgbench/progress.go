package pgbench

import (
	"bytes"
	"fmt"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// progressPrefix starts a -P line.
var progressPrefix = []byte("progress: ")

// progress reads line n, "progress: 5.0 s, 1234.5 tps, lat 0.810 ms
// stddev 0.123, 0 failed[, lag 0.1 ms[, 3 skipped]][, 0 retried, 0
// retries]", from its bytes into the record: an hour's run prints 3600 of
// them, and they are read without a string or an allocation of their
// own.
func (p *parser) progress(n int, s []byte) string {
	rest := s[len(progressPrefix):]
	var parts [3][]byte
	more := true
	for k := range parts {
		if !more {
			return "a progress line without its time, tps and latency"
		}
		parts[k], rest, more = cutComma(rest)
	}
	p.setRecord(KindProgress, n)
	pr := &p.rec.Progress
	t, ok1 := bytes.CutSuffix(parts[0], []byte(" s"))
	tps, ok2 := bytes.CutSuffix(parts[1], []byte(" tps"))
	var ok3, ok4 bool
	pr.TimeS, ok3 = num.NonNegFloat(t)
	pr.TPS, ok4 = num.NonNegFloat(tps)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return "a progress line without \"T s, N tps\""
	}
	var lat [5][]byte
	if n := parse.Fields(parts[2], lat[:]); n != 5 || string(lat[0]) != "lat" || string(lat[2]) != "ms" || string(lat[3]) != "stddev" {
		return "a progress line without \"lat L ms stddev S\""
	}
	if avg, ok := num.NonNegFloat(lat[1]); ok {
		pr.LatencyAvgMs = parse.Some(avg)
	} else if !naN(string(lat[1])) || pr.TPS != 0 {
		return "a progress line whose latency is not a number"
	}
	if sd, ok := num.NonNegFloat(lat[4]); ok {
		pr.LatencyStddevMs = parse.Some(sd)
	} else if !naN(string(lat[4])) {
		return "a progress line whose stddev is not a number"
	}
	for more {
		var part []byte
		part, rest, more = cutComma(rest)
		if msg := p.progressPart(pr, part); msg != "" {
			return msg
		}
	}
	if p.progressed && pr.TimeS <= p.lastTime {
		return fmt.Sprintf("a progress time (%g s) not after the one before (%g s); another run's output?", pr.TimeS, p.lastTime)
	}
	p.lastTime, p.progressed, p.has = pr.TimeS, true, true
	return ""
}

// progressPart reads one of the figures after the latency: "lag L ms" or
// "N failed" (skipped, retried, retries).
func (p *parser) progressPart(pr *Progress, part []byte) string {
	if v, ok := bytes.CutPrefix(part, []byte("lag ")); ok {
		v, ok := bytes.CutSuffix(v, []byte(" ms"))
		f, ok2 := num.NonNegFloat(v)
		if !ok || !ok2 || pr.LagMs.Valid {
			return fmt.Sprintf("a progress line with %q", part)
		}
		pr.LagMs = parse.Some(f)
		return ""
	}
	figure, what, _ := bytes.Cut(part, []byte(" "))
	c, ok := num.Count(figure)
	var dst *parse.Opt[int64]
	switch string(what) {
	case "failed":
		dst = &pr.Failed
	case "skipped":
		dst = &pr.Skipped
	case "retried":
		dst = &pr.Retried
	case "retries":
		dst = &pr.Retries
	}
	if !ok || dst == nil || dst.Valid {
		return fmt.Sprintf("a progress line with %q", part)
	}
	*dst = parse.Some(c)
	return ""
}

// cutComma is bytes.Cut(s, []byte(", ")), found from the ',' by
// bytes.IndexByte: a progress line's parts are short, and bytes.Index's
// search for two bytes took a sixth of the line's time.
func cutComma(s []byte) (before, after []byte, found bool) {
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], ',')
		if j < 0 {
			return s, nil, false
		}
		i += j
		if i+1 < len(s) && s[i+1] == ' ' {
			return s[:i], s[i+2:], true
		}
		i++
	}
}
