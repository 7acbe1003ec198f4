package render

import (
	"path/filepath"

	"github.com/pgstudy/pgstudy/samples/outdir"
)

// writeFolder writes an output folder of kind in dir's place through
// outdir.Replace, and returns the files written (under dir) and notes.
func writeFolder(dir, kind string, inputs []string, write func(tmp string) error) ([]string, []string, error) {
	rels, notes, err := outdir.Replace(dir, kind, inputs, write)
	if err != nil {
		return nil, nil, err
	}
	files := make([]string, len(rels))
	for i, rel := range rels {
		files[i] = filepath.Join(dir, rel)
	}
	return files, notes, nil
}
