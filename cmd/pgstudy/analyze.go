package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/spf13/cobra"
)

// analyzeFlags are the flags analyze and check share.
type analyzeFlags struct {
	baseline string
	rounds   string
	exclude  []string
}

func (f *analyzeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.baseline, "baseline", "", "configuration to compare the others with (default: the study's first)")
	cmd.Flags().StringVar(&f.rounds, "rounds", "", "rounds to analyse: N, FIRST-LAST, FIRST- or -LAST (e.g. 2-5 leaves a warm-up round out)")
	cmd.Flags().StringArrayVar(&f.exclude, "exclude", nil, "leave runs out: config=NAME, test=NAME, round=N, run=ID or host=NAME (repeatable)")
}

func (f *analyzeFlags) options() (analyze.Options, error) {
	opt := analyze.Options{Baseline: f.baseline, Exclude: f.exclude}
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

// analyzeCaptures opens the captures and analyses them.
func analyzeCaptures(paths []string, f *analyzeFlags) (*analyze.Analysis, error) {
	opt, err := f.options()
	if err != nil {
		return nil, err
	}
	var inputs []analyze.Input
	for _, p := range paths {
		r, err := samples.Open(p)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, analyze.Input{Name: p, Reader: r})
	}
	a, err := analyze.Analyze(inputs, opt)
	var oe *analyze.OptionError
	if errors.As(err, &oe) {
		return nil, usageError{err}
	}
	return a, err
}

func newAnalyzeCmd() *cobra.Command {
	var f analyzeFlags
	var format, out string
	var detail bool
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
  wal       WAL written, from the WAL positions around each run
  vacuum    VACUUM VERBOSE's figures for every round, and the differences in words
  plans     each configuration's plan: fingerprint and shape
  settings  the settings that differ between configurations
  findings  what the guards found (see pgstudy check)

With --detail, also every run (its time, disk figures, WAL, plan) and every
sampled interval within each run (the device's throughput over time).

Without -o the tables go to standard output; with -o they are written into DIR
(analysis.md, one CSV per table, or analysis.json).`,
		Example: `  pgstudy analyze capture/
  pgstudy analyze capture/ --baseline pg17 --rounds 2-5
  pgstudy analyze host1/ host2/ --format csv -o results/
  pgstudy analyze capture/ --detail --format csv -o results/   # also runs.csv, disk-series.csv
  pgstudy analyze capture/ --format json | jq '.tables[] | select(.name == "relative")'
  pgstudy analyze capture/ --exclude config=pg18-sync --exclude run=17`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("analyze needs at least one capture folder")}
			}
			if !slices.Contains(render.Formats, format) {
				return usageError{fmt.Errorf("--format %q: expected one of %s", format, strings.Join(render.Formats, ", "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := analyzeCaptures(args, &f)
			if err != nil {
				return err
			}
			if out == "" {
				return render.Analysis(cmd.OutOrStdout(), format, a, detail)
			}
			files, notes, err := render.AnalysisDir(out, args, format, a, detail)
			for _, file := range files {
				fmt.Fprintln(cmd.ErrOrStderr(), file)
			}
			printNotes(cmd.ErrOrStderr(), notes)
			return err
		},
	}
	f.add(cmd)
	cmd.Flags().StringVar(&format, "format", "md", "md, csv or json")
	cmd.Flags().BoolVar(&detail, "detail", false, "add the tables of every run and of every sampled interval")
	cmd.Flags().StringVarP(&out, "out", "o", "", "folder to write the tables into (default: standard output)")
	return cmd
}

// errFindings is check's failure: the guards found errors.
var errFindings = errors.New("the guards found errors")

func newCheckCmd() *cobra.Command {
	var f analyzeFlags
	var strict bool
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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{errors.New("check needs at least one capture folder")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := analyzeCaptures(args, &f)
			if err != nil {
				return err
			}
			failed := printFindings(cmd.OutOrStdout(), a, strict)
			if failed > 0 {
				return fmt.Errorf("%w: %d finding(s) of %s level", errFindings, failed, map[bool]string{true: "warning or error", false: "error"}[strict])
			}
			return nil
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on warnings too")
	return cmd
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
