package analyze

import (
	"fmt"

	"github.com/pgstudy/pgstudy/samples"
)

// Example analyses the sample capture embedded in pgstudy, as `pgstudy
// report` does without a capture; tests across packages read it too.
func Example(opt Options) (*Analysis, error) {
	r, err := samples.Example()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", samples.ExampleName, err)
	}
	return Analyze([]Input{{Name: samples.ExampleName, Reader: r}}, opt)
}
