package main

import (
	"context"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/render"
	"github.com/spf13/cobra"
)

// schemaOptions say which JSON Schema to print.
type schemaOptions struct {
	which string
}

// schemas are the documents pgstudy publishes a JSON Schema of, and how
// each is made.
var schemas = map[string]func() ([]byte, error){
	"export":  render.ExportSchema,
	"compare": render.CompareSchema,
}

func newSchemaCmd(run runFunc[schemaOptions]) *cobra.Command {
	if run == nil {
		run = schemaRun
	}
	var o schemaOptions
	return &cobra.Command{
		Use:   "schema export|compare",
		Short: "Print the JSON Schema of a document pgstudy writes",
		Long: `Print a JSON Schema (draft 2020-12), made from the definitions pgstudy writes
the document from, so that it cannot drift from what is written:

  export    what pgstudy analyze --format json writes: its metadata and every
            table, each row an object with every key of its table (a CSV file of
            the export is one table's rows, with the same keys)
  compare   what pgstudy compare --format json writes`,
		Example: `  pgstudy schema export > export.schema.json
  pgstudy analyze capture/ --format json > analysis.json
  check-jsonschema --schemafile export.schema.json analysis.json`,
		RunE: runE(&o, run),
	}
}

func (o *schemaOptions) validate(args []string) error {
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(args) != 1 || schemas[args[0]] == nil {
		return usagef("schema needs one of: %s", strings.Join(names, ", "))
	}
	o.which = args[0]
	return nil
}

func schemaRun(_ context.Context, o *schemaOptions, std streams) error {
	b, err := schemas[o.which]()
	if err != nil {
		return err
	}
	_, err = std.out.Write(b)
	return err
}
