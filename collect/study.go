package collect

import (
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgstudy/pgstudy/samples/study"
)

// LoadStudy reads a study file and checks it for collection: the schema's
// rules, then the collector's own (each DSN parses, each before statement
// renders in every round). Every problem found is reported, each as
// file:line:col: what was expected, with its secrets removed.
func LoadStudy(path string) (*study.Study, error) {
	return study.Load(path, collectorRules)
}

// parseStudy is LoadStudy for a study given as text.
func parseStudy(file string, text []byte) (*study.Study, error) {
	return study.Parse(file, text, collectorRules)
}

var collectorRules = study.Options{
	Redact: (*Redactor)(nil).Structural,
	Rules:  []study.Rule{checkDSNs, checkBefore},
}

// checkDSNs checks that each configuration's DSN is one libpq reads.
func checkDSNs(s *study.Study, report func(p study.Pos, format string, args ...any)) {
	for _, c := range s.Configs {
		if _, err := pgconn.ParseConfig(c.DSN); err != nil {
			report(c.DSNPos, "configuration %s: expected a libpq connection string (postgres://... or key=value): %v", c.Name, redactErr(err, c.DSN))
		}
	}
}
