package render

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/pgstudy/pgstudy/analyze"
	"github.com/pgstudy/pgstudy/analyze/table"
	"github.com/pgstudy/pgstudy/render/jsonschema"
)

// SchemaVersion is the version of the export contract: the tables of
// `analyze --format json|csv`, their keys, types and units, and the
// metadata beside them. It goes up when a key is renamed or removed or
// changes type or unit; a new table or key leaves it, so a reader
// should ignore what it does not know.
const SchemaVersion = 1

// exportMeta is what the JSON export holds beside its tables.
type exportMeta struct {
	SchemaVersion int                   `json:"schema_version"`
	Captures      []analyze.CaptureInfo `json:"captures"`
	Setups        []analyze.Setup       `json:"setups"`
	Baseline      string                `json:"baseline"`
	Confidence    float64               `json:"confidence"`
	Alpha         float64               `json:"alpha"`
	Tolerance     float64               `json:"tolerance"`
	Excluded      int                   `json:"excluded_runs"`
}

func metaOf(a *analyze.Analysis) exportMeta {
	return exportMeta{SchemaVersion: SchemaVersion, Captures: a.Captures, Setups: a.Setups, Baseline: a.Baseline,
		Confidence: a.Confidence, Alpha: a.Alpha, Tolerance: a.Tolerance, Excluded: a.Excluded}
}

// ExportSchema is the JSON Schema of `pgstudy analyze --format json`,
// made from the tables' own specs and the metadata's Go types, so that it
// cannot drift from what is written. A CSV file of the export is one
// table's rows: the same keys, in column order.
func ExportSchema() ([]byte, error) {
	return documentSchema(reflect.TypeFor[exportMeta](), analyze.EveryTable(), "pgstudy analyze --format json")
}

// CompareSchema is the JSON Schema of `pgstudy compare --format json`.
func CompareSchema() ([]byte, error) {
	return documentSchema(reflect.TypeFor[compareMeta](), analyze.EveryCompareTable(), "pgstudy compare --format json")
}

// documentSchema is the schema of a document of metadata and tables.
func documentSchema(meta reflect.Type, tables []table.Table, title string) ([]byte, error) {
	root := jsonschema.Of(meta)
	props := root["properties"].(jsonschema.Schema)
	props["schema_version"] = jsonschema.Schema{"const": SchemaVersion}
	defs := jsonschema.Schema{}
	var each []any
	for _, t := range tables {
		if err := t.Check(); err != nil {
			return nil, err
		}
		defs[t.Name] = tableSchema(t)
		each = append(each, jsonschema.Schema{"$ref": "#/$defs/" + t.Name})
	}
	props["tables"] = jsonschema.Schema{"type": "array", "items": jsonschema.Schema{"oneOf": each}}
	root["required"] = append(root["required"].([]string), "tables")
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["title"] = title
	root["description"] = "Tables in long form: snake_case keys, base units named in the key (bytes, ms, s), null for unknown; see docs/EXPORT.md."
	root["$defs"] = defs
	out, err := json.MarshalIndent(root, "", "  ")
	return append(out, '\n'), err
}

// tableSchema is one table's schema: its name, its columns and its rows,
// each row an object with every key of the table and no other.
func tableSchema(t table.Table) jsonschema.Schema {
	props := jsonschema.Schema{}
	var keys []string
	for _, c := range t.Columns {
		if c.Kind == table.Points {
			props[c.AtKey] = valueSchema("integer[]", c.Title, "")
			keys = append(keys, c.AtKey)
		}
		props[c.Key] = valueSchema(c.Type(), c.Title, c.BaseUnit())
		keys = append(keys, c.Key)
	}
	column := jsonschema.Schema{"type": "object", "required": []string{"key", "title", "type"}, "additionalProperties": false,
		"properties": jsonschema.Schema{"key": jsonschema.Schema{"enum": keys}, "title": jsonschema.Schema{"type": "string"},
			"type": jsonschema.Schema{"type": "string"}, "unit": jsonschema.Schema{"type": "string"}}}
	return jsonschema.Schema{
		"type": "object", "required": []string{"name", "title", "columns", "rows"}, "additionalProperties": false,
		"properties": jsonschema.Schema{
			"name":    jsonschema.Schema{"const": t.Name},
			"title":   jsonschema.Schema{"type": "string"},
			"note":    jsonschema.Schema{"type": "string"},
			"columns": jsonschema.Schema{"type": "array", "items": column},
			"pivot":   jsonschema.Schema{"type": "object"},
			"rows": jsonschema.Schema{"type": "array", "items": jsonschema.Schema{
				"type": "object", "required": keys, "additionalProperties": false, "properties": props}},
		},
	}
}

// valueSchema is a value's schema from its column's type, null allowed.
func valueSchema(typ, title, unit string) jsonschema.Schema {
	s := jsonschema.Schema{"type": typ}
	if item, ok := strings.CutSuffix(typ, "[]"); ok {
		itemType := any(item)
		if item == "number" {
			itemType = []string{"number", "null"} // NaN in a list is null
		}
		s = jsonschema.Schema{"type": "array", "items": jsonschema.Schema{"type": itemType}}
	}
	s = jsonschema.Nullable(s)
	s["description"] = title
	if unit != "" {
		s["description"] = title + "; in " + unit
	}
	return s
}
