package procstat

import (
	"testing"

	"github.com/pgstudy/pgstudy/parse/internal/golden"
)

// FuzzParse: every input gives a *SyntaxError or a snapshot with a cpu
// line of at least four times, and well-formed warnings.
func FuzzParse(f *testing.F) {
	golden.Fuzz(f, "", []string{
		"cpu 1 2 3 4\nctxt 5\n",
		"cpu  1 2 3 4 5 6 7 8 9 10 11 12\ncpu0 1 2 3 4\n",
		"cpu 1 2 3\nctxt 99999999999999999999\n",
		"cpu 1 2 3 4\ncpu 1 2 3 4\nprocesses\n",
	}, Parse, checkStat, nil)
}
