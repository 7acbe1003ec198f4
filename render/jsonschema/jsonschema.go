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
func Of(t reflect.Type) Schema {
	switch t {
	case reflect.TypeFor[time.Time]():
		return Schema{"type": "string", "format": "date-time"}
	case reflect.TypeFor[time.Duration]():
		return Schema{"type": "integer", "description": "nanoseconds"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return Nullable(Of(t.Elem()))
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.Slice:
		return Nullable(Schema{"type": "array", "items": Of(t.Elem())})
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic("jsonschema: a map keyed by " + t.Key().String())
		}
		return Nullable(Schema{"type": "object", "additionalProperties": Of(t.Elem())})
	case reflect.Struct:
		return object(t)
	}
	panic("jsonschema: no schema for " + t.String())
}

// object is a struct's schema: its exported fields by json name, no
// others.
func object(t reflect.Type) Schema {
	props := Schema{}
	required := []string{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = Of(f.Type)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	return Schema{"type": "object", "properties": props, "required": required, "additionalProperties": false}
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
