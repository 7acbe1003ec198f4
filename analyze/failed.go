package analyze

import (
	"fmt"
	"strings"
)

// guardFailed: a run that did not finish is left out, a warning; when
// every run of a configuration in a test failed, the test has no result
// for that configuration at all (its QPS, its ratio, its row are missing),
// an error that names the runs and the first error. Outputs that could
// not be read are warnings of their own.
func (a *Analysis) guardFailed() {
	groups, keys := a.groupRuns(func(r *Run) bool { return !okRun(r) })
	all, _ := a.groupRuns(func(*Run) bool { return true })
	for _, k := range keys {
		runs := groups[k]
		first := fmt.Sprintf("run %d (round %d) %s: %s", runs[0].RunID, runs[0].Round, runs[0].Status, firstLineOf(runs[0].Error))
		f := Finding{Guard: "failed", Severity: Warning, Host: k.Host, Test: k.Test, Config: k.Config, Runs: runIDs(runs),
			Message: fmt.Sprintf("%d run(s) of %s on %s did not finish and are left out; the first: %s", len(runs), k.Test, k.Config, first)}
		if len(runs) == len(all[k]) {
			f.Severity = Error
			f.Message = fmt.Sprintf("every run of %s on %s failed (%d of %d: %s), so %s has no result for %s; the first: %s",
				k.Test, k.Config, len(runs), len(all[k]), listRuns(f.Runs), k.Test, k.Config, first)
		}
		a.add(f)
	}
	for _, r := range a.Runs {
		for _, p := range r.Problems {
			a.add(Finding{Guard: "unreadable", Severity: Warning, Host: r.Host, Test: r.Test, Config: r.Config, Runs: []int64{r.RunID},
				Message: fmt.Sprintf("run %d (%s on %s, round %d): %s", r.RunID, r.Test, r.Config, r.Round, p)})
		}
	}
}

// firstLineOf is an error's first line, clipped to 200 bytes.
func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
