package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/samples/outdir"
	"github.com/spf13/cobra"
)

func newInitCmd() *cobra.Command {
	var force bool
	var template string
	cmd := &cobra.Command{
		Use:   "init [FILE] [--template cold|throughput|sweep]",
		Short: "Write a commented example study file",
		Long: `Write a commented example study to FILE (default study.yaml), or to standard
output when FILE is -. The example is the design of a published cold-cache
comparison of PostgreSQL 17 and 18: four configurations, three tests (a
sequential scan, a bitmap heap scan, a vacuum after a 5% update), five rounds.

--template throughput writes a throughput study instead (pgbench and sysbench
for minutes per configuration, relative QPS and the hardware cost per query);
--template sweep an io_method x effective_io_concurrency sweep of a cold scan.`,
		Example: `  pgstudy init                  # writes study.yaml
  pgstudy init pg18.yaml
  pgstudy init qps.yaml --template throughput
  pgstudy init sweep.yaml --template sweep
  pgstudy init - | less`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, ok := collect.Templates[template]
			if !ok {
				return usageError{fmt.Errorf("--template %q: expected one of %s", template, strings.Join(collect.TemplateNames, ", "))}
			}
			path := "study.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			if path == "-" {
				_, err := cmd.OutOrStdout().Write(text)
				return err
			}
			if err := outdir.CheckPlace(path, nil); err != nil {
				return err
			}
			flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
			if force {
				flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			}
			f, err := os.OpenFile(path, flags, 0o644)
			if errors.Is(err, fs.ErrExist) {
				return usageError{fmt.Errorf("%s exists; use --force to overwrite it", path)}
			}
			if err != nil {
				return err
			}
			if _, err := f.Write(text); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s; edit its configurations, then: pgstudy collect %s --dry-run\n", path, path)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&force, "force", "f", false, "overwrite FILE if it exists")
	cmd.Flags().StringVar(&template, "template", "cold", "the example to write: cold, throughput or sweep")
	return cmd
}
