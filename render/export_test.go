package render_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/render"
	"github.com/pgstudy/pgstudy/render/exportcheck"
)

// schemaPath is where the export's schema is published.
const schemaPath = "../docs/export.schema.json"

// TestExportSchemaPublished: the published schema is the one the code
// makes (go test ./render -update rewrites it).
func TestExportSchemaPublished(t *testing.T) {
	got, err := render.ExportSchema()
	if err != nil {
		t.Fatal(err)
	}
	if flagUpdate() {
		if err := os.WriteFile(schemaPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaPath)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is not the schema the code makes (%v): run go test ./render -update", schemaPath, err)
	}
}

// flagUpdate is the package's -update flag, which its internal tests
// define.
func flagUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// sampleExport is the embedded sample capture's JSON export, every table.
func sampleExport(t *testing.T) []byte {
	t.Helper()
	a := sample(t)
	var b bytes.Buffer
	if err := render.Analysis(&b, "json", a, render.Tables{Only: render.TableNames()}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestExportValidates: the export of a real capture, every table (those
// it has no rows for too), passes an independent validator, and holds
// the values the contract promises.
func TestExportValidates(t *testing.T) {
	doc := sampleExport(t)
	if err := exportcheck.Validate(doc); err != nil {
		t.Fatalf("the sample's export breaks the schema: %v", err)
	}
	var d struct {
		SchemaVersion int `json:"schema_version"`
		Tables        []struct {
			Name string           `json:"name"`
			Rows []map[string]any `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if d.SchemaVersion != render.SchemaVersion || len(d.Tables) != len(render.TableNames()) {
		t.Fatalf("schema_version %d, %d tables", d.SchemaVersion, len(d.Tables))
	}
	for _, tb := range d.Tables {
		if tb.Name != "timings" {
			continue
		}
		for _, r := range tb.Rows {
			if r["host"] != "vm" {
				t.Errorf("timings row without its host: %v", r)
			}
			if r["baseline"] == true && r["ratio"] != 1.0 {
				t.Errorf("the baseline's ratio is %v, want the number 1", r["ratio"])
			}
			rounds, times := r["rounds"].([]any), r["round_times_ms"].([]any)
			if len(rounds) != 6 || len(times) != 6 {
				t.Errorf("per-round values: rounds %v, times %v", rounds, times)
			}
		}
	}
}

// TestExportSchemaRefuses: the schema is no formality; an export that
// breaks the contract in any of the ways it once did fails the validator.
func TestExportSchemaRefuses(t *testing.T) {
	doc := string(sampleExport(t))
	for _, c := range []struct{ name, from, to string }{
		{"a label in a number's column", `"ratio": 1.0,`, `"ratio": "baseline",`},
		{"a key not in the table", `"median_ms": `, `"median (ms)": `},
		{"a number as text", `"n": 6,`, `"n": "6",`},
		{"another version", `"schema_version": 1`, `"schema_version": 0`},
		{"rounds packed into a string", `"rounds": [1, 2, 3, 4, 5, 6],`, `"rounds": "1:1624 2:932.3",`},
		{"a unit that is not a base unit", `"read_bytes": `, `"read_mib": `},
	} {
		if !strings.Contains(doc, c.from) {
			t.Errorf("%s: the export has no %q to break", c.name, c.from)
			continue
		}
		bad := strings.Replace(doc, c.from, c.to, 1)
		if err := exportcheck.Validate([]byte(bad)); err == nil {
			t.Errorf("%s (%q): the validator passed it", c.name, c.to)
		}
	}
}
