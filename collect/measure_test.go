// This file is a measurement, not a test of behaviour: it is skipped
// unless PGSTUDY_MEASURE=1, and what it reports is a table of figures
// (t.Logf), not a pass or a failure. docs/PERFORMANCE.md records its
// results and how to reproduce them:
//
//	PGSTUDY_MEASURE=1 go test ./collect -run TestMeasureTimingOverhead -v -count=1 -timeout 30m
//
// PGSTUDY_MEASURE_ROUNDS=N makes N runs per client instead of 1,000, and
// PGSTUDY_MEASURE_INTERLEAVE=1 lets the two clients take turns in one study
// (see TestMeasureTimingOverhead). It needs a PostgreSQL 17 server binary
// and Debian's psql (scripts/install-deps). The 2,000 runs take about six
// minutes on a quiet 2 vCPU machine, longer than go test's default timeout
// of 10 minutes when the machine is busy.

package collect_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples"
)

// measureRounds is how many timed runs each client makes; PGSTUDY_MEASURE_ROUNDS
// overrides it (for a quick check of the method).
const measureRounds = 1000

var (
	executionTimeRE = regexp.MustCompile(`"Execution Time": ([0-9.]+)`)
	planningTimeRE  = regexp.MustCompile(`"Planning Time": ([0-9.]+)`)
	psqlTimeRE      = regexp.MustCompile(`(?m)^Time: ([0-9.]+) ms`)
)

// TestMeasureTimingOverhead measures what each client adds to the server's
// own time for a trivial statement: for every run, the client-side elapsed
// time minus the "Execution Time" that EXPLAIN (ANALYZE) reports in the
// same run. For pgx that is the run's elapsed_ns (pgstudy's monotonic clock
// around the round trip); for psql it is the "Time: N ms" line that
// \timing printed. The overhead therefore holds the round trip, parsing,
// planning (reported separately by the server, not subtracted) and the
// client's own work.
func TestMeasureTimingOverhead(t *testing.T) {
	if os.Getenv("PGSTUDY_MEASURE") != "1" {
		t.Skip("a measurement, not a test: set PGSTUDY_MEASURE=1 to run it (see docs/PERFORMANCE.md)")
	}
	rounds := measureRounds
	if v := os.Getenv("PGSTUDY_MEASURE_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PGSTUDY_MEASURE_ROUNDS=%q: expected a positive number", v)
		}
		rounds = n
	}
	t.Logf("load average at the start: %s", loadAverage())
	pg := pgtest.Start(t, 17)
	version := pg.SQL(t, "show server_version")
	psqlVersion := pg.SQL(t, `\echo :VERSION_NAME`) // the client's own version

	// Per client: elapsed minus Execution Time; the same minus Planning
	// Time too; and the server's Planning Time, all in microseconds.
	over := map[string][]float64{}
	overNoPlan := map[string][]float64{}
	planning := map[string][]float64{}
	configs := map[string]string{
		"pgx":  fmt.Sprintf("  - name: pgx\n    dsn: %s\n    client: pgx\n", pg.DSN()),
		"psql": fmt.Sprintf("  - name: psql\n    dsn: %s\n    client: psql\n    psql: %s -X\n", pg.DSN(), pg.Psql()),
	}
	// By default each client has a study of its own, pgx first, as the
	// method in docs/PERFORMANCE.md says. PGSTUDY_MEASURE_INTERLEAVE=1 puts
	// both configurations in one study instead, so that they take turns
	// (order: rotate) and a change in the machine's load between the two
	// halves does not favour one client.
	studies := [][]string{{"pgx"}, {"psql"}}
	if os.Getenv("PGSTUDY_MEASURE_INTERLEAVE") == "1" {
		studies = [][]string{{"pgx", "psql"}}
	}
	for _, clients := range studies {
		var cfgs string
		for _, c := range clients {
			cfgs += configs[c]
		}
		r := collectMeasure(t, strings.Join(clients, "-"), cfgs, rounds, len(clients))
		for _, ov := range overheads(t, r) {
			over[ov.client] = append(over[ov.client], ov.elapsedUs-ov.execUs)
			overNoPlan[ov.client] = append(overNoPlan[ov.client], ov.elapsedUs-ov.execUs-ov.planUs)
			planning[ov.client] = append(planning[ov.client], ov.planUs)
		}
	}

	t.Logf("PostgreSQL %s (pgtest, TCP on 127.0.0.1), psql %s, %s, GOMAXPROCS %d, load average at the end: %s",
		version, psqlVersion, runtime.Version(), runtime.GOMAXPROCS(0), loadAverage())
	if len(studies) == 1 {
		t.Logf("interleaved: both clients in one study, taking turns")
	}
	table := func(title string, values map[string][]float64) {
		t.Logf("%s, microseconds, %d runs per client:", title, rounds)
		t.Logf("  %-6s %8s %8s %8s %8s %8s", "client", "p10", "median", "p90", "min", "max")
		for _, client := range []string{"pgx", "psql"} {
			v := values[client]
			slices.Sort(v)
			t.Logf("  %-6s %8.1f %8.1f %8.1f %8.1f %8.1f", client,
				quantile(v, 0.10), quantile(v, 0.50), quantile(v, 0.90), v[0], v[len(v)-1])
		}
	}
	table("client elapsed minus server Execution Time (the overhead)", over)
	table("the same minus Planning Time as well", overNoPlan)
	table("server Planning Time", planning)
	if a, b := quantile(over["pgx"], 0.5), quantile(over["psql"], 0.5); a > b {
		t.Logf("goal missed: pgstudy's (pgx) median overhead %.1f µs is above psql's %.1f µs", a, b)
	} else {
		t.Logf("goal met: pgstudy's (pgx) median overhead %.1f µs is not above psql's %.1f µs", a, b)
	}
}

// collectMeasure collects the study of the configurations cfgs (YAML
// items) for rounds rounds, and opens its capture.
func collectMeasure(t *testing.T, name, cfgs string, rounds, nconfigs int) *samples.Reader {
	t.Helper()
	study := writeStudy(t, fmt.Sprintf(`name: measure-timing-%s
configs:
%stests:
  - name: select1
    sql: explain (analyze, format json) select 1
protocol:
  rounds: %d
  order: rotate
  cold: []
  explain: false
`, name, cfgs, rounds))
	s, err := collect.LoadStudy(study)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "capture-"+name)
	started := time.Now()
	sum, err := collect.Collect(context.Background(), s, collect.Options{Out: out, ToolVersion: "measure"})
	if err != nil {
		t.Fatalf("collect with %s: %v", name, err)
	}
	if sum.Ran != rounds*nconfigs || sum.Failed != 0 {
		t.Fatalf("collect with %s: %+v", name, sum)
	}
	t.Logf("%s: %d runs collected in %s", name, sum.Ran, time.Since(started).Round(time.Second))
	r, err := samples.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// overhead is one run's client-side elapsed time and the server's
// Execution and Planning Time, in microseconds.
type overhead struct {
	client                    string
	elapsedUs, execUs, planUs float64
}

// overheads reads each run's times: for pgx the elapsed time pgstudy
// measured, for psql its one Time: line; the server's from the plan.
func overheads(t *testing.T, r *samples.Reader) []overhead {
	t.Helper()
	runs := read[samples.Run](t, r)
	outputs := read[samples.Output](t, r)
	text := map[int64]map[string]string{} // run -> stream -> text
	for _, o := range outputs {
		if text[o.RunID] == nil {
			text[o.RunID] = map[string]string{}
		}
		text[o.RunID][o.Stream] += o.Text
	}
	var out []overhead
	for _, run := range runs {
		client := run.Client
		if run.Status != "ok" {
			t.Fatalf("run %d (%s): %s: %s", run.RunID, client, run.Status, run.Error)
		}
		var printed string
		var elapsedUs float64
		switch client {
		case "pgx":
			printed = text[run.RunID]["result"]
			elapsedUs = float64(run.ElapsedNs) / 1e3
		case "psql":
			printed = text[run.RunID]["stdout"]
			if n := len(psqlTimeRE.FindAllString(printed, -1)); n != 1 {
				t.Fatalf("run %d: psql printed %d Time: lines, want 1:\n%s", run.RunID, n, printed)
			}
			elapsedUs = match(t, psqlTimeRE, printed, run.RunID, "Time:") * 1e3
		}
		out = append(out, overhead{client, elapsedUs,
			match(t, executionTimeRE, printed, run.RunID, "Execution Time") * 1e3,
			match(t, planningTimeRE, printed, run.RunID, "Planning Time") * 1e3})
	}
	return out
}

// loadAverage is the 1, 5 and 15 minute load averages of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if err != nil || len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// match returns the number captured by re in text, failing the test when
// there is none.
func match(t *testing.T, re *regexp.Regexp, text string, run int64, what string) float64 {
	t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("run %d: no %s in the client's output:\n%s", run, what, text)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("run %d: %s %q: %v", run, what, m[1], err)
	}
	return v
}

// quantile is the q-quantile of sorted values, interpolating linearly
// between the two nearest ranks.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}
