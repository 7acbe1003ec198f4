// Package exportcheck validates a JSON export against the published
// schema with an independent JSON Schema validator (santhosh-tekuri's,
// which passes the JSON Schema Test Suite for draft 2020-12), for tests
// across packages: a check by the same code that writes the export would
// prove nothing.
package exportcheck

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pgstudy/pgstudy/render"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validate says where an export breaks the schema, if it does.
func Validate(doc []byte) error {
	schemaText, err := render.ExportSchema()
	if err != nil {
		return err
	}
	return ValidateWith(schemaText, doc)
}

// ValidateWith validates doc against the schema given as JSON text.
func ValidateWith(schemaText, doc []byte) error {
	sch, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaText))
	if err != nil {
		return fmt.Errorf("the schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("export.schema.json", sch); err != nil {
		return err
	}
	compiled, err := c.Compile("export.schema.json")
	if err != nil {
		return fmt.Errorf("compile the schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the export is not JSON: %w", err)
	}
	return compiled.Validate(v)
}
