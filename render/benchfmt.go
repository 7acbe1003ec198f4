package render

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"

	"github.com/pgstudy/pgstudy/analyze"
)

// benchName keeps a name to the characters a Go benchmark name part may
// hold: a study's names already do; an import's may not.
var benchName = regexp.MustCompile(`[^A-Za-z0-9_.+-]`)

// benchfmt writes every measured run as a line of the Go benchmark
// format, so that benchstat and other tools of that format read a
// capture: "Benchmark/test=T/config=C 1 V UNIT", a timed run's time in
// ns/op (to the nanosecond: the client's clock or psql's microseconds), a throughput run's queries per second in queries/s (a rate:
// higher is better, which benchstat does not know), in the order they
// ran, after "pgstudy-host: H" and "pgstudy-capture: ID" lines. For
// example
//
//	pgstudy analyze capture/ --format benchfmt > runs.txt
//	benchstat -col /config -row /test runs.txt
func benchfmt(w io.Writer, a *analyze.Analysis) error {
	bw := &errWriter{w: w}
	host := ""
	for _, r := range a.Runs {
		if r.Status != "ok" || (!r.HasTime && r.Throughput == nil) {
			continue
		}
		if r.Host != host {
			host = r.Host
			bw.printf("pgstudy-host: %s\npgstudy-capture: %s\n", benchName.ReplaceAllString(host, "_"), r.Capture)
		}
		name := "Benchmark/test=" + benchName.ReplaceAllString(r.Test, "_") + "/config=" + benchName.ReplaceAllString(r.Config, "_")
		if r.Throughput != nil {
			bw.printf("%s 1 %s queries/s\n", name, strconv.FormatFloat(r.Throughput.QPS, 'f', -1, 64))
			continue
		}
		bw.printf("%s 1 %s ns/op\n", name, strconv.FormatFloat(math.Round(r.TimeMs*1e6), 'f', -1, 64))
	}
	if bw.err != nil {
		return fmt.Errorf("benchfmt: %w", bw.err)
	}
	return nil
}
