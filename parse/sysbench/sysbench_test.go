package sysbench

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func TestFixtures(t *testing.T) {
	golden.Each(t, "", "run", Parse, checkSysbench)
}

// checkSysbench checks what every accepted run satisfies.
func checkSysbench(t *testing.T, run Run) {
	t.Helper()
	if sql := run.SQL; sql != nil {
		if sql.Reads+sql.Writes+sql.Other != sql.Total || sql.Queries != sql.Total {
			t.Errorf("totals: %+v", sql)
		}
		if sql.Reads < 0 || sql.Writes < 0 || sql.Other < 0 || sql.Transactions < 0 {
			t.Errorf("negative counts: %+v", sql)
		}
	}
	if run.TotalTimeS < 0 || run.Events < 0 || run.LatencyMinMs < 0 || run.LatencyAvgMs < 0 || run.LatencyMaxMs < 0 || run.LatencySumMs < 0 {
		t.Errorf("negative figures: %+v", run)
	}
	if (run.LatencyPercentile == nil) != (run.LatencyPercentileMs == nil) {
		t.Errorf("percentile without its latency: %+v", run)
	}
	for i, iv := range run.Intervals {
		if i > 0 && iv.TimeS <= run.Intervals[i-1].TimeS {
			t.Errorf("interval %d: time %g after %g", i, iv.TimeS, run.Intervals[i-1].TimeS)
		}
		if iv.TPS.Valid == iv.EPS.Valid || iv.LatencyMs < 0 || iv.LatencyPercentile > 100 {
			t.Errorf("interval %d: %+v", i, iv)
		}
	}
}

func TestPercentile(t *testing.T) {
	run, _, err := Parse(strings.NewReader(golden.Text(t, "testdata/oltp-read-only-t4-p99.txt")), "p99")
	if err != nil {
		t.Fatal(err)
	}
	if *run.LatencyPercentile != 99 || *run.Threads != 4 || run.Intervals[0].LatencyPercentile != 99 {
		t.Errorf("%+v", run)
	}
}

// Outputs of sysbench 1.0's other tests and options, written from the
// format strings in its source (src/sysbench.c, src/db_driver.c,
// src/sb_histogram.c of 1.0.20).
func TestVariants(t *testing.T) {
	cpu := `sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)

Running the test with following options:
Number of threads: 2
Target transaction rate: 100/sec
Report intermediate results every 1 second(s)
Initializing random number generator from seed (42).


Prime numbers limit: 10000

Initializing worker threads...

Threads started!

[ 1s ] thds: 2 eps: 99.00 lat (ms,95%): 1.01
[ 1s ] queue length: 0 concurrency: 1
Latency histogram (values are in milliseconds)
       value  ------------- distribution ------------- count
       0.985 |****************************************  150
       1.010 |**                                        8

General statistics:
    total time:                          2.0001s
    total number of events:              200

Latency (ms):
         min:                                    0.98
         avg:                                    0.99
         max:                                    1.20
         percentile stats:               disabled
         sum:                                  198.00

Threads fairness:
    events (avg/stddev):           100.0000/0.00
    execution time (avg/stddev):   0.0990/0.00

`
	run, warns, err := Parse(strings.NewReader(cpu), "cpu")
	if err != nil {
		t.Fatal(err)
	}
	golden.SeqFold(t, []byte(cpu), Parse, ParseSeq, foldRecords)
	// "Prime numbers limit" is the cpu test's own header line.
	if len(warns) != 1 || warns[0].Line != 10 {
		t.Errorf("warnings %v", warns)
	}
	checkSysbench(t, run)
	want := []Interval{{TimeS: 1, Threads: 2, EPS: parse.Some(99.0), LatencyPercentile: 95, LatencyMs: 1.01, QueueLength: parse.Some[int64](0), Concurrency: parse.Some[int64](1)}}
	if !reflect.DeepEqual(run.Intervals, want) || run.SQL != nil || run.LatencyPercentile != nil ||
		len(run.Histogram) != 2 || run.Histogram[1] != (Bucket{1.01, 8}) || *run.TargetRatePerS != 100 || run.LuaJIT != "bundled LuaJIT 2.1.0-beta2" {
		t.Errorf("%+v", run)
	}
}

func TestErrors(t *testing.T) {
	real := golden.Text(t, "testdata/oltp-read-write-t4.txt")
	lines := strings.SplitAfter(real, "\n")
	cut := func(n int) string { return strings.Join(lines[:n], "") }
	for _, tt := range []struct {
		name, in string
		err      string
	}{
		{"empty", "", "sb.txt: empty input; expected sysbench output"},
		{"binary", "\x1f\x8b\x08\x00\x00\x00", "sb.txt:1: gzip-compressed data; expected text: decompress it first"},
		{"pgbench output", golden.Text(t, "../pgbench/testdata/tpcb.stdout.txt"),
			`sb.txt:1: not sysbench output (no line of it is sysbench's): not a line of sysbench output: "pgbench (15.18 (Debian 15.18-0+deb12u1))"`},
		{"diskstats", golden.Text(t, "../diskstats/testdata/linux-6.18.txt"),
			`sb.txt:1: not sysbench output (no line of it is sysbench's): not a line of a sysbench report: "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"`},
		{"run did not finish", cut(17),
			`sb.txt:17: input ends before sysbench's report ("General statistics:"): the run did not finish or the output is cut short`},
		{"fatal", cut(12) + "FATAL: `thread_run' function failed: ./oltp_common.lua:405: SQL error, errno = 0, state = '40P01': deadlock detected\n",
			"sb.txt:13: input ends before sysbench's report (\"General statistics:\"): the run did not finish or the output is cut short; line 13 says \"FATAL: `thread_run' function failed: ./oltp_common.lua:405: \"..."},
		{"cut in the latency section", cut(35),
			`sb.txt:35: the report that starts on line 18 has no "max" line under "Latency (ms)"; the output is cut short`},
		{"cut before fairness", cut(40),
			`sb.txt:40: the report that starts on line 18 has no "events (avg/stddev)" line under "Threads fairness"; the output is cut short`},
		{"a count too large", strings.Replace(real, "71514  (", "99999999999999999999  (", 1),
			`sb.txt:25: the report that starts on line 18 has its "queries" line under "SQL statistics" here, but its value is not understood (see the warning)`},
		{"two runs", real + real,
			`sb.txt:61: a second report (the first starts on line 18): the input holds more than one sysbench run, or --report-checkpoints reports`},
		{"total is not the sum", strings.Replace(real, "total:                           71514", "total:                           71515", 1),
			`sb.txt:23: queries performed: total 71515 is not read + write + other (50078 + 14258 + 7178)`},
		{"queries is not the total", strings.Replace(real, "queries:                             71514", "queries:                             71513", 1),
			`sb.txt:25: queries: 71513 is not the queries performed total 71514`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse(strings.NewReader(tt.in), "sb.txt")
			if err == nil {
				t.Fatalf("no error, want %q", tt.err)
			}
			var se *parse.SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("error %T, want *SyntaxError", err)
			}
			if err.Error() != tt.err {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.err)
			}
			golden.SeqFold(t, []byte(tt.in), Parse, ParseSeq, foldRecords)
		})
	}
}

func TestWarnings(t *testing.T) {
	real := golden.Text(t, "testdata/oltp-point-select.txt")
	in := strings.Replace(real, "[ 2s ] thds: 1 tps: 22503.47", "[ 2s ] thds: 1 tps: lots", 1)
	in = strings.Replace(in, "[ 4s ]", "[ 3s ]", 1)
	in = strings.Replace(in, "Threads started!", "Threads started!\nsomething else", 1)
	run, warns, err := Parse(strings.NewReader(in), "w")
	if err != nil {
		t.Fatal(err)
	}
	golden.SeqFold(t, []byte(in), Parse, ParseSeq, foldRecords)
	if len(run.Intervals) != 3 {
		t.Errorf("%d intervals", len(run.Intervals))
	}
	var got []string
	for _, w := range warns {
		got = append(got, strconv.Itoa(w.Line)+":"+w.Msg)
	}
	want := []string{
		"12:not a line of sysbench output",
		"15:not a sysbench interval line",
		"17:an interval time (3s) not after the one before (3s); another run's output?",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got: %q\nwant: %q", got, want)
	}
}
