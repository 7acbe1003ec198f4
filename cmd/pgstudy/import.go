package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/spf13/cobra"
)

func newImportCmd(stop *stopper) *cobra.Command {
	var out, pattern string
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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{errors.New("import takes one manifest, or one folder with --pattern")}
			}
			if out == "" {
				return usageError{errors.New("import needs -o DIR, the capture folder to write")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opt := collect.ImportOptions{Out: out, ToolVersion: toolVersion(), Command: strings.Join(os.Args, " "), Stop: stop.soft}
			var sum *collect.ImportSummary
			var err error
			if pattern != "" {
				sum, err = collect.ImportPattern(args[0], pattern, opt)
				if errors.Is(err, collect.ErrBadPattern) {
					return usageError{err}
				}
			} else {
				if st, serr := os.Stat(args[0]); serr == nil && st.IsDir() {
					return usageError{fmt.Errorf("%s is a folder: name a manifest, or give --pattern", args[0])}
				}
				sum, err = collect.ImportManifest(args[0], opt)
			}
			if errors.Is(err, collect.ErrInterrupted) {
				fmt.Fprintf(cmd.ErrOrStderr(), "pgstudy: %v; nothing is left at %s (an import is whole or nothing)\n", err, out)
			}
			if sum != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d runs from %d files\n", sum.Dir, sum.Runs, sum.Files)
				printNotes(cmd.ErrOrStderr(), sum.Notes)
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "capture folder to write")
	cmd.Flags().StringVar(&pattern, "pattern", "", "where round, position, config, test and kind sit in the files' paths")
	return cmd
}
