package pgbench

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

func TestFixtures(t *testing.T) {
	golden.Each(t, "", "run", Parse, checkPgbench)
}

// checkPgbench checks what every accepted run satisfies.
func checkPgbench(t *testing.T, run Run) {
	t.Helper()
	for i, p := range run.Progress {
		if p.TimeS < 0 || p.TPS < 0 || p.LatencyAvgMs.V < 0 || p.LatencyStddevMs.V < 0 {
			t.Errorf("progress %d: negative %+v", i, p)
		}
		if i > 0 && p.TimeS <= run.Progress[i-1].TimeS {
			t.Errorf("progress %d: time %g after %g", i, p.TimeS, run.Progress[i-1].TimeS)
		}
	}
	s := run.Summary
	if s == nil {
		return
	}
	if s.TransactionType == "" || s.QueryMode == "" {
		t.Errorf("summary without transaction type or query mode: %+v", s)
	}
	for _, f := range []*float64{s.TPS, s.TPSIncludingConnections, s.LatencyAvgMs, s.LatencyStddevMs} {
		if f != nil && *f < 0 {
			t.Errorf("negative figure in %+v", s)
		}
	}
	if s.Transactions < 0 || s.ScalingFactor < 0 || s.Clients < 0 || s.Threads < 0 {
		t.Errorf("negative count in %+v", s)
	}
	if s.Transactions > 0 && s.TPS == nil && s.TPSIncludingConnections == nil {
		t.Errorf("transactions without tps: %+v", s)
	}
	for _, st := range s.Statements {
		if st.Script < 1 || (len(s.Scripts) > 0 && st.Script > len(s.Scripts)) || st.Command == "" || st.LatencyAvgMs < 0 {
			t.Errorf("bad statement %+v", st)
		}
	}
	for i, sc := range s.Scripts {
		if sc.Number != i+1 || sc.Name == "" {
			t.Errorf("bad script %d: %+v", i, sc)
		}
	}
}

// stdout and stderr recorded apart, concatenated, parse to what each gives.
func TestStreams(t *testing.T) {
	for _, name := range []string{"select-only", "tpcb-r", "multi-script", "rate-limit"} {
		stdout := golden.Text(t, "testdata/"+name+".stdout.txt")
		stderr := golden.Text(t, "testdata/"+name+".stderr.txt")
		out, _, err1 := Parse(strings.NewReader(stdout), "stdout")
		errRun, _, err2 := Parse(strings.NewReader(stderr), "stderr")
		both, warns, err3 := Parse(strings.NewReader(stdout+stderr), "both")
		if err1 != nil || err2 != nil || err3 != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v %v %v", name, err1, err2, err3, warns)
		}
		if out.Summary == nil || out.Progress != nil || errRun.Summary != nil || len(errRun.Progress) != 5 {
			t.Errorf("%s: stdout has summary %v and %d progress lines; stderr has summary %v and %d", name,
				out.Summary != nil, len(out.Progress), errRun.Summary != nil, len(errRun.Progress))
		}
		if !reflect.DeepEqual(both.Summary, out.Summary) || !reflect.DeepEqual(both.Progress, errRun.Progress) || both.Version != out.Version {
			t.Errorf("%s: stdout+stderr differs from each alone", name)
		}
	}
}

// Wordings of versions other than the fixtures' pgbench 15, written from
// the format strings in pgbench.c of each version.
func TestWordings(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i64 := func(v int64) *int64 { return &v }
	for _, tt := range []struct {
		name, in string
		check    func(t *testing.T, r Run)
	}{
		{"pgbench 13 connections establishing", `transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: simple
number of clients: 1
number of threads: 1
number of transactions per client: 10
number of transactions actually processed: 10/10
latency average = 2.061 ms
tps = 485.143289 (including connections establishing)
tps = 496.476346 (excluding connections establishing)
statement latencies in milliseconds:
         0.003  \set aid random(1, 100000 * :scale)
         1.108  END;
`, func(t *testing.T, r Run) {
			s := r.Summary
			if !reflect.DeepEqual(s.TPS, f(496.476346)) || !reflect.DeepEqual(s.TPSIncludingConnections, f(485.143289)) ||
				!reflect.DeepEqual(s.TransactionsPlanned, i64(10)) || s.MaxTries != nil || s.FailedTransactions != nil {
				t.Errorf("%+v", s)
			}
			want := []Statement{
				{Script: 1, LatencyAvgMs: 0.003, Command: `\set aid random(1, 100000 * :scale)`},
				{Script: 1, LatencyAvgMs: 1.108, Command: "END;"},
			}
			if !reflect.DeepEqual(s.Statements, want) {
				t.Errorf("statements %+v", s.Statements)
			}
		}},
		{"pgbench 9.5 colons", `transaction type: TPC-B (sort of)
scaling factor: 1
query mode: simple
number of clients: 1
number of threads: 1
duration: 5 s
number of transactions actually processed: 2500
latency average: 2.000 ms
latency stddev: 0.500 ms
tps = 499.836745 (including connections establishing)
tps = 500.123456 (excluding connections establishing)
`, func(t *testing.T, r Run) {
			s := r.Summary
			if !reflect.DeepEqual(s.LatencyAvgMs, f(2)) || !reflect.DeepEqual(s.LatencyStddevMs, f(0.5)) || *s.DurationS != 5 {
				t.Errorf("%+v", s)
			}
		}},
		{"pgbench 13 progress and abort", `progress: 1.0 s, 100.0 tps, lat 9.950 ms stddev 1.000
progress: 2.0 s, 0.0 tps, lat 0.000 ms stddev -nan, lag 0.100 ms, 4 skipped
progress: 3.0 s, 0.0 tps, lat -nan ms stddev -nan
client 0 aborted in command 4 (SQL) of script 0; ERROR:  relation "pgbench_accounts" does not exist
Run was aborted; the above results are incomplete.
`, func(t *testing.T, r Run) {
			want := []Progress{
				{TimeS: 1, TPS: 100, LatencyAvgMs: parse.Some(9.95), LatencyStddevMs: parse.Some(1.0)},
				{TimeS: 2, TPS: 0, LatencyAvgMs: parse.Some(0.0), LagMs: parse.Some(0.1), Skipped: parse.Some[int64](4)},
				{TimeS: 3, TPS: 0}, // a stall: no transaction, so no latency ("-nan"), and 0 tps kept
			}
			if !reflect.DeepEqual(r.Progress, want) || !r.Aborted || len(r.Messages) != 2 || r.Messages[0].Line != 4 {
				t.Errorf("%+v", r)
			}
		}},
		{"pgbench 17 server banner and failures", `pgbench (17.2, server 15.4)
pgbench: error: client 1 script 0 aborted in command 5 query 0: ERROR:  could not serialize access due to concurrent update
pgbench: error: Run was aborted due to an error in thread 0
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: extended
number of clients: 2
number of threads: 1
maximum number of tries: 1
number of transactions per client: 100
number of transactions actually processed: 150/200
number of failed transactions: 1 (0.662%)
latency average = 1.000 ms (including failures)
initial connection time = 3.000 ms
tps = 990.000000 (without initial connection time)
pgbench: error: Run was aborted; the above results are incomplete.
`, func(t *testing.T, r Run) {
			s := r.Summary
			if r.Version != "17.2" || r.ServerVersion != "15.4" || !r.Aborted || len(r.Messages) != 3 ||
				!s.LatencyIncludesFailures || !reflect.DeepEqual(s.FailedTransactions, &Count{1, 0.662}) {
				t.Errorf("%+v %+v", r, s)
			}
		}},
		{"pgbench 18 per-script processed line and other failures", `transaction type: multiple scripts
scaling factor: 1
partition method: range
partitions: 4
query mode: simple
number of clients: 1
number of threads: 1
maximum number of tries: 1
duration: 1 s
number of transactions actually processed: 10
number of failed transactions: 0 (0.000%)
number of serialization failures: 0 (0.000%)
number of deadlock failures: 0 (0.000%)
number of other failures: 0 (0.000%)
latency average = 0.100 ms
initial connection time = 3.000 ms
tps = 10.000000 (without initial connection time)
SQL script 1: <builtin: select only>
 - weight: 1 (targets 50.0% of total)
 - 5 transactions (50.0% of total)
 - number of transactions actually processed: 5 (tps = 5.000000)
 - number of failed transactions: 0 (0.000%)
 - number of other failures: 0 (0.000%)
 - latency average = 0.100 ms
 - latency stddev = 0.010 ms
SQL script 2: <builtin: select only>
 - weight: 1 (targets 50.0% of total)
 - 5 transactions (50.0% of total)
 - number of transactions actually processed: 5 (tps = 5.000000)
`, func(t *testing.T, r Run) {
			s := r.Summary
			if len(s.Scripts) != 2 || s.PartitionMethod != "range" || *s.Partitions != 4 || s.OtherFailures == nil ||
				!reflect.DeepEqual(s.Scripts[0].Processed, i64(5)) || !reflect.DeepEqual(s.Scripts[1].TPS, f(5)) ||
				s.Scripts[0].OtherFailures == nil {
				t.Errorf("%+v", s)
			}
		}},
		{"stderr of a run without -P", "starting vacuum...end.\n", func(t *testing.T, r Run) {
			if !reflect.DeepEqual(r, Run{}) {
				t.Errorf("%+v", r)
			}
		}},
		{"vacuum error", "starting vacuum...pgbench: error: ERROR:  relation \"pgbench_branches\" does not exist\npgbench: detail: (ignoring this error and continuing anyway)\nend.\n",
			func(t *testing.T, r Run) {
				if len(r.Messages) != 2 || r.Messages[0].Text != `pgbench: error: ERROR:  relation "pgbench_branches" does not exist` {
					t.Errorf("%+v", r)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run, warns, err := Parse(strings.NewReader(tt.in), "in")
			if err != nil {
				t.Fatal(err)
			}
			if len(warns) > 0 && tt.name != "vacuum error" {
				t.Errorf("warnings: %v", warns)
			}
			checkPgbench(t, run)
			tt.check(t, run)
			golden.SeqFold(t, []byte(tt.in), Parse, ParseSeq, foldRecords)
		})
	}
}

func TestErrors(t *testing.T) {
	stdout := golden.Text(t, "testdata/tpcb.stdout.txt")
	lines := strings.SplitAfter(stdout, "\n")
	for _, tt := range []struct {
		name, in string
		err      string
	}{
		{"empty", "", "pgbench.txt: empty input; expected pgbench output"},
		{"blank", "\n\n", "pgbench.txt: empty input; expected pgbench output"},
		{"binary", "PK\x03\x04\x14\x00\x00\x00", "pgbench.txt:1: binary data (a NUL byte); expected text"},
		{"sysbench output", golden.Text(t, "../sysbench/testdata/oltp-point-select.txt"),
			`pgbench.txt:1: not pgbench output (no line of it is pgbench's): not a line of pgbench output: "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)"`},
		{"diskstats", golden.Text(t, "../diskstats/testdata/linux-6.18.txt"),
			`pgbench.txt:1: not pgbench output (no line of it is pgbench's): not a line of pgbench output: "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"`},
		{"truncated header", strings.Join(lines[:4], ""),
			`pgbench.txt:4: the summary that starts on line 2 has no "number of clients" line; the output is cut short`},
		{"truncated before tps", strings.Join(lines[:12], ""),
			`pgbench.txt:12: the summary that starts on line 2 ends before its tps line; the output is cut short`},
		{"head cut off", strings.Join(lines[3:], ""),
			`pgbench.txt:11: the summary that starts on line 1 has no "transaction type" line; the output is cut short`},
		{"a count too large", strings.Replace(stdout, "processed: 1780", "processed: 99999999999999999999", 1),
			`pgbench.txt:9: the summary that starts on line 2 has its "number of transactions actually processed" line here, but its value is not understood (see the warning)`},
		{"a tps too large", strings.Replace(stdout, "tps = 358.331592", "tps = 1e400", 1),
			`pgbench.txt:14: the summary that starts on line 2 has its tps line here, but its value is not understood (see the warning)`},
		{"two runs", stdout + stdout,
			`pgbench.txt:16: a second summary (the first starts on line 2); the input holds more than one pgbench run`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Parse(strings.NewReader(tt.in), "pgbench.txt")
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
	in := `pgbench (15.18 (Debian 15.18-0+deb12u1))
progress: 1.0 s, 100.0 tps, lat 1.000 ms stddev 0.100, 0 failed
progress: 2.0 s, many tps, lat 1.000 ms stddev 0.100, 0 failed
progress: 2.0 s, 100.0 tps, lat 1.000 ms stddev 0.100, 0 failed, 3 bananas
progress: 0.5 s, 100.0 tps, lat 1.000 ms stddev 0.100, 0 failed
something else entirely
scaling factor: x
 - weight: 1 (targets 100.0% of total)
`
	run, warns, err := Parse(strings.NewReader(in), "w")
	if err != nil {
		t.Fatal(err)
	}
	golden.SeqFold(t, []byte(in), Parse, ParseSeq, foldRecords)
	if len(run.Progress) != 1 || run.Summary != nil {
		t.Errorf("%+v", run)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		`w:3: a progress line without "T s, N tps": "progress: 2.0 s, many tps, lat 1.000 ms stddev 0.100, 0 failed"`,
		`w:4: a progress line with "3 bananas": "progress: 2.0 s, 100.0 tps, lat 1.000 ms stddev 0.100, 0 failed, 3 bananas"`,
		`w:5: a progress time (0.5 s) not after the one before (1 s); another run's output?: "progress: 0.5 s, 100.0 tps, lat 1.000 ms stddev 0.100, 0 failed"`,
		`w:6: not a line of pgbench output: "something else entirely"`,
		`w:7: scaling factor: not a count: "scaling factor: x"`,
		`w:8: a per-script line outside a "SQL script" block: " - weight: 1 (targets 100.0% of total)"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n got: %q\nwant: %q", got, want)
	}
}
