package jsonschema

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type inner struct {
	N int `json:"n" yaml:"n"`
}

type described struct{}

func (described) JSONSchema(object func(any) map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{map[string]any{"type": "string"}, object(inner{})}}
}

type doc struct {
	Name    string            `json:"name" yaml:"name"`
	Count   *int64            `json:"count" yaml:"count"`
	Note    string            `json:"note,omitempty" yaml:"note"`
	List    []string          `json:"list" yaml:"list"`
	By      map[string]inner  `json:"by" yaml:"by"`
	At      time.Time         `json:"at" yaml:"-"`
	Every   time.Duration     `json:"every_ns" yaml:"-"`
	Shell   *described        `json:"-" yaml:"shell"`
	Pos     int               // no tag: a key in JSON, none in YAML
	private string            //nolint:unused // never a key
	Env     map[string]string `json:"-" yaml:"env"`
}

func text(t *testing.T, s Schema) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOf: as encoding/json writes a value: required unless omitempty,
// null for pointers, slices and maps, an untagged field by its Go name.
func TestOf(t *testing.T) {
	got := text(t, Of(reflect.TypeFor[doc]()))
	want := `{"additionalProperties":false,"properties":{"Pos":{"type":"integer"},"at":{"format":"date-time","type":"string"},` +
		`"by":{"additionalProperties":{"additionalProperties":false,"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"},"type":["object","null"]},` +
		`"count":{"type":["integer","null"]},"every_ns":{"description":"nanoseconds","type":"integer"},"list":{"items":{"type":"string"},"type":["array","null"]},` +
		`"name":{"type":"string"},"note":{"type":"string"}},"required":["name","count","list","by","at","every_ns","Pos"],"type":"object"}`
	if got != want {
		t.Errorf("Of:\n got %s\nwant %s", got, want)
	}
}

// TestOfYAML: as a person writes the file: no key required, a pointer is
// an optional key (not null), text admits any scalar, a number may be
// quoted, a type describes itself, an untagged field is no key.
func TestOfYAML(t *testing.T) {
	got := text(t, OfYAML(reflect.TypeFor[doc]()))
	integer := `{"anyOf":[{"type":"integer"},{"pattern":"^[-+]?[0-9][0-9_]*$","type":"string"}]}`
	want := `{"additionalProperties":false,"properties":{"by":{"additionalProperties":{"additionalProperties":false,"properties":{"n":` + integer + `},"type":"object"},"type":"object"},` +
		`"count":` + integer + `,"env":{"additionalProperties":{"type":["string","number","boolean"]},"type":"object"},"list":{"items":{"type":["string","number","boolean"]},"type":"array"},` +
		`"name":{"type":["string","number","boolean"]},"note":{"type":["string","number","boolean"]},` +
		`"shell":{"anyOf":[{"type":"string"},{"additionalProperties":false,"properties":{"n":` + integer + `},"type":"object"}]}},"type":"object"}`
	if got != want {
		t.Errorf("OfYAML:\n got %s\nwant %s", got, want)
	}
}

// TestOfRefusesUnknown: a kind of value no document holds is a panic at
// once, not a schema that says nothing.
func TestOfRefusesUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a channel got a schema")
		}
	}()
	Of(reflect.TypeFor[chan int]())
}
