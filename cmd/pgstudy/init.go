package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
			if err := writeNew(path, text, force); err != nil {
				if errors.Is(err, fs.ErrExist) {
					return usageError{fmt.Errorf("%s exists; use --force to replace it", path)}
				}
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

// writeNew writes text to a new file beside path and puts it at path:
// linked there (failing if path exists), or with force renamed over it.
// Either way path's old file is never written through, so another name
// of it (a hard link into a capture) keeps its bytes.
func writeNew(path string, text []byte, force bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".pgstudy-new-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(text); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if force {
		return os.Rename(tmp, path)
	}
	return os.Link(tmp, path)
}
