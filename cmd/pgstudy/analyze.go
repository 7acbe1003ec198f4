package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/outdir"
	"github.com/spf13/cobra"
)

// analyzeFlags are the flags analyze, check, report and plot share: which
// runs to analyse, and the baseline.
type analyzeFlags struct {
	baseline  string
	rounds    string
	exclude   []string
	tolerance string
	controls  string
	reparse   bool
}

func (f *analyzeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.baseline, "baseline", "", "configuration to compare the others with (default: the study's first)")
	cmd.Flags().StringVar(&f.rounds, "rounds", "", "rounds to analyse: N, FIRST-LAST, FIRST- or -LAST (e.g. 2-5 leaves a warm-up round out)")
	cmd.Flags().StringVar(&f.tolerance, "tolerance", "", "the smallest difference that matters: what the rounds needed are computed to find, and the margin of equivalence, as 5% or 0.05 (default 5%)")
	cmd.Flags().StringVar(&f.controls, "controls", "", "copies of one setup compared as A/A pairs: auto (declared same_as, and configurations identical in everything the capture shows), declared, or off (default auto)")
	cmd.Flags().BoolVar(&f.reparse, "reparse", false, "compute every run's facts again from the raw text (and store them beside it), as for a capture made before facts or by an older pgstudy")
	cmd.Flags().StringArrayVar(&f.exclude, "exclude", nil, "leave runs out: config=NAME, test=NAME, round=N, run=ID (or a range FIRST-LAST of either) or host=NAME (repeatable)")
}

// options are the flags as the analysis takes them; a bad --rounds is a
// usage error. Whether a baseline or an exclusion names something of the
// captures is for the analysis to say.
func (f *analyzeFlags) options() (analyze.Options, error) {
	opt := analyze.Options{Baseline: f.baseline, Exclude: f.exclude, Controls: f.controls, Reparse: f.reparse}
	if f.tolerance != "" {
		v, pct := strings.CutSuffix(strings.TrimSpace(f.tolerance), "%")
		t, err := strconv.ParseFloat(v, 64)
		if pct {
			t /= 100
		}
		if err != nil || !(t > 0 && t < 1) {
			return opt, usageError{fmt.Errorf("--tolerance %q: expected a share between 0 and 1, such as 5%% or 0.05", f.tolerance)}
		}
		opt.Tolerance = t
	}
	if f.rounds != "" {
		lo, hi, ok := strings.Cut(f.rounds, "-")
		if !ok {
			hi = lo
		}
		var err error
		if lo != "" {
			if opt.FirstRound, err = strconv.Atoi(lo); err != nil || opt.FirstRound < 1 {
				return opt, usageError{fmt.Errorf("--rounds %q: expected N, FIRST-LAST, FIRST- or -LAST with rounds from 1", f.rounds)}
			}
		}
		if hi != "" {
			if opt.LastRound, err = strconv.Atoi(hi); err != nil || opt.LastRound < 1 || (opt.FirstRound > 0 && opt.LastRound < opt.FirstRound) {
				return opt, usageError{fmt.Errorf("--rounds %q: expected N, FIRST-LAST, FIRST- or -LAST with rounds from 1", f.rounds)}
			}
		}
	}
	return opt, nil
}

// analyzeCaptures opens the captures and analyses them. The facts the
// analysis computed from raw text wait for the command to store them
// (Analysis.StoreFacts) once its output is written: a command that fails
// leaves the captures as they were.
func analyzeCaptures(paths []string, opt analyze.Options) (*analyze.Analysis, error) {
	var inputs []analyze.Input
	for _, p := range paths {
		in, err := openInputs(p)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, in...)
	}
	if opt.Note == nil {
		opt.Note = func(msg string) { fmt.Fprintln(os.Stderr, "pgstudy:", terminalSafe(msg)) }
	}
	a, err := analyze.Analyze(inputs, opt)
	var oe *analyze.OptionError
	if errors.As(err, &oe) {
		return nil, usageError{err}
	}
	return a, err
}

// openInputs opens a capture, or each capture of a fleet (or of part of
// one: FLEET/study=NAME), as a host of its own named by its partition.
func openInputs(p string) ([]analyze.Input, error) {
	fleet, parts, ok, err := samples.FleetArg(p)
	if err != nil {
		return nil, err
	}
	if !ok {
		r, err := samples.Open(p)
		if err != nil {
			return nil, err
		}
		return []analyze.Input{{Name: p, Reader: r}}, nil
	}
	var inputs []analyze.Input
	for _, part := range parts {
		r, err := samples.OpenPartition(fleet, part)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, analyze.Input{Name: r.Dir(), Reader: r, Host: part.Host})
	}
	return inputs, nil
}

// analyzeOptions are the captures to analyse and how to write the tables.
type analyzeOptions struct {
	captures []string
	flags    analyzeFlags
	analysis analyze.Options // from flags
	format   string
	out      string // a folder; standard output when empty
	tables   render.Tables
}

func newAnalyzeCmd(run runFunc[analyzeOptions]) *cobra.Command {
	if run == nil {
		run = analyzeRun
	}
	var o analyzeOptions
	cmd := &cobra.Command{
		Use:   "analyze CAPTURE... [-o DIR]",
		Short: "Compute the result tables of one or more captures",
		Long: `Read one or more captures (made by collect or import; several hosts of a fleet
get a host column) and compute, per test and configuration:

  timings   n, median, its 95% interval (order statistics), min, max, IQR, every
            round; the ratio of medians to the baseline with its 95% interval and
            a Mann-Whitney p-value, Holm-corrected over tests (~ = not significant)
  relative  tests as rows, configurations as columns, ratios to the baseline
  disk      iostat -x's figures over each timed statement (reads, request size,
            r/s, MiB/s, await, aqu-sz, %util), medians over rounds
  read_amplification
            the device's bytes read against PostgreSQL's (pg_stat_io), with read_ahead_kb
  wal       WAL written by source, side by side: the statement's own (VACUUM VERBOSE)
            and the server's (pg_stat_wal, the WAL insert position)
  vacuum    VACUUM VERBOSE's figures for every round, and the differences in words
  plans     each configuration's plan: fingerprint and shape
  settings  the settings that differ between configurations
  findings  what the guards found (see pgstudy check)

With --detail, also every run (its time, disk figures, WAL, plan) and every
sampled interval within each run (the device's throughput over time).

Without -o the tables go to standard output; with -o they are written into DIR
(analysis.md, one CSV per table, or analysis.json). CSV on standard output is
one table, chosen with --table.

CSV and JSON follow the export contract (docs/EXPORT.md): long tables, snake_case
keys, base units named in the key (bytes, ms, s), numbers as numbers, null (an
empty CSV field) for unknown, lists as JSON arrays, a host column always, and a
schema_version; pgstudy schema export prints the JSON Schema.`,
		Example: `  pgstudy analyze capture/
  pgstudy analyze capture/ --baseline pg17 --rounds 2-5
  pgstudy analyze host1/ host2/ --format csv -o results/
  pgstudy analyze capture/ --detail --format csv -o results/   # also runs.csv, disk_series.csv
  pgstudy analyze capture/ --format csv --table timings > timings.csv
  pgstudy analyze capture/ --format json | jq '.tables[] | select(.name == "relative")'
  pgstudy analyze capture/ --format benchfmt > runs.txt && benchstat -col /config -row /test runs.txt
  pgstudy analyze capture/ --exclude config=pg18-sync --exclude run=17 --exclude run=30-36`,
		RunE: runE(&o, run),
	}
	o.flags.add(cmd)
	cmd.Flags().StringVar(&o.format, "format", "md", "md, csv, json, or benchfmt (every run as a Go benchmark line, for benchstat)")
	cmd.Flags().BoolVar(&o.tables.Detail, "detail", false, "add the tables of every run and of every sampled interval")
	cmd.Flags().StringArrayVar(&o.tables.Only, "table", nil, "write only this table, even if empty (repeatable; CSV on standard output needs exactly one): "+strings.Join(render.TableNames(), ", "))
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "folder to write the tables into (default: standard output)")
	return cmd
}

// validate takes the arguments into o and checks them.
func (o *analyzeOptions) validate(args []string) error {
	if len(args) == 0 {
		return usageError{errors.New("analyze needs at least one capture folder")}
	}
	if !slices.Contains(render.Formats, o.format) {
		return usagef("--format %q: expected one of %s", o.format, strings.Join(render.Formats, ", "))
	}
	if err := render.CheckTables(o.tables, o.format, o.out == ""); err != nil {
		return usageError{err}
	}
	o.captures = args
	var err error
	o.analysis, err = o.flags.options()
	o.analysis.SkipSeries = !o.tables.Detail // the series are only in the detail tables
	return err
}

// analyzeRun analyses the captures and writes the tables to standard
// output, or into a folder with the names of the files on standard error.
func analyzeRun(ctx context.Context, o *analyzeOptions, std streams) error {
	if o.out != "" {
		if err := outdir.Check(o.out, outdir.Analysis, o.captures); err != nil {
			return err
		}
	}
	a, err := analyzeCaptures(o.captures, o.analysis)
	if err != nil {
		return err
	}
	if o.out == "" {
		if err := render.Analysis(std.out, o.format, a, o.tables); err != nil {
			return err
		}
		storeFacts(ctx, a)
		return nil
	}
	files, notes, err := render.AnalysisDir(o.out, o.captures, o.format, a, o.tables)
	for _, file := range files {
		fmt.Fprintln(std.err, file)
	}
	printNotes(std.err, notes)
	if err != nil {
		return err
	}
	storeFacts(ctx, a)
	return nil
}

// errFindings is check's failure: the guards found errors.
var errFindings = errors.New("the guards found errors")

// checkOptions are the captures to check and how strictly.
type checkOptions struct {
	captures []string
	flags    analyzeFlags
	analysis analyze.Options // from flags
	strict   bool
}

func newCheckCmd(run runFunc[checkOptions]) *cobra.Command {
	if run == nil {
		run = checkRun
	}
	var o checkOptions
	var lines []string
	for _, g := range analyze.Guards {
		lines = append(lines, fmt.Sprintf("  %-14s %s", g.Name, g.What))
	}
	cmd := &cobra.Command{
		Use:   "check CAPTURE...",
		Short: "Run the guards and fail when a capture cannot support its comparison",
		Long: `Run the analysis's guards over one or more captures and print what they found,
most severe first. Exit status 1 when any error-level finding fires (with
--strict, any warning too), so that a benchmark pipeline stops on a bad study.

Guards:
` + strings.Join(lines, "\n"),
		Example: `  pgstudy check capture/
  pgstudy check capture/ --strict && pgstudy analyze capture/ -o results/`,
		RunE: runE(&o, run),
	}
	o.flags.add(cmd)
	cmd.Flags().BoolVar(&o.strict, "strict", false, "fail on warnings too")
	return cmd
}

// validate takes the arguments into o and checks them.
func (o *checkOptions) validate(args []string) error {
	if len(args) == 0 {
		return usageError{errors.New("check needs at least one capture folder")}
	}
	o.captures = args
	var err error
	o.analysis, err = o.flags.options()
	o.analysis.SkipSeries = true // check shows the findings alone
	return err
}

// checkRun prints what the guards found, and fails when any of them
// fails the check.
func checkRun(ctx context.Context, o *checkOptions, std streams) error {
	a, err := analyzeCaptures(o.captures, o.analysis)
	if err != nil {
		return err
	}
	failed := printFindings(std.out, a, o.strict)
	storeFacts(ctx, a)
	if failed > 0 {
		return fmt.Errorf("%w: %d finding(s) of %s level", errFindings, failed, map[bool]string{true: "warning or error", false: "error"}[o.strict])
	}
	return nil
}

// printFindings writes the findings for a terminal and returns how many
// fail the check.
func printFindings(w io.Writer, a *analyze.Analysis, strict bool) int {
	count := map[analyze.Severity]int{}
	for _, fd := range a.Findings {
		count[fd.Severity]++
		where := strings.Join(slices.DeleteFunc([]string{fd.Host, fd.Test, fd.Config}, func(s string) bool { return s == "" || len(a.Hosts) < 2 && s == fd.Host }), " / ")
		if where != "" {
			where = " [" + where + "]"
		}
		fmt.Fprintf(w, "%-7s %s%s: %s\n", fd.Severity, fd.Guard, render.PlainText(where), render.PlainText(fd.Message))
	}
	fmt.Fprintf(w, "%d runs checked: %d error(s), %d warning(s), %d note(s)\n", len(a.Runs), count[analyze.Error], count[analyze.Warning], count[analyze.Info])
	if strict {
		return count[analyze.Error] + count[analyze.Warning]
	}
	return count[analyze.Error]
}
