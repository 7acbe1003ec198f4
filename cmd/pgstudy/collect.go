package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// collectOptions are what collect was asked to do.
type collectOptions struct {
	study  string
	out    string
	resume bool
	dryRun bool
	quiet  bool
	// leaveRunning keeps up the servers collect started.
	leaveRunning bool
	noCompact    bool
	// stop is closed at the first signal: stop after the run in progress.
	stop <-chan struct{}
}

func newCollectCmd(stop *stopper, run runFunc[collectOptions]) *cobra.Command {
	if run == nil {
		run = collectRun
	}
	o := collectOptions{stop: stop.soft}
	cmd := &cobra.Command{
		Use:   "collect STUDY -o DIR",
		Short: "Run a study and record every raw output to a capture folder",
		Long: `Run the study file STUDY on this host and record everything to DIR, a folder
of Parquet files (one sub-folder per table) that DuckDB, pandas or pgstudy
itself read as they are.

For each run: the cold-cache steps, the timed statement with its client-side
elapsed time, everything the client printed, every server notice, the plan,
WAL positions, pg_stat_wal and pg_stat_io, /proc/diskstats before, during and
after, and the probes. Per configuration and round: the version and all of
pg_settings. Once: the host's kernel, CPU, memory and block devices.

Configurations that share a server (the same DSN) are isolated: before each
run, a setting another configuration wrote with ALTER SYSTEM is put back as
found, and every declared setting is read back and recorded. At the end,
each postgresql.auto.conf pgstudy changed is put back as found, a server
that was up before the first run is up again, and a server collect started
that was down before it is stopped (--leave-running keeps it up).

Each run is on disk before the next one starts. Ctrl-C stops after the
current run (twice: at once, losing that run); --resume carries on. When the
study finishes, its parts (one per run and table) are compacted into few large
ones, as pgstudy compact does (--no-compact leaves them).`,
		Example: `  pgstudy collect study.yaml --dry-run
  pgstudy collect study.yaml -o capture/
  pgstudy collect study.yaml -o capture/ --resume   # after an interruption
  pgstudy collect study.yaml -o capture/ --quiet 2>collect.log`,
		RunE: runE(&o, armed(stop, run)),
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "capture folder to write (required unless --dry-run)")
	f.BoolVar(&o.resume, "resume", false, "carry on with the capture in --out after its last finished run")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the schedule and its total count, and exit")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "report only failed runs and warnings")
	f.BoolVar(&o.noCompact, "no-compact", false, "at the end of a study that finished, leave the capture's parts as written (one per run and table) instead of compacting them (pgstudy compact)")
	f.BoolVar(&o.leaveRunning, "leave-running", false, "at the end, leave up the servers collect started (default: stop those that were down before)")
	return cmd
}

// validate takes the arguments into o and checks them. A missing -o is
// found by collectRun, after the study: a study's own mistakes come first,
// and the message names a folder after it.
func (o *collectOptions) validate(args []string) error {
	if len(args) != 1 {
		return usageError{errors.New("collect takes one study file; `pgstudy init` writes an example")}
	}
	o.study = args[0]
	if o.resume && o.out == "" {
		return usageError{errors.New("--resume carries on the capture in -o DIR: name that folder")}
	}
	return nil
}

// collectRun loads the study and prints its schedule (--dry-run) or runs
// it, with its progress and a summary on standard error.
func collectRun(ctx context.Context, o *collectOptions, std streams) error {
	s, err := collect.LoadStudy(o.study)
	if err != nil {
		return err
	}
	items := collect.Schedule(s)
	if o.dryRun {
		return collect.PrintSchedule(std.out, s, items)
	}
	if o.out == "" {
		return usagef("collect needs -o DIR, the capture folder to write (for example -o %s)", collect.DefaultOut(o.study))
	}
	stderr := std.err
	terminal := false
	if f, ok := stderr.(*os.File); ok {
		terminal = term.IsTerminal(int(f.Fd()))
	}
	red := collect.NewRedactor(s)
	sum, err := collect.Collect(ctx, s, collect.Options{
		Out:         o.out,
		Resume:      o.resume,
		ToolVersion: toolVersion(),
		Command:     red.Text(strings.Join(os.Args, " ")),
		Progress:    collect.NewProgress(stderr, terminal, o.quiet, red),
		Stop:        o.stop,

		LeaveRunning: o.leaveRunning,
		NoCompact:    o.noCompact,
	})
	if sum != nil {
		fmt.Fprintf(stderr, "%s: %d of %d runs recorded (%d this session", sum.Dir, sum.Done, sum.Scheduled, sum.Ran)
		if sum.Failed > 0 {
			fmt.Fprintf(stderr, ", %d failed", sum.Failed)
		}
		fmt.Fprintln(stderr, ")")
		if sum.Interrupted {
			fmt.Fprintf(stderr, "stopped; carry on with: pgstudy collect %s -o %s --resume\n", o.study, o.out)
		}
	}
	return err
}
