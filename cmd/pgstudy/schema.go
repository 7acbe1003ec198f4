package main

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/render/jsonschema"
	"github.com/pgstudy/pgstudy/samples/study"
	"github.com/spf13/cobra"
)

// schemaOptions say which JSON Schema to print.
type schemaOptions struct {
	which string
}

// schemas are the documents pgstudy publishes a JSON Schema of, and how
// each is made.
var schemas = map[string]func() ([]byte, error){
	"study":   studySchema,
	"export":  render.ExportSchema,
	"compare": render.CompareSchema,
}

// studySchema is the study file's schema, made from the study's one
// definition (its Go types' yaml tags, and the schemas of the types
// written in more than one form), so that editors complete and check a
// study as pgstudy reads it. The templates name it in their first line.
func studySchema() ([]byte, error) {
	s := jsonschema.OfYAML(reflect.TypeFor[study.Study]())
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = studySchemaURL
	s["title"] = "pgstudy study file"
	s["description"] = "A study: configurations, tests, protocol and disk; pgstudy collect STUDY --dry-run checks what the schema cannot (names, durations that must be positive, settings)."
	out, err := json.MarshalIndent(s, "", "  ")
	return append(out, '\n'), err
}

// studySchemaURL is where the study schema is published: docs/ of the
// repository, which a test keeps equal to pgstudy schema study.
const studySchemaURL = "https://raw.githubusercontent.com/pgstudy/pgstudy/main/docs/study.schema.json"

func newSchemaCmd(run runFunc[schemaOptions]) *cobra.Command {
	if run == nil {
		run = schemaRun
	}
	var o schemaOptions
	return &cobra.Command{
		Use:   "schema study|export|compare",
		Short: "Print the JSON Schema of a document pgstudy writes",
		Long: `Print a JSON Schema (draft 2020-12), made from the definitions pgstudy writes
the document from, so that it cannot drift from what is written:

  study     the study file pgstudy init writes and collect reads (editors that
            read JSON Schemas complete and check it; the templates name it in
            their first line, for the YAML language server)
  export    what pgstudy analyze --format json writes: its metadata and every
            table, each row an object with every key of its table (a CSV file of
            the export is one table's rows, with the same keys)
  compare   what pgstudy compare --format json writes`,
		Example: `  pgstudy schema study > study.schema.json
  pgstudy schema export > export.schema.json
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
