// Package jsonschema writes JSON Schemas (draft 2020-12) of Go values as
// encoding/json writes them, from their types: one definition of a
// document, the Go type, and the schema follows it. It covers what
// pgstudy's documents hold (structs with json tags, pointers, slices,
// maps with string keys, strings, numbers, booleans, time.Time and
// time.Duration), and panics on a type it does not know, so that a new
// kind of field cannot slip into a document undescribed.
package jsonschema

import (
	"reflect"
	"strings"
	"time"
)

// Schema is a JSON Schema as a JSON object.
type Schema = map[string]any

// Of is the schema of the values of t as encoding/json writes them: a
// struct's fields by their json names, each required unless omitempty; a
// pointer, a slice or a map may be null.
func Of(t reflect.Type) Schema { return jsonMode.of(t) }

// OfYAML is the schema of a file decoded into t by its yaml tags, as a
// person writes it: every key optional (the decoder's own checks say
// which it needs), no other key, text where any scalar may stand (YAML
// reads 17 as a number), and a type with a JSONSchema method described
// by it (a duration written as "30s").
func OfYAML(t reflect.Type) Schema { return yamlMode.of(t) }

// mode is how a document maps Go values.
type mode struct {
	tag  string
	yaml bool
}

var (
	jsonMode = mode{tag: "json"}
	yamlMode = mode{tag: "yaml", yaml: true}
)

// describer is a type that gives its own schema; object is the schema of
// a struct's own fields, for a type one of whose forms is a mapping.
type describer interface {
	JSONSchema(object func(any) map[string]any) map[string]any
}

var describerType = reflect.TypeFor[describer]()

func (m mode) of(t reflect.Type) Schema {
	if m.yaml && t.Kind() == reflect.Pointer {
		return m.of(t.Elem()) // an optional key: absent, not null
	}
	if m.yaml && t.Implements(describerType) {
		return reflect.Zero(t).Interface().(describer).JSONSchema(func(v any) map[string]any { return m.object(reflect.TypeOf(v)) })
	}
	if m.yaml && reflect.PointerTo(t).Implements(describerType) {
		return reflect.New(t).Interface().(describer).JSONSchema(func(v any) map[string]any { return m.object(reflect.TypeOf(v)) })
	}
	switch t {
	case reflect.TypeFor[time.Time]():
		return Schema{"type": "string", "format": "date-time"}
	case reflect.TypeFor[time.Duration]():
		return Schema{"type": "integer", "description": "nanoseconds"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Nullable(m.of(t.Elem()))
	case reflect.String:
		if m.yaml {
			return Scalar("string")
		}
		return Schema{"type": "string"}
	case reflect.Bool:
		if m.yaml {
			return Scalar("boolean")
		}
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if m.yaml {
			return Scalar("integer")
		}
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		if m.yaml {
			return Scalar("number")
		}
		return Schema{"type": "number"}
	case reflect.Slice:
		if m.yaml {
			return Schema{"type": "array", "items": m.of(t.Elem())}
		}
		return Nullable(Schema{"type": "array", "items": m.of(t.Elem())})
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic("jsonschema: a map keyed by " + t.Key().String())
		}
		if m.yaml {
			return Schema{"type": "object", "additionalProperties": m.of(t.Elem())}
		}
		return Nullable(Schema{"type": "object", "additionalProperties": m.of(t.Elem())})
	case reflect.Struct:
		return m.object(t)
	}
	panic("jsonschema: no schema for " + t.String())
}

// object is a struct's schema: its exported fields by their tag's name,
// no others. In YAML, a field without a tag is no key (a position the
// decoder fills in) and no key is required.
func (m mode) object(t reflect.Type) Schema {
	props := Schema{}
	required := []string{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get(m.tag), ",")
		if !f.IsExported() || name == "-" || (m.yaml && name == "") {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = m.of(f.Type)
		if !m.yaml && !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	s := Schema{"type": "object", "properties": props, "additionalProperties": false}
	if !m.yaml {
		s["required"] = required
	}
	return s
}

// Scalar is a YAML scalar of a kind as a study's decoder reads it: a
// value of the kind, or the same written in quotes ("3", "yes"), which
// the decoder reads alike; text is any scalar (YAML reads 17 as a number).
func Scalar(kind string) Schema {
	switch kind {
	case "integer":
		return Schema{"anyOf": []any{Schema{"type": "integer"}, Schema{"type": "string", "pattern": `^[-+]?[0-9][0-9_]*$`}}}
	case "number":
		return Schema{"anyOf": []any{Schema{"type": "number"}, Schema{"type": "string", "pattern": `^[-+]?([0-9][0-9_]*)?\.?[0-9]*([eE][-+]?[0-9]+)?$`}}}
	case "boolean":
		return Schema{"anyOf": []any{Schema{"type": "boolean"}, Schema{"type": "string",
			"enum": []string{"true", "false", "True", "False", "TRUE", "FALSE", "yes", "no", "Yes", "No", "YES", "NO", "on", "off", "On", "Off", "ON", "OFF", "y", "n", "Y", "N"}}}}
	}
	return Schema{"type": []string{"string", "number", "boolean"}}
}

// Nullable is a schema that also admits null.
func Nullable(s Schema) Schema {
	switch t := s["type"].(type) {
	case string:
		out := Schema{}
		for k, v := range s {
			out[k] = v
		}
		out["type"] = []string{t, "null"}
		return out
	case []string:
		return s // already
	}
	return Schema{"anyOf": []any{s, Schema{"type": "null"}}}
}
