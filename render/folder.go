package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeFolder writes the files of a folder into a new folder beside dir,
// then puts it in dir's place: a reader of dir sees the old files or the
// new ones, never a mix (a figure the new analysis no longer has stays
// behind otherwise), and a failure half-way (a full disk) leaves dir as it
// was. dir may be absent, empty, or hold only what owned says pgstudy
// wrote there before; anything else is refused before any work, so that a
// mistyped -o cannot delete someone's files. write gets the new folder and
// returns the files it wrote, relative to it.
func writeFolder(dir string, owned func(rel string, isDir bool) bool, write func(tmp string) ([]string, error)) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(abs); err == nil {
		for _, e := range entries {
			if !owned(e.Name(), e.IsDir()) {
				return nil, fmt.Errorf("%s holds %s, which pgstudy did not write: name a new or empty folder, or one pgstudy wrote", dir, e.Name())
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp := filepath.Join(parent, "."+base+".new")
	old := filepath.Join(parent, "."+base+".old")
	// What an earlier run that was killed left.
	for _, p := range []string{tmp, old} {
		if err := os.RemoveAll(p); err != nil {
			return nil, err
		}
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, err
	}
	rels, err := write(tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(abs, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Rename(old, abs)
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.RemoveAll(old); err != nil {
		return nil, err
	}
	files := make([]string, len(rels))
	for i, rel := range rels {
		files[i] = filepath.Join(dir, rel)
	}
	return files, nil
}

// reportOwned: what a report folder holds.
func reportOwned(name string, isDir bool) bool {
	if isDir {
		return name == "figures" || name == "tables"
	}
	return name == "report.md"
}

// analysisOwned: what an analysis folder holds.
func analysisOwned(name string, isDir bool) bool {
	return !isDir && (strings.HasSuffix(name, ".csv") || name == "analysis.md" || name == "analysis.json")
}
