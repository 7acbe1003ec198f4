package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/parse/explain"
)

// PlanRow is a plan a test and configuration ran, and in which runs.
type PlanRow struct {
	Host        string
	Test        string
	Config      string
	Fingerprint string
	Shape       string
	Runs        []int64
	Rounds      []int
}

func (a *Analysis) plans() {
	groups, keys := a.groupRuns(func(r *Run) bool { return r.Plan != nil })
	for _, k := range keys {
		var rows []PlanRow
		for _, r := range groups[k] {
			i := slices.IndexFunc(rows, func(p PlanRow) bool { return p.Fingerprint == r.Plan.Fingerprint })
			if i < 0 {
				rows = append(rows, PlanRow{Host: k.Host, Test: k.Test, Config: k.Config, Fingerprint: r.Plan.Fingerprint, Shape: r.Plan.Shape})
				i = len(rows) - 1
			}
			rows[i].Runs = append(rows[i].Runs, r.RunID)
			rows[i].Rounds = append(rows[i].Rounds, r.Round)
		}
		// The plan most runs had first.
		slices.SortStableFunc(rows, func(x, y PlanRow) int { return cmp.Compare(len(y.Runs), len(x.Runs)) })
		a.Plans = append(a.Plans, rows...)
	}
}

// hasNode says whether a plan has a node the study expects: "Seq Scan"
// matches a Seq Scan or a Parallel Seq Scan node; a name with " on " or
// " using " must match a node of the plan's shape exactly so far.
func hasNode(p *explain.Plan, want string) bool {
	want = strings.TrimSpace(want)
	if p == nil || p.Root == nil || want == "" {
		return false
	}
	if strings.Contains(want, " on ") || strings.Contains(want, " using ") {
		for _, part := range strings.FieldsFunc(p.Shape(), func(r rune) bool { return r == '>' || r == '(' || r == ')' || r == ',' }) {
			part = strings.TrimPrefix(strings.TrimSpace(part), "InitPlan: ")
			part = strings.TrimPrefix(part, "SubPlan: ")
			if part == want || strings.TrimPrefix(part, "Parallel ") == want {
				return true
			}
		}
		return false
	}
	var walk func(n *explain.Node) bool
	walk = func(n *explain.Node) bool {
		if strings.EqualFold(n.NodeType, want) || strings.EqualFold("Parallel "+n.NodeType, want) {
			return true
		}
		return slices.ContainsFunc(n.Plans, walk)
	}
	return walk(p.Root)
}
