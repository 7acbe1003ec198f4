package analyze

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/pgstudy/pgstudy/samples"
	"github.com/pgstudy/pgstudy/samples/study"
)

// storedStudy decodes the study a session recorded, through the schema
// collect ran it with. A session with no checksum of its study ran none
// (an import keeps its manifest there): its study is empty. A study that
// does not decode is an error, not an empty study: its expected plans and
// device limits would be silently lost. Keys this version does not know
// are not: they are listed in the study's Ignored, for a finding.
func storedStudy(cp samples.Capture) (*study.Study, error) {
	if cp.StudySHA256 == "" {
		return &study.Study{}, nil
	}
	s, err := study.Stored(cmp.Or(cp.StudyFile, "study.yaml"), []byte(cp.StudyYAML))
	if err != nil {
		// %v, not %w: this is a damaged capture (exit 1), not a study file
		// the user gave (exit 2), though the error is the same kind.
		return nil, fmt.Errorf("the study it recorded does not decode (a damaged capture, or one written by another pgstudy):\n%v", err)
	}
	return s, nil
}

// expectPlan is the plan node the study expects of a test, or "".
func expectPlan(s *study.Study, test string) string {
	if t := s.Test(test); t != nil {
		return t.ExpectPlan
	}
	return ""
}

// guardStudyKeys: a study written for another version of pgstudy decodes
// without the keys this one does not know; what they asked for is not in
// the analysis, and a reader must know which they were.
func (a *Analysis) guardStudyKeys() {
	for _, c := range a.Captures {
		if len(c.ignored) == 0 {
			continue
		}
		a.add(Finding{Guard: "study-keys", Severity: Warning, Host: c.Host,
			Message: fmt.Sprintf("the study the capture %s recorded has %d key(s) this version of pgstudy does not know (was it written for another?); "+
				"they are ignored: %s", c.Name, len(c.ignored), strings.ReplaceAll(c.ignored.Error(), "\n", "; "))})
	}
}
