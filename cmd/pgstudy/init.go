package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/spf13/cobra"
)

func newInitCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented example study file",
		Long: `Write a commented example study to FILE (default study.yaml), or to standard
output when FILE is -. The example is the design of a published cold-cache
comparison of PostgreSQL 17 and 18: four configurations, three tests (a
sequential scan, a bitmap heap scan, a vacuum after a 5% update), five rounds.`,
		Example: `  pgstudy init                  # writes study.yaml
  pgstudy init pg18.yaml
  pgstudy init - | less`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "study.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			if path == "-" {
				_, err := cmd.OutOrStdout().Write(collect.ExampleStudy)
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
			if _, err := f.Write(collect.ExampleStudy); err != nil {
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
	return cmd
}
