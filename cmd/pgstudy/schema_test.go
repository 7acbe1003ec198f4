package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	// What the decoder reads alike written in quotes, or as a number
	// where text goes, passes too: an editor must not mark a study
	// pgstudy runs as wrong.
	studies["quoted scalars"] = []byte(`configs:
  - {name: a, dsn: "postgres://x@127.0.0.1/b", start: 5}
tests:
  - {name: t, sql: select 1, explain: "yes", before: [1, 2]}
  - {name: p, pgbench: -S, clients: "4", duration: 2s}
protocol: {rounds: "3"}
disk: {limits: {sda: {read_mib_s: "125"}}}
`)
	if code, _, stderr := runInProcess("collect", writeTemp(t, studies["quoted scalars"]), "--dry-run"); code != exitOK {
		t.Fatalf("the quoted scalars study: exit %d: %s", code, stderr)
	}
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

// writeTemp writes text to a new file and returns its path.
func writeTemp(t *testing.T, text []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.yaml")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
