package analyze

import (
	"fmt"
	"slices"
)

// guardWholeProcess: a psql run collected before pgstudy bracketed psql's
// statement inside its session has disk figures over the whole psql
// process (its start, its libraries, its connection and settings), not
// over the timed statement the tables name. Said once per test and
// configuration; a warning when other configurations of the host were
// measured over their statement alone (pgx, or psql since), whose disk
// figures are then not comparable with these.
func (a *Analysis) guardWholeProcess() {
	groups, keys := a.groupRuns(func(r *Run) bool { return okRun(r) && r.WholeProcess })
	for _, k := range keys {
		runs := groups[k]
		f := Finding{Guard: "psql-window", Severity: Info, Host: k.Host, Test: k.Test, Config: k.Config, Runs: runIDs(runs),
			Message: fmt.Sprintf("%d psql run(s) of %s on %s were collected before pgstudy bracketed psql's statement: their disk figures cover the whole psql process (its start, libraries, connection and settings), not the timed statement alone",
				len(runs), k.Test, k.Config)}
		if slices.ContainsFunc(a.Runs, func(r *Run) bool {
			return r.Host == k.Host && r.Test == k.Test && okRun(r) && !r.WholeProcess && r.Cold != importedCold
		}) {
			f.Severity = Warning
			f.Message += "; the other configurations' disk figures of this test are over the statement alone, so the two are not comparable"
		}
		a.add(f)
	}
}
