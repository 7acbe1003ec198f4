package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/render"
	"github.com/spf13/cobra"
)

// compareOptions are the two sides and how to write their comparison.
type compareOptions struct {
	old, new             string
	oldConfig, newConfig string
	flags                analyzeFlags
	analysis             analyze.Options
	format               string
	table                string
}

func newCompareCmd(run runFunc[compareOptions]) *cobra.Command {
	if run == nil {
		run = compareRun
	}
	var o compareOptions
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two captures, or two configurations, as benchstat compares two files",
		Long: `Set the NEW capture against the OLD one, test by test and configuration by
configuration (those both have): each side's median with its 95% interval, the
change with its interval and the Mann-Whitney p-value (Holm-corrected over the
rows), "~" where it is not significant, and the geometric mean of the changes.
These are the statistics pgstudy analyze uses against a baseline, and
benchstat's. Throughput tests are compared on queries per second.

OLD and NEW are capture folders: before and after a fix, two hosts, last month's
run. With --old-config and --new-config, one configuration of each side is
compared with the other's, so that OLD and NEW may be the same capture: two
configurations side by side.

What each side's guards found is printed below the table, and what differs
between the two setups (host, kernel, CPU, server version) above it. The rows,
the findings and the metadata are also written as CSV (one table, --table) and
JSON, by the export contract of docs/EXPORT.md.`,
		Example: `  pgstudy compare before/ after/
  pgstudy compare host1/ host2/ --format md
  pgstudy compare capture/ capture/ --old-config pg17 --new-config pg18
  pgstudy compare before/ after/ --format csv --table compare_timings > timings.csv
  pgstudy compare before/ after/ --rounds 2- --exclude test=warmup`,
		RunE: runE(&o, run),
	}
	o.flags.add(cmd)
	cmd.Flags().StringVar(&o.format, "format", "text", strings.Join(render.CompareFormats, ", "))
	cmd.Flags().StringVar(&o.table, "table", "", "with --format csv: compare_timings, compare_throughput or compare_findings")
	cmd.Flags().StringVar(&o.oldConfig, "old-config", "", "compare this configuration of OLD (with --new-config)")
	cmd.Flags().StringVar(&o.newConfig, "new-config", "", "with this configuration of NEW")
	return cmd
}

func (o *compareOptions) validate(args []string) error {
	if len(args) != 2 {
		return usageError{errors.New("compare needs two capture folders: OLD NEW")}
	}
	if !slices.Contains(render.CompareFormats, o.format) {
		return usagef("--format %q: expected one of %s", o.format, strings.Join(render.CompareFormats, ", "))
	}
	var names []string
	for _, t := range analyze.EveryCompareTable() {
		names = append(names, t.Name)
	}
	if o.format == "csv" && !slices.Contains(names, o.table) {
		return usagef("CSV holds one table: add --table NAME (one of %s)", strings.Join(names, ", "))
	}
	if (o.oldConfig == "") != (o.newConfig == "") {
		return usagef("--old-config and --new-config go together")
	}
	if o.baselineGiven() {
		return usagef("--baseline does not apply to compare: OLD is the base")
	}
	o.old, o.new = args[0], args[1]
	var err error
	o.analysis, err = o.flags.options()
	return err
}

func (o *compareOptions) baselineGiven() bool { return o.flags.baseline != "" }

func compareRun(ctx context.Context, o *compareOptions, std streams) error {
	var sides [2]analyze.Side
	for i, s := range []struct{ path, name, config string }{{o.old, "old", o.oldConfig}, {o.new, "new", o.newConfig}} {
		a, err := analyzeCaptures([]string{s.path}, o.analysis)
		if err != nil {
			return err
		}
		name := s.name
		if o.oldConfig != "" && o.old == o.new {
			name = s.config // two configurations of one capture
		}
		sides[i] = analyze.Side{Name: name, A: a, Config: s.config}
	}
	c, err := analyze.Compare(sides[0], sides[1], o.analysis)
	var oe *analyze.OptionError
	if errors.As(err, &oe) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if len(c.Rows) == 0 {
		return fmt.Errorf("nothing to compare: no test and configuration of %s has runs that went well on both sides (only in %s: %v; only in %s: %v; not compared: %v)",
			o.old+" and "+o.new, sides[0].Name, c.OnlyOld, sides[1].Name, c.OnlyNew, c.NotCompared)
	}
	if err := render.Comparison(std.out, o.format, o.table, c); err != nil {
		return fmt.Errorf("write the comparison: %w", err)
	}
	for _, s := range sides {
		storeFacts(ctx, s.A)
	}
	return nil
}
