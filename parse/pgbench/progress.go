package pgbench

import (
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// progress reads "progress: 5.0 s, 1234.5 tps, lat 0.810 ms stddev 0.123,
// 0 failed[, lag 0.1 ms[, 3 skipped]][, 0 retried, 0 retries]".
func (p *parser) progress(s string) string {
	parts := strings.Split(strings.TrimPrefix(s, "progress: "), ", ")
	if len(parts) < 3 {
		return "a progress line without its time, tps and latency"
	}
	var pr Progress
	t, ok1 := strings.CutSuffix(parts[0], " s")
	tps, ok2 := strings.CutSuffix(parts[1], " tps")
	var ok3, ok4 bool
	pr.TimeS, ok3 = num.NonNegFloat(t)
	pr.TPS, ok4 = num.NonNegFloat(tps)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return "a progress line without \"T s, N tps\""
	}
	lat := strings.Fields(parts[2])
	if len(lat) != 5 || lat[0] != "lat" || lat[2] != "ms" || lat[3] != "stddev" {
		return "a progress line without \"lat L ms stddev S\""
	}
	var ok bool
	if pr.LatencyAvgMs, ok = num.NonNegFloat(lat[1]); !ok {
		return "a progress line whose latency is not a number"
	}
	if sd, ok := num.NonNegFloat(lat[4]); ok {
		pr.LatencyStddevMs = &sd
	} else if !naN(lat[4]) {
		return "a progress line whose stddev is not a number"
	}
	for _, part := range parts[3:] {
		if v, ok := strings.CutPrefix(part, "lag "); ok {
			v, ok := strings.CutSuffix(v, " ms")
			f, ok2 := num.NonNegFloat(v)
			if !ok || !ok2 || pr.LagMs != nil {
				return fmt.Sprintf("a progress line with %q", part)
			}
			pr.LagMs = &f
			continue
		}
		figure, what, _ := strings.Cut(part, " ")
		c, ok := num.Count(figure)
		var dst **int64
		switch what {
		case "failed":
			dst = &pr.Failed
		case "skipped":
			dst = &pr.Skipped
		case "retried":
			dst = &pr.Retried
		case "retries":
			dst = &pr.Retries
		}
		if !ok || dst == nil || *dst != nil {
			return fmt.Sprintf("a progress line with %q", part)
		}
		*dst = &c
	}
	if k := len(p.run.Progress); k > 0 && pr.TimeS <= p.run.Progress[k-1].TimeS {
		return fmt.Sprintf("a progress time (%g s) not after the one before (%g s); another run's output?", pr.TimeS, p.run.Progress[k-1].TimeS)
	}
	p.run.Progress = append(p.run.Progress, pr)
	return ""
}
