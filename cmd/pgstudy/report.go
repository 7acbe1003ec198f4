package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/samples/outdir"
	"github.com/spf13/cobra"
)

// reportInputs analyses the captures named, or the embedded sample when
// none is.
func reportInputs(args []string, opt analyze.Options) (*analyze.Analysis, error) {
	if len(args) > 0 {
		return analyzeCaptures(args, opt)
	}
	a, err := analyze.Example(opt)
	var oe *analyze.OptionError
	if errors.As(err, &oe) {
		return nil, usageError{err}
	}
	return a, err
}

// progressTo prints progress lines to w unless quiet.
func progressTo(w io.Writer, quiet bool) func(string) {
	if quiet {
		return nil
	}
	return func(s string) { fmt.Fprintln(w, s) }
}

// reportOptions are the captures to report on (none: the embedded
// sample) and the folder to write.
type reportOptions struct {
	captures []string
	flags    analyzeFlags
	analysis analyze.Options // from flags
	out      string
	html     bool
	quiet    bool
}

func newReportCmd(run runFunc[reportOptions]) *cobra.Command {
	if run == nil {
		run = reportRun
	}
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report [CAPTURE...] [-o DIR] [--html]",
		Short: "Write the report of a study: report.md (and report.html), figures and tables",
		Long: `Write a report folder for one or more captures:

  report.md   how the numbers were measured (host, CPU, memory, disk and its queue
              settings, versions, the settings that differ, rounds, order, cold-cache
              steps, client), what the guards found, the results with their figures
              and captions, and every table
  figures/    each figure as SVG and PNG
  tables/     each table as CSV
  report.html with --html: the same report as report.md in one file to open in a
              browser or send on: figures inline (as SVG data: URIs), style inline,
              no script, nothing fetched from the network; it fits a phone's
              screen and prints

The same capture gives the same bytes in every file, so a post's figures can be
regenerated and compared. With no capture named, the sample capture embedded in
pgstudy is used (PostgreSQL 17 against 18 on one small machine: see
samples/example; its numbers are not a general claim).`,
		Example: `  pgstudy report -o report                 # the embedded sample
  pgstudy report capture/ -o post/
  pgstudy report capture/ -o post/ --html  # post/report.html too
  pgstudy report capture/ --baseline pg17 --rounds 2-5 -o post/`,
		RunE: runE(&o, run),
	}
	o.flags.add(cmd)
	cmd.Flags().StringVarP(&o.out, "out", "o", "report", "folder to write the report into")
	cmd.Flags().BoolVar(&o.html, "html", false, "write report.html too: the whole report in one self-contained file")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print nothing but errors")
	return cmd
}

// validate takes the arguments into o and checks them.
func (o *reportOptions) validate(args []string) error {
	o.captures = args
	var err error
	o.analysis, err = o.flags.options()
	return err
}

// reportRun analyses the captures and writes the report folder, with its
// progress on standard error unless quiet.
func reportRun(ctx context.Context, o *reportOptions, std streams) error {
	if err := outdir.Check(o.out, outdir.Report, o.captures); err != nil {
		return err
	}
	a, err := reportInputs(o.captures, o.analysis)
	if err != nil {
		return err
	}
	files, notes, err := render.Report(o.out, o.captures, a, render.ReportOptions{HTML: o.html, Progress: progressTo(std.err, o.quiet)})
	if err != nil {
		return err
	}
	storeFacts(ctx, a)
	printNotes(std.err, notes)
	open := "report.md"
	if o.html {
		open = "report.html"
	}
	if !o.quiet {
		fmt.Fprintf(std.err, "%s: %d files; open %s\n", o.out, len(files), filepath.Join(o.out, open))
	}
	return nil
}

// plotOptions are the captures to draw (none: the embedded sample) and
// the folder to draw them into.
type plotOptions struct {
	captures []string
	flags    analyzeFlags
	analysis analyze.Options // from flags
	out      string
	quiet    bool
}

func newPlotCmd(run runFunc[plotOptions]) *cobra.Command {
	if run == nil {
		run = plotRun
	}
	var o plotOptions
	cmd := &cobra.Command{
		Use:   "plot [CAPTURE...] -o DIR",
		Short: "Draw the figures of one or more captures, as SVG and PNG",
		Long: `Draw every figure the captures support into DIR, each as SVG and PNG, and print
each figure's caption. The same capture gives the same bytes. With no capture
named, the embedded sample capture is used.`,
		Example: `  pgstudy plot capture/ -o figures/
  pgstudy plot host1/ host2/ --baseline pg17 -o figures/`,
		RunE: runE(&o, run),
	}
	o.flags.add(cmd)
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "folder to write the figures into")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print nothing but errors")
	return cmd
}

// validate takes the arguments into o and checks them.
func (o *plotOptions) validate(args []string) error {
	if o.out == "" {
		return usageError{errors.New("plot needs -o DIR, the folder to write the figures into")}
	}
	o.captures = args
	var err error
	o.analysis, err = o.flags.options()
	return err
}

// plotRun analyses the captures, draws their figures into the folder and
// prints each figure's caption.
func plotRun(ctx context.Context, o *plotOptions, std streams) error {
	if err := outdir.Check(o.out, outdir.Figures, o.captures); err != nil {
		return err
	}
	a, err := reportInputs(o.captures, o.analysis)
	if err != nil {
		return err
	}
	figs := render.Figures(a)
	_, notes, err := render.FiguresDir(o.out, o.captures, figs, progressTo(std.err, o.quiet))
	if err != nil {
		return err
	}
	storeFacts(ctx, a)
	printNotes(std.err, notes)
	for _, fig := range figs {
		fmt.Fprintf(std.out, "%s.svg  %s\n", filepath.Join(o.out, fig.Name), render.PlainText(fig.Caption))
	}
	return nil
}

// printNotes prints what a writer of an output folder wants the user to
// know (a previous folder kept, leftovers of a stopped run).
func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintf(w, "pgstudy: note: %s\n", terminalSafe(n))
	}
}
