package explain

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// goldenPlan is what a fixture's golden file holds.
type goldenPlan struct {
	Shape       string          `json:"shape"`
	Fingerprint string          `json:"fingerprint"`
	Warnings    []parse.Warning `json:"warnings"`
	Plan        *Plan           `json:"plan"`
}

// parseFixture parses a fixture with the parser its extension names.
func parseFixture(t testing.TB, path string) (*Plan, []parse.Warning) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, warns, err := parseString(path, string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p, warns
}

func parseString(source, s string) (*Plan, []parse.Warning, error) {
	if strings.HasSuffix(source, ".json") {
		return JSON(strings.NewReader(s), source)
	}
	return Text(strings.NewReader(s), source)
}

func TestGolden(t *testing.T) {
	files := append(golden.Files(t, "", "pg*.json"), golden.Files(t, "", "pg*.txt")...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, warns := parseFixture(t, f)
			// Real servers' output holds nothing these parsers do not know.
			for _, w := range warns {
				t.Errorf("warning: %s", w)
			}
			if warns == nil {
				warns = []parse.Warning{}
			}
			golden.Check(t, f, goldenPlan{Shape: p.Shape(), Fingerprint: p.Fingerprint(), Warnings: warns, Plan: p})
		})
	}
}

// testCase is a fixture's case: testdata/pg17-update-io.txt is
// "update-io".
func testCase(f string) (version, kase string) {
	base := filepath.Base(f)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".json"), ".txt")
	version, kase, _ = strings.Cut(base, "-")
	return version, kase
}

// collectNodes lists a plan's nodes depth first.
func collectNodes(n *Node) []*Node {
	if n == nil {
		return nil
	}
	out := []*Node{n}
	for _, c := range n.Plans {
		out = append(out, collectNodes(c)...)
	}
	return out
}

// jsonString is v as compact JSON, for messages and comparisons.
func jsonString(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err.Error()
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestParse: Parse reads every fixture, raw and as psql prints it aligned,
// as the parser of its format does, told from its first character; white
// space before it counts in the lines of warnings and errors.
func TestParse(t *testing.T) {
	for _, f := range golden.Files(t, "", "*") {
		raw := golden.Text(t, f)
		for _, in := range []string{raw, psqlAligned(raw, strings.HasSuffix(f, ".json")), "\n \t\r\n" + raw} {
			want, wantWarns, wantErr := parseString(f, in)
			got, warns, err := Parse(strings.NewReader(in), f)
			if jsonString(got) != jsonString(want) || jsonString(warns) != jsonString(wantWarns) || jsonString(err) != jsonString(wantErr) {
				t.Errorf("%s: Parse gives %.200s, %v, %v\nwant %.200s, %v, %v", f, jsonString(got), warns, err, jsonString(want), wantWarns, wantErr)
			}
		}
	}
	for in, want := range map[string]string{
		"":         "explain: empty input; expected EXPLAIN output",
		"\n\n[":    "explain:3: unexpected end of JSON input (truncated?)",
		"\x00\x01": "",
	} {
		_, _, err := Parse(strings.NewReader(in), "explain")
		if err == nil || want != "" && err.Error() != want {
			t.Errorf("Parse(%q): %v, want %s", in, err, want)
		}
	}
}

// TestReserveBounded: an input that holds a million arrows, or "Node
// Type" keys, but one node allocates for the node, not for the count its
// batch is sized from (maxReserved).
func TestReserveBounded(t *testing.T) {
	const n = 1 << 20
	for name, in := range map[string]string{
		"text": "Seq Scan on t  (cost=0.00..1.00 rows=1 width=4)\n  Filter: (a " + strings.Repeat("->  ", n) + "b)\n",
		"json": `[{"Plan": {` + strings.Repeat(`"Node Type": "Seq Scan", `, n) + `"Node Type": "Seq Scan"}}]`,
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p, _, err := Parse(strings.NewReader(in), name)
		runtime.ReadMemStats(&after)
		if err != nil || p.Root == nil || len(p.Root.Plans) > 0 {
			t.Fatalf("%s: %v", name, err)
		}
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(8<<20); got > limit {
			t.Errorf("%s: %d MiB allocated for one node, want under %d MiB", name, got>>20, limit>>20)
		}
	}
}
