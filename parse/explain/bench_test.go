package explain

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// largestPlan is the largest fixture matching pattern.
func largestPlan(b *testing.B, pattern string) []byte {
	var largest []byte
	for _, f := range golden.Files(b, "", pattern) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > len(largest) {
			largest = data
		}
	}
	return largest
}

// appendHeader is the Append node over the copies, in each format.
const (
	appendText = "Append  (cost=0.00..432170.00 rows=%d width=8) (actual time=14.355..103235.800 rows=%d.00 loops=1)"
	appendJSON = `      "Node Type": "Append",
      "Parallel Aware": false,
      "Async Capable": false,
      "Startup Cost": 0.00,
      "Total Cost": 432170.00,
      "Plan Rows": %d,
      "Plan Width": 8,
      "Actual Startup Time": 14.355,
      "Actual Total Time": 103235.800,
      "Actual Rows": %d.00,
      "Actual Loops": 1,
      "Disabled": false,
      "Plans": [`
)

// appendTextPlan is a text plan with n copies of plan's nodes under an
// Append, as a query over n partitions prints, then plan's summary.
func appendTextPlan(plan string, n int) []byte {
	lines := strings.Split(strings.TrimSuffix(plan, "\n"), "\n")
	end := 1 // the node lines: the first and those indented after it
	for end < len(lines) && strings.HasPrefix(lines[end], " ") {
		end++
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, appendText+"\n", n, n)
	for range n {
		fmt.Fprintf(&out, "  ->  %s\n", lines[0])
		for _, l := range lines[1:end] {
			fmt.Fprintf(&out, "      %s\n", l)
		}
	}
	for _, l := range lines[end:] {
		out.WriteString(l + "\n")
	}
	return out.Bytes()
}

// appendJSONPlan is the JSON plan with n copies of its top node under an
// Append, each a "Member".
func appendJSONPlan(b *testing.B, plan string, n int) []byte {
	lines := strings.Split(plan, "\n")
	start, end := -1, -1
	for i, l := range lines {
		if l == `    "Plan": {` {
			start = i
		} else if start >= 0 && (l == "    }," || l == "    }") {
			end = i
			break
		}
	}
	if start < 0 || end < 0 {
		b.Fatal("no top node in the JSON plan")
	}
	var out bytes.Buffer
	for _, l := range lines[:start+1] {
		out.WriteString(l + "\n")
	}
	fmt.Fprintf(&out, appendJSON+"\n", n, n)
	for k := range n {
		out.WriteString("        {\n")
		for i, l := range lines[start+1 : end] {
			out.WriteString("    " + l + "\n")
			if i == 0 { // after "Node Type", as the server prints it
				out.WriteString(`          "Parent Relationship": "Member",` + "\n")
			}
		}
		if k < n-1 {
			out.WriteString("        },\n")
		} else {
			out.WriteString("        }\n")
		}
	}
	out.WriteString("      ]\n")
	out.WriteString(strings.Join(lines[end:], "\n"))
	return out.Bytes()
}

// The benchmarks read the largest real plan of each format, and a plan of
// 200 copies of its nodes under an Append (a query over 200 partitions),
// built from it.
func BenchmarkJSON(b *testing.B) {
	plan := largestPlan(b, "pg*.json")
	for _, bm := range []struct {
		name string
		in   []byte
	}{{"largest", plan}, {"append200", appendJSONPlan(b, string(plan), 200)}} {
		b.Run(bm.name, func(b *testing.B) {
			golden.Bench(b, bm.in)
			for b.Loop() {
				if _, _, err := JSON(bytes.NewReader(bm.in), "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkText(b *testing.B) {
	plan := largestPlan(b, "pg*.txt")
	for _, bm := range []struct {
		name string
		in   []byte
	}{{"largest", plan}, {"append200", appendTextPlan(string(plan), 200)}} {
		b.Run(bm.name, func(b *testing.B) {
			golden.Bench(b, bm.in)
			for b.Loop() {
				if _, _, err := Text(bytes.NewReader(bm.in), "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAppendPlans: the plans the benchmarks build read without warnings,
// the same in both formats: an Append over 200 copies of the real plan.
func TestAppendPlans(t *testing.T) {
	b := &testing.B{}
	j, _, err := JSON(bytes.NewReader(appendJSONPlan(b, golden.Text(t, "testdata/pg18-parallel-seqscan-io.json"), 200)), "json")
	if err != nil {
		t.Fatal(err)
	}
	x, warns, err := Text(bytes.NewReader(appendTextPlan(golden.Text(t, "testdata/pg18-parallel-seqscan-io.txt"), 200)), "text")
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	for _, p := range []*Plan{j, x} {
		if p.Root.NodeType != "Append" || len(p.Root.Plans) != 200 || p.Root.Plans[199].NodeType != "Aggregate" {
			t.Errorf("%s: root %s with %d children", p.Format, p.Root.NodeType, len(p.Root.Plans))
		}
	}
	nodesAgree(t, j, x)
}

func BenchmarkFingerprint(b *testing.B) {
	p, _, err := JSON(bytes.NewReader(largestPlan(b, "pg*.json")), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Fingerprint()
	}
}
