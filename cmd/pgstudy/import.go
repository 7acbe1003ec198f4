package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/spf13/cobra"
)

// importOptions are what import was asked to do.
type importOptions struct {
	source  string // the manifest, or with pattern the folder
	pattern string
	out     string
	// stop is closed at the first signal: stop, leaving nothing.
	stop <-chan struct{}
}

func newImportCmd(stop *stopper, run runFunc[importOptions]) *cobra.Command {
	if run == nil {
		run = importRun
	}
	o := importOptions{stop: stop.soft}
	cmd := &cobra.Command{
		Use:   "import (MANIFEST.csv | --pattern PATTERN FOLDER) -o DIR",
		Short: "Turn hand-captured logs into a capture",
		Long: `Turn files captured by hand before pgstudy existed (psql logs, EXPLAIN output,
copies of /proc/diskstats, pg_settings dumps) into a capture folder that analysis
reads like one made by collect.

A manifest is CSV with the header round,position,config,test,kind,path and an
optional started_at column (RFC 3339); its paths are relative to its folder.
Without a manifest, --pattern names where each field sits in the files' paths.

Kinds: ` + strings.Join(collect.ImportKinds, ", ") + `.
  psql              psql output of the timed statement, \timing on
  vacuum            psql output of a VACUUM (VERBOSE), timing included
  explain-json/text the plan
  diskstats-before  a copy of /proc/diskstats just before the timed statement
  diskstats-after   ... and just after
  settings          name, setting, unit, source (tab or | separated) of pg_settings,
                    per configuration and round (test left empty)
  attachment        anything else, kept verbatim`,
		Example: `  pgstudy import runs/manifest.csv -o capture/
  pgstudy import --pattern 'round{round}/{config}/{test}/{kind}.out' runs/ -o capture/

  # manifest.csv
  round,position,config,test,kind,path
  1,1,pg17,seqscan,psql,r1/pg17/seqscan.out
  1,1,pg17,seqscan,diskstats-before,r1/pg17/seqscan.before
  1,1,pg17,,settings,r1/pg17/settings.tsv`,
		RunE: runE(&o, armed(stop, run)),
	}
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "capture folder to write")
	cmd.Flags().StringVar(&o.pattern, "pattern", "", "where round, position, config, test and kind sit in the files' paths")
	return cmd
}

// validate takes the arguments into o and checks them. Whether a pattern
// is well formed is for collect to say (ErrBadPattern).
func (o *importOptions) validate(args []string) error {
	if len(args) != 1 {
		return usageError{errors.New("import takes one manifest, or one folder with --pattern")}
	}
	if o.out == "" {
		return usageError{errors.New("import needs -o DIR, the capture folder to write")}
	}
	o.source = args[0]
	if o.pattern == "" {
		if st, err := os.Stat(o.source); err == nil && st.IsDir() {
			return usagef("%s is a folder: name a manifest, or give --pattern", o.source)
		}
	}
	return nil
}

// importRun imports the manifest, or the folder's files by the pattern,
// into a new capture: whole or not at all.
func importRun(_ context.Context, o *importOptions, std streams) error {
	opt := collect.ImportOptions{Out: o.out, ToolVersion: toolVersion(), Command: strings.Join(os.Args, " "), Stop: o.stop}
	var sum *collect.ImportSummary
	var err error
	if o.pattern != "" {
		sum, err = collect.ImportPattern(o.source, o.pattern, opt)
		if errors.Is(err, collect.ErrBadPattern) {
			return usageError{err}
		}
	} else {
		sum, err = collect.ImportManifest(o.source, opt)
	}
	if errors.Is(err, collect.ErrInterrupted) {
		fmt.Fprintf(std.err, "pgstudy: %v; nothing is left at %s (an import is whole or nothing)\n", err, o.out)
	}
	if sum != nil {
		fmt.Fprintf(std.err, "%s: %d runs from %d files\n", sum.Dir, sum.Runs, sum.Files)
		printNotes(std.err, sum.Notes)
	}
	return err
}
