package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/render"
	"github.com/spf13/cobra"
)

// The flags and usage of every command, tested without running it: each
// command is built with a run function that records its options, under a
// root like pgstudy's. The tests that run pgstudy for real (with a server
// where they need one) stay beside the code they test.

// flagCase is a command line and what it must give: the options run
// receives, or the exact error and exit code.
type flagCase[O any] struct {
	args []string
	want O
	err  string
	code int
}

// testFlags runs each case through a command made by newCmd.
func testFlags[O any](t *testing.T, newCmd func(runFunc[O]) *cobra.Command, cases []flagCase[O]) {
	t.Helper()
	for _, tc := range cases {
		got, err := optionsOf(newCmd, tc.args...)
		name := strings.Join(tc.args, " ")
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || exitCode(err) != tc.code || got != nil {
				t.Errorf("pgstudy %s: error %v (exit %d, ran %v); want %q and exit %d", name, err, exitCode(err), got != nil, tc.err, tc.code)
			}
			continue
		}
		if err != nil || got == nil || !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("pgstudy %s: error %v, options\n%+v\nwant\n%+v", name, err, deref(got), tc.want)
		}
	}
}

// optionsOf runs the command line and returns the options the command
// would have run with (nil when it would not have run) and its error.
func optionsOf[O any](newCmd func(runFunc[O]) *cobra.Command, args ...string) (*O, error) {
	var got *O
	record := func(_ context.Context, o *O, _ streams) error {
		c := *o
		got = &c
		return nil
	}
	root := newRoot()
	root.AddCommand(newCmd(record))
	root.SetArgs(args)
	root.SetIn(strings.NewReader(""))
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	err := root.Execute()
	return got, err
}

func deref[O any](p *O) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestCollectFlags(t *testing.T) {
	st := &stopper{soft: make(chan struct{})}
	newCmd := func(run runFunc[collectOptions]) *cobra.Command { return newCollectCmd(st, run) }
	oneFile := "collect takes one study file; `pgstudy init` writes an example"
	testFlags(t, newCmd, []flagCase[collectOptions]{
		{args: []string{"collect", "s.yaml"}, want: collectOptions{study: "s.yaml", stop: st.soft}},
		{args: []string{"collect", "s.yaml", "-o", "cap", "--resume", "-q"},
			want: collectOptions{study: "s.yaml", out: "cap", resume: true, quiet: true, stop: st.soft}},
		{args: []string{"collect", "--out=cap", "--dry-run", "--quiet", "s.yaml"},
			want: collectOptions{study: "s.yaml", out: "cap", dryRun: true, quiet: true, stop: st.soft}},
		{args: []string{"collect", "s.yaml", "-o", "cap", "--leave-running"},
			want: collectOptions{study: "s.yaml", out: "cap", leaveRunning: true, stop: st.soft}},
		{args: []string{"collect", "s.yaml", "-o", "cap", "--no-compact"},
			want: collectOptions{study: "s.yaml", out: "cap", noCompact: true, stop: st.soft}},
		{args: []string{"collect"}, err: oneFile, code: exitUsage},
		{args: []string{"collect", "a.yaml", "b.yaml"}, err: oneFile, code: exitUsage},
		{args: []string{"collect", "--bogus", "x"}, err: "unknown flag: --bogus", code: exitUsage},
		{args: []string{"collect", "s.yaml", "-o"}, err: "flag needs an argument: 'o' in -o", code: exitUsage},
		{args: []string{"collect", "s.yaml", "--resume", "--dry-run"}, err: "--resume carries on the capture in -o DIR: name that folder", code: exitUsage},
		{args: []string{"collect", "s.yaml", "--resume=maybe"}, err: `invalid argument "maybe" for "--resume" flag: strconv.ParseBool: parsing "maybe": invalid syntax`, code: exitUsage},
	})
}

func TestCompactFlags(t *testing.T) {
	testFlags(t, newCompactCmd, []flagCase[compactOptions]{
		{args: []string{"compact", "a", "b"}, want: compactOptions{captures: []string{"a", "b"}}},
		{args: []string{"compact", "a", "--fleet", "f", "--host", "db1", "--study", "io.v2"},
			want: compactOptions{captures: []string{"a"}, fleet: "f", host: "db1", study: "io.v2"}},
		{args: []string{"compact"}, err: "compact needs a capture folder", code: exitUsage},
		{args: []string{"compact", "a", "--study", "s"}, err: "--host and --study name a capture's partition in a fleet: give --fleet DIR too", code: exitUsage},
		{args: []string{"compact", "a", "b", "--fleet", "f"}, err: "--fleet publishes one capture at a time (it is one host's partition); give one capture", code: exitUsage},
		{args: []string{"compact", "a", "--fleet", "f", "--host", "db/1"}, err: `"db/1" cannot name a fleet partition: use a letter, then letters, digits, '.', '_' or '-' (at most 64), so that every engine reads it as the same text`, code: exitUsage},
	})
}

func TestImportFlags(t *testing.T) {
	st := &stopper{soft: make(chan struct{})}
	newCmd := func(run runFunc[importOptions]) *cobra.Command { return newImportCmd(st, run) }
	dir := t.TempDir()
	oneSource := "import takes one manifest, or one folder with --pattern"
	testFlags(t, newCmd, []flagCase[importOptions]{
		{args: []string{"import", "m.csv", "-o", "cap"}, want: importOptions{source: "m.csv", out: "cap", stop: st.soft}},
		{args: []string{"import", "--pattern", "{round}/{config}/{test}/{kind}", dir, "--out", "cap"},
			want: importOptions{source: dir, pattern: "{round}/{config}/{test}/{kind}", out: "cap", stop: st.soft}},
		{args: []string{"import", "-o", "cap"}, err: oneSource, code: exitUsage},
		{args: []string{"import", "a.csv", "b.csv", "-o", "cap"}, err: oneSource, code: exitUsage},
		{args: []string{"import", "m.csv"}, err: "import needs -o DIR, the capture folder to write", code: exitUsage},
		{args: []string{"import", dir, "-o", "cap"}, err: dir + " is a folder: name a manifest, or give --pattern", code: exitUsage},
		{args: []string{"import", "m.csv", "-o", "cap", "--resume"}, err: "unknown flag: --resume", code: exitUsage},
	})
}

func TestInitFlags(t *testing.T) {
	testFlags(t, newInitCmd, []flagCase[initOptions]{
		{args: []string{"init"}, want: initOptions{path: "study.yaml", template: "cold"}},
		{args: []string{"init", "qps.yaml", "--template", "throughput", "-f"}, want: initOptions{path: "qps.yaml", template: "throughput", force: true}},
		{args: []string{"init", "-", "--template=sweep", "--force"}, want: initOptions{path: "-", template: "sweep", force: true}},
		{args: []string{"init", "a.yaml", "b.yaml"}, err: "init takes at most one file, found 2", code: exitUsage},
		{args: []string{"init", "-", "--template", "bogus"}, err: `--template "bogus": expected one of cold, throughput, sweep, sysbench-micro`, code: exitUsage},
		{args: []string{"init", "--template"}, err: "flag needs an argument: --template", code: exitUsage},
	})
}

func TestParseFlags(t *testing.T) {
	kinds := parseKinds()
	testFlags(t, newParseCmd, []flagCase[parseOptions]{
		{args: []string{"parse", "vacuum", "vacuum.log"}, want: parseOptions{kind: "vacuum", files: []string{"vacuum.log"}, format: "json"}},
		{args: []string{"parse", "diskstats", "--format", "jsonl", "before.txt", "after.txt"},
			want: parseOptions{kind: "diskstats", files: []string{"before.txt", "after.txt"}, format: "jsonl"}},
		{args: []string{"parse", "psql", "-"}, want: parseOptions{kind: "psql", files: []string{"-"}, format: "json"}},
		{args: []string{"parse"}, err: "parse takes a kind and at least one file; kinds:\n" + kinds, code: exitUsage},
		{args: []string{"parse", "vacuum"}, err: "parse takes a kind and at least one file; kinds:\n" + kinds, code: exitUsage},
		{args: []string{"parse", "nonsense", "x"}, err: `unknown kind "nonsense"; kinds:` + "\n" + kinds, code: exitUsage},
		{args: []string{"parse", "vacuum", "x", "--format", "xml"}, err: `--format must be json or jsonl, found "xml"`, code: exitUsage},
	})
}

// badRounds is the error of a --rounds that is not a range of rounds.
func badRounds(r string) string {
	return fmt.Sprintf("--rounds %q: expected N, FIRST-LAST, FIRST- or -LAST with rounds from 1", r)
}

func TestAnalyzeFlags(t *testing.T) {
	tableNames := strings.Join(render.TableNames(), ", ")
	csvOneTable := "CSV on standard output holds one table: add --table NAME (one of " + tableNames + "), or write one file per table with -o DIR"
	flags := analyzeFlags{baseline: "pg17", rounds: "2-5", exclude: []string{"config=a", "run=3"}}
	cases := []flagCase[analyzeOptions]{
		{args: []string{"analyze", "c"}, want: analyzeOptions{captures: []string{"c"}, format: "md", analysis: analyze.Options{SkipSeries: true}}},
		{args: []string{"analyze", "c1", "c2", "--baseline", "pg17", "--rounds", "2-5", "--exclude", "config=a", "--exclude", "run=3",
			"--format", "csv", "--detail", "-o", "out"},
			want: analyzeOptions{captures: []string{"c1", "c2"}, flags: flags, format: "csv", tables: render.Tables{Detail: true}, out: "out",
				analysis: analyze.Options{Baseline: "pg17", FirstRound: 2, LastRound: 5, Exclude: []string{"config=a", "run=3"}}}},
		{args: []string{"analyze", "c", "--tolerance", "2.5%", "--controls", "declared"},
			want: analyzeOptions{captures: []string{"c"}, format: "md", flags: analyzeFlags{tolerance: "2.5%", controls: "declared"},
				analysis: analyze.Options{Tolerance: 0.025, Controls: "declared", SkipSeries: true}}},
		{args: []string{"analyze", "c", "--tolerance", "0.1"},
			want: analyzeOptions{captures: []string{"c"}, format: "md", flags: analyzeFlags{tolerance: "0.1"}, analysis: analyze.Options{Tolerance: 0.1, SkipSeries: true}}},
		{args: []string{"analyze", "c", "--tolerance", "-1%"}, err: `--tolerance "-1%": expected a share between 0 and 1, such as 5% or 0.05`, code: exitUsage},
		{args: []string{"analyze"}, err: "analyze needs at least one capture folder", code: exitUsage},
		{args: []string{"analyze", "c", "--format", "xml"}, err: `--format "xml": expected one of md, csv, json, benchfmt`, code: exitUsage},
		{args: []string{"analyze", "c", "--format", "csv", "--table", "timings"},
			want: analyzeOptions{captures: []string{"c"}, format: "csv", tables: render.Tables{Only: []string{"timings"}}, analysis: analyze.Options{SkipSeries: true}}},
		{args: []string{"analyze", "c", "--format", "csv"}, err: csvOneTable, code: exitUsage},
		{args: []string{"analyze", "c", "--format", "csv", "--table", "timings", "--table", "disk"}, err: csvOneTable, code: exitUsage},
		{args: []string{"analyze", "c", "--table", "read-amplification"}, err: `--table "read-amplification": no such table; expected one of ` + tableNames, code: exitUsage},
	}
	for _, r := range []struct {
		rounds    string
		first, to int
	}{{"3", 3, 3}, {"2-", 2, 0}, {"-4", 0, 4}, {"1-1", 1, 1}} {
		cases = append(cases, flagCase[analyzeOptions]{args: []string{"analyze", "c", "--rounds", r.rounds},
			want: analyzeOptions{captures: []string{"c"}, format: "md", flags: analyzeFlags{rounds: r.rounds},
				analysis: analyze.Options{FirstRound: r.first, LastRound: r.to, SkipSeries: true}}})
	}
	for _, r := range []string{"3-1", "0", "-0", "x", "1-2-3", "1.5"} {
		cases = append(cases, flagCase[analyzeOptions]{args: []string{"analyze", "c", "--rounds", r}, err: badRounds(r), code: exitUsage})
	}
	testFlags(t, newAnalyzeCmd, cases)
}

func TestCheckFlags(t *testing.T) {
	testFlags(t, newCheckCmd, []flagCase[checkOptions]{
		{args: []string{"check", "c"}, want: checkOptions{captures: []string{"c"}, analysis: analyze.Options{SkipSeries: true}}},
		{args: []string{"check", "c", "--strict", "--baseline", "b", "--exclude", "test=t"},
			want: checkOptions{captures: []string{"c"}, strict: true, flags: analyzeFlags{baseline: "b", exclude: []string{"test=t"}},
				analysis: analyze.Options{Baseline: "b", Exclude: []string{"test=t"}, SkipSeries: true}}},
		{args: []string{"check"}, err: "check needs at least one capture folder", code: exitUsage},
		{args: []string{"check", "c", "--rounds", "3-1"}, err: badRounds("3-1"), code: exitUsage},
		{args: []string{"check", "c", "--format", "json"}, err: "unknown flag: --format", code: exitUsage},
	})
}

func TestReportFlags(t *testing.T) {
	testFlags(t, newReportCmd, []flagCase[reportOptions]{
		{args: []string{"report"}, want: reportOptions{captures: []string{}, out: "report"}},
		{args: []string{"report", "c", "-o", "post", "-q", "--rounds", "2-5"},
			want: reportOptions{captures: []string{"c"}, out: "post", quiet: true, flags: analyzeFlags{rounds: "2-5"},
				analysis: analyze.Options{FirstRound: 2, LastRound: 5}}},
		{args: []string{"report", "--rounds", "3-1"}, err: badRounds("3-1"), code: exitUsage},
	})
}

func TestPlotFlags(t *testing.T) {
	testFlags(t, newPlotCmd, []flagCase[plotOptions]{
		{args: []string{"plot", "-o", "figs"}, want: plotOptions{captures: []string{}, out: "figs"}},
		{args: []string{"plot", "h1", "h2", "--baseline", "pg17", "-o", "figs", "--quiet"},
			want: plotOptions{captures: []string{"h1", "h2"}, out: "figs", quiet: true, flags: analyzeFlags{baseline: "pg17"},
				analysis: analyze.Options{Baseline: "pg17"}}},
		{args: []string{"plot"}, err: "plot needs -o DIR, the folder to write the figures into", code: exitUsage},
		{args: []string{"plot", "-o", "figs", "--rounds", "x"}, err: badRounds("x"), code: exitUsage},
	})
}

// TestUsageAfterReading: the usage errors found only once a file is read
// (a missing -o after the study, an exclusion or baseline the capture
// lacks) exit 2 too, on the real path and without a server.
func TestUsageAfterReading(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "study.yaml")
	if code, _, stderr := runInProcess("init", study); code != exitOK {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	code, _, stderr := runInProcess("collect", study)
	if want := regexp.MustCompile(`^pgstudy: collect needs -o DIR, the capture folder to write \(for example -o study-\d{8}-\d{6}\)\n$`); code != exitUsage || !want.MatchString(stderr) {
		t.Errorf("collect without -o: exit %d, %q", code, stderr)
	}
	out := filepath.Join(dir, "report")
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"report", "--exclude", "colour=blue", "-o", out}, `--exclude "colour=blue": unknown key "colour"; expected config, test, round, run or host`},
		{[]string{"plot", "--exclude", "config=pg16", "-o", out}, "--exclude config=pg16: the captures have no config pg16"},
		{[]string{"report", "--exclude", "run=5-3", "-o", out}, `--exclude "run=5-3": the range's first run must not be after its last`},
		{[]string{"report", "--tolerance", "5", "-o", out}, `--tolerance "5": expected a share between 0 and 1, such as 5% or 0.05`},
		{[]string{"report", "--controls", "maybe", "-o", out}, `--controls "maybe": expected auto, declared or off`},
		{[]string{"report", "--exclude", "run=40-50", "-o", out}, "--exclude run=40-50: the captures have no run 40-50 (they have 1-36)"},
		{[]string{"import", "--pattern", "{round}/{config}/{test}", dir, "-o", out}, `pattern "{round}/{config}/{test}" must name {kind}`},
	} {
		code, _, stderr := runInProcess(tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.err) {
			t.Errorf("pgstudy %s: exit %d, %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, exitUsage, tc.err)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a usage error left %s: %v", out, err)
	}
}
