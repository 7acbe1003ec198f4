package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
	"github.com/pgstudy/pgstudy/render/exportcheck"
	"go.yaml.in/yaml/v3"
)

// studyJSON is a study file's YAML as the JSON a schema validator reads.
func studyJSON(t *testing.T, text []byte) []byte {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(text, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStudySchema: the published study schema is what pgstudy schema
// study prints; every template names it in its first line and passes it
// with an independent validator, as does the sample's study; studies
// pgstudy refuses for their shape fail it.
func TestStudySchema(t *testing.T) {
	code, schema, stderr := runInProcess("schema", "study")
	if code != exitOK {
		t.Fatalf("schema study: exit %d: %s", code, stderr)
	}
	golden(t, "../../docs/study.schema.json", schema)
	studies := map[string][]byte{}
	for _, name := range collect.TemplateNames {
		text := collect.Templates[name]
		if first, _, _ := strings.Cut(string(text), "\n"); first != "# yaml-language-server: $schema="+studySchemaURL {
			t.Errorf("template %s begins %q, not the schema's modeline", name, first)
		}
		studies["template "+name] = text
	}
	sample, err := os.ReadFile("../../samples/example/study.yaml")
	if err != nil {
		t.Fatal(err)
	}
	studies["the sample's study"] = sample
	for name, text := range studies {
		if err := exportcheck.ValidateWith([]byte(schema), studyJSON(t, text)); err != nil {
			t.Errorf("%s breaks the study schema: %v", name, err)
		}
	}
	base := string(collect.Templates["cold"])
	for _, c := range []struct{ what, from, to string }{
		{"an unknown key", "  rounds: 5", "  rounds: 5\n  shuffle: true"},
		{"a duration as a number", "  rounds: 5", "  rounds: 5\n  ready_timeout: 30"},
		{"a misspelt cold step", "cold: [stop-all, drop-caches", "cold: [stop-all, drop-cache"},
		{"a list where a mapping is", "protocol:\n", "protocol: [rounds]\nx:\n"},
	} {
		if !strings.Contains(base, c.from) {
			t.Errorf("%s: the template has no %q", c.what, c.from)
			continue
		}
		bad := strings.Replace(base, c.from, c.to, 1)
		var v any
		if yaml.Unmarshal([]byte(bad), &v) != nil {
			t.Errorf("%s: not YAML", c.what)
			continue
		}
		if err := exportcheck.ValidateWith([]byte(schema), studyJSON(t, []byte(bad))); err == nil {
			t.Errorf("%s passed the study schema", c.what)
		}
	}
}
