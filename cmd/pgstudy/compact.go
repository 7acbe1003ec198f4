package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/samples"
	"github.com/spf13/cobra"
)

// compactOptions are what compact was asked to do.
type compactOptions struct {
	captures []string
	fleet    string // publish into this fleet folder too
	host     string // the fleet's host= name (default: the capture's hostname)
	study    string // the fleet's study= name (default: the study file's name)
}

func newCompactCmd(run runFunc[compactOptions]) *cobra.Command {
	if run == nil {
		run = compactRun
	}
	var o compactOptions
	cmd := &cobra.Command{
		Use:   "compact CAPTURE... [--fleet DIR [--host NAME] [--study NAME]]",
		Short: "Merge a capture's per-run parts into few large ones, and publish it to a fleet",
		Long: `Merge the parts of each table of a capture (collect writes one per run, so
that a run is on disk before the next starts) into parts of up to 32 MiB of
data, named rFIRST-LAST.parquet after the runs they hold, with row groups of
up to 122,880 rows. Rows keep their order and every value; the analysis of a
capture is the same before and after. pgstudy collect compacts at the end of
a study that finished (--no-compact skips it).

Compact holds the capture's lock (a capture in use by collect or another
pgstudy is refused) and is safe to kill at any point: every table's new
part of a group of runs is written to a temporary file and synced, then all
are renamed into place, the runs part last, and only then are the parts
they replace removed; pgstudy counts the old parts or the new ones, never
both. Ctrl-C or SIGTERM stops it between two groups, the group in progress
done whole (exit 130 or 143; compact again to go on). A capture of another
format, or one holding files pgstudy does not write, is refused with
nothing changed.

With --fleet DIR, the compacted capture is also published into DIR in the
fleet layout, one Hive-style partition per host and study:

  DIR/<table>/host=<host>/study=<study>/<part>.parquet

which DuckDB, Spark, Trino and ClickHouse read as they are, and pgstudy
analyze reads as one capture per partition (docs/CAPTURE.md). Parts are
linked into the fleet where it is on the same file system, copied where not;
publishing a host and study again replaces its partitions.`,
		Example: `  pgstudy compact capture/
  pgstudy compact capture/ --fleet fleet/ --host db1 --study io-method
  pgstudy analyze fleet/                   # every host and study of the fleet
  pgstudy analyze fleet/study=io-method    # one study, every host`,
		RunE: runE(&o, run),
	}
	f := cmd.Flags()
	f.StringVar(&o.fleet, "fleet", "", "also publish the capture into this fleet folder (Hive-style partitions host=, study=)")
	f.StringVar(&o.host, "host", "", "the host's name in the fleet (default: the hostname the capture recorded)")
	f.StringVar(&o.study, "study", "", "the study's name in the fleet (default: the study file's name without its extension)")
	return cmd
}

func (o *compactOptions) validate(args []string) error {
	if len(args) == 0 {
		return usagef("compact needs a capture folder")
	}
	o.captures = args
	if o.fleet == "" && (o.host != "" || o.study != "") {
		return usagef("--host and --study name a capture's partition in a fleet: give --fleet DIR too")
	}
	if o.fleet != "" && len(args) > 1 {
		return usagef("--fleet publishes one capture at a time (it is one host's partition); give one capture")
	}
	for _, name := range []string{o.host, o.study} {
		if name != "" {
			if err := samples.CheckFleetName(name); err != nil {
				return usageError{err}
			}
		}
	}
	return nil
}

func compactRun(ctx context.Context, o *compactOptions, std streams) error {
	var errs []error
	for _, dir := range o.captures {
		if o.fleet != "" {
			// Refused before the capture is compacted, not after.
			if err := samples.CheckPublish(dir, o.fleet, o.host, o.study); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		release := holdSignals(ctx)
		sum, err := samples.Compact(dir, samples.CompactOptions{Stop: func() bool { return ctx.Err() != nil }})
		release()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		printCompact(std.err, dir, sum)
		if sum.Stopped {
			// A signal: the groups done are compacted, the others as
			// they were; the command ends with the signal's code.
			return errors.Join(append(errs, ctx.Err())...)
		}
		if o.fleet != "" {
			if err := factsBeforePublish(ctx, dir, std.err); err != nil {
				errs = append(errs, err)
				continue
			}
			p, err := samples.Publish(dir, o.fleet, o.host, o.study)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			fmt.Fprintf(std.err, "%s: published as %s (%d files)\n", dir, p.Dir, p.Files)
			if p.Replaced > 0 {
				fmt.Fprintf(std.err, "%s: replaced the %d files published before as host=%s, study=%s\n", dir, p.Replaced, p.Host, p.Study)
			}
		}
	}
	return errors.Join(errs...)
}

// factsBeforePublish computes and stores the capture's facts where they
// are not stored or not current (a capture made before facts, or by an
// older pgstudy), so that the fleet has them: an analysis of a fleet
// never stores them, and would compute them again each time. Where they
// cannot be stored (a capture read only), the capture is published
// without them, and the user is told what that costs.
func factsBeforePublish(ctx context.Context, dir string, w io.Writer) error {
	r, err := samples.Open(dir)
	if err != nil {
		return err
	}
	note := func(msg string) { fmt.Fprintln(w, "pgstudy:", terminalSafe(msg)) }
	a, err := analyze.FactsOf(analyze.Input{Name: dir, Reader: r}, note)
	if err != nil {
		return err
	}
	if !storeFacts(ctx, a) && ctx.Err() == nil {
		note(dir + ": is published without the facts of some of its runs: each analysis of the fleet computes them from the raw text; " +
			"store them (pgstudy analyze " + dir + "), then publish it again")
	}
	return ctx.Err()
}

// printCompact says what a compaction did.
func printCompact(w io.Writer, dir string, s *samples.CompactSummary) {
	switch {
	case s.Stopped:
		groups := fmt.Sprintf("%d groups", s.Groups)
		if s.Groups == 1 {
			groups = "1 group"
		}
		fmt.Fprintf(w, "%s: stopped by a signal after %s of runs, each compacted whole; the other runs' parts are as they were (%d files, %s, before; %d, %s, now): compact again to go on",
			dir, groups, s.FilesBefore, mib(s.BytesBefore), s.FilesAfter, mib(s.BytesAfter))
	case s.Groups == 0:
		fmt.Fprintf(w, "%s: already compact (%d files, %s)", dir, s.FilesAfter, mib(s.BytesAfter))
	default:
		fmt.Fprintf(w, "%s: %d files (%s) compacted into %d (%s)", dir, s.FilesBefore, mib(s.BytesBefore), s.FilesAfter, mib(s.BytesAfter))
	}
	if s.Leftovers > 0 {
		fmt.Fprintf(w, "; %d leftover files of an interrupted collect, compact or store of facts removed", s.Leftovers)
	}
	if s.FactsStale > 0 {
		fmt.Fprintf(w, "; the facts of %d of the parts merged were not current (an older capture): the next analysis computes them", s.FactsStale)
	}
	fmt.Fprintln(w)
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
