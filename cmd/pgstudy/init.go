package main

import (
	"context"
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

// initOptions are what init was asked to write, and where.
type initOptions struct {
	path     string // "-" for standard output
	template string
	force    bool
}

func newInitCmd(run runFunc[initOptions]) *cobra.Command {
	if run == nil {
		run = initRun
	}
	var o initOptions
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
  pgstudy init micro.yaml --template sysbench-micro
  pgstudy init - | less`,
		RunE: runE(&o, run),
	}
	cmd.Flags().BoolVarP(&o.force, "force", "f", false, "overwrite FILE if it exists")
	cmd.Flags().StringVar(&o.template, "template", "cold", "the example to write: "+strings.Join(collect.TemplateNames, ", "))
	return cmd
}

// validate takes the arguments into o and checks them.
func (o *initOptions) validate(args []string) error {
	if len(args) > 1 {
		return usagef("init takes at most one file, found %d", len(args))
	}
	if _, ok := collect.Templates[o.template]; !ok {
		return usagef("--template %q: expected one of %s", o.template, strings.Join(collect.TemplateNames, ", "))
	}
	o.path = "study.yaml"
	if len(args) == 1 {
		o.path = args[0]
	}
	return nil
}

// initRun writes the template to standard output, or to a new file (with
// force, over an old one).
func initRun(_ context.Context, o *initOptions, std streams) error {
	text := collect.Templates[o.template]
	if o.path == "-" {
		_, err := std.out.Write(text)
		return err
	}
	if err := outdir.CheckPlace(o.path, nil); err != nil {
		return err
	}
	if err := writeNew(o.path, text, o.force); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return usagef("%s exists; use --force to replace it", o.path)
		}
		return err
	}
	fmt.Fprintf(std.err, "wrote %s; edit its configurations, then: pgstudy collect %s --dry-run\n", o.path, o.path)
	return nil
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
