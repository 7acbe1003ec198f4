package collect

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/samples/infile"
	"github.com/pgstudy/pgstudy/samples/study"
)

// importRun is one run's files, which share its round, configuration and
// test: a million runs hold only these. The settings of a configuration
// and round are a run of test "", which its timed runs point at, and
// which is recorded with the first of them.
type importRun struct {
	files    []importFile
	position int
	settings *importRun // of a timed run: its configuration and round's, if any
	used     bool       // of settings: a timed run has them; once written, recorded too
	recorded bool
}

func (r *importRun) round() int     { return r.files[0].round }
func (r *importRun) config() string { return r.files[0].config }
func (r *importRun) test() string   { return r.files[0].test }

// runKey names a run, or with test "" the settings of a configuration and
// round.
type runKey struct {
	round        int
	config, test string
}

// groupRuns checks each file (its kind and names, that no other of its
// run gives the same, that it is a regular file in the folder) and groups
// those that pass into runs, in the order their first file came. Nothing
// is read yet.
//
// A manifest of a million rows is grouped by sorting its files in place
// by run, the order given kept within each, rather than through maps of
// every file and every run: what the grouping holds is the files
// themselves and a small record per run (a map of a million keys, and a
// copy of each file in its run, took three times as much). Every file's
// problem is said in the order the files came.
func groupRuns(root *os.Root, src, folder string, files []importFile, fail func(importFile, string, ...any)) []importRun {
	var fails []importFailure
	bad := func(f importFile, format string, args ...any) {
		fails = append(fails, importFailure{f, fmt.Sprintf(format, args...)})
	}
	named := files[:0] // in place: the caller does not use files again
	for i, f := range files {
		f.ord = i
		if f.kind == "settings" {
			f.test = ""
		}
		if checkNames(f, bad) {
			named = append(named, f)
		}
	}
	slices.SortStableFunc(named, func(a, b importFile) int {
		return cmp.Or(cmp.Compare(a.round, b.round), cmp.Compare(a.config, b.config), cmp.Compare(a.test, b.test))
	})
	sameRun := func(i, j int) bool {
		return named[i].round == named[j].round && named[i].config == named[j].config && named[i].test == named[j].test
	}
	n := 0
	for i := range named {
		if i == 0 || !sameRun(i-1, i) {
			n++
		}
	}
	runs := make([]importRun, 0, n) // made at its size: a million of them, for a manifest of a million rows
	var g grouper
	for start := 0; start < len(named); {
		end := start + 1
		for end < len(named) && sameRun(start, end) {
			end++
		}
		if r, ok := g.run(root, src, folder, named[start:end], bad); ok {
			runs = append(runs, r)
		}
		start = end
	}
	slices.SortFunc(runs, func(a, b importRun) int { return cmp.Compare(a.files[0].ord, b.files[0].ord) })
	slices.SortStableFunc(fails, func(a, b importFailure) int { return cmp.Compare(a.f.ord, b.f.ord) })
	for _, e := range fails {
		fail(e.f, "%s", e.msg)
	}
	return runs
}

// importFailure is a file's problem, said once every file is checked.
type importFailure struct {
	f   importFile
	msg string
}

// checkNames checks a file's kind and names.
func checkNames(f importFile, bad func(importFile, string, ...any)) bool {
	switch {
	case !slices.Contains(ImportKinds, f.kind):
		bad(f, "unknown kind %q; expected one of %s", f.kind, strings.Join(ImportKinds, ", "))
	case f.config == "" || !study.ValidName(f.config):
		bad(f, "config: expected a name of letters, digits, '.', '_' or '-', found %q", f.config)
	case f.kind != "settings" && (f.test == "" || !study.ValidName(f.test)):
		bad(f, "test: expected a name of letters, digits, '.', '_' or '-', found %q", f.test)
	default:
		return true
	}
	return false
}

// grouper checks the files of one run at a time; its buffers serve every
// run.
type grouper struct {
	idx   []int
	first []int // of each file, the index of the first that gives what it gives, or -1 for that one
}

// dupKey is what no two files of a run may share: a kind, and an
// attachment's path.
func dupKey(f importFile) (string, string) {
	if f.kind == "attachment" {
		return f.kind, f.rel
	}
	return f.kind, ""
}

// duplicates sets g.first for the files of a run.
func (g *grouper) duplicates(files []importFile) {
	g.idx, g.first = g.idx[:0], g.first[:0]
	for i := range files {
		g.idx, g.first = append(g.idx, i), append(g.first, -1)
	}
	slices.SortFunc(g.idx, func(a, b int) int {
		ka, ra := dupKey(files[a])
		kb, rb := dupKey(files[b])
		return cmp.Or(cmp.Compare(ka, kb), cmp.Compare(ra, rb), cmp.Compare(a, b))
	})
	head := -1 // the first file of the key
	for j, i := range g.idx {
		if j > 0 {
			ka, ra := dupKey(files[g.idx[j-1]])
			kb, rb := dupKey(files[i])
			if ka == kb && ra == rb {
				g.first[i] = head
				continue
			}
		}
		head = i
	}
}

// run checks the files of one run, in the order given: a kind (an
// attachment's path) given twice, a file that is not a regular file of
// the folder, a position that differs from an earlier file's. It keeps
// those that pass, in place, and makes the run of them, if any.
func (g *grouper) run(root *os.Root, src, folder string, files []importFile, bad func(importFile, string, ...any)) (importRun, bool) {
	g.duplicates(files)
	var r importRun
	kept := files[:0]
	for i, f := range files {
		if first := g.first[i]; first >= 0 {
			bad(f, "round %d, config %s, test %q, kind %s is already given by %s", f.round, f.config, f.test, f.kind, files[first].where(src))
			continue
		}
		if !regularIn(root, folder, f, bad) {
			continue
		}
		if len(kept) == 0 {
			r.position = f.position
		}
		if f.position != 0 && r.position != 0 && f.position != r.position {
			bad(f, "position %d, but an earlier file of this run says %d", f.position, r.position)
		}
		if f.position != 0 {
			r.position = f.position
		}
		kept = append(kept, f)
	}
	r.files = kept
	return r, len(kept) > 0
}

// regularIn checks that a file is a regular file of the folder.
func regularIn(root *os.Root, folder string, f importFile, bad func(importFile, string, ...any)) bool {
	st, err := root.Stat(filepath.FromSlash(f.rel))
	switch {
	case err != nil:
		if lst, lerr := root.Lstat(filepath.FromSlash(f.rel)); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			bad(f, "%s is a symbolic link that leads outside %s (%v); only files in the folder are read", f.rel, folder, errors.Unwrap(err))
		} else {
			bad(f, "%s: %v", f.rel, errors.Unwrap(err))
		}
	case !st.Mode().IsRegular():
		bad(f, "%s is %s, not a regular file; only files are imported", f.rel, infile.Kind(st.Mode()))
	default:
		return true
	}
	return false
}

// timedRuns returns the runs that have a timed statement, in the order
// given, each pointing at the settings of its configuration and round
// (the run of test "" of them), if any. A run without a timed statement,
// and settings of a configuration and round without a run, are mistakes.
func timedRuns(runs []importRun, fail func(importFile, string, ...any)) []*importRun {
	settings := map[runKey]*importRun{} // while the runs are linked: 8 bytes a value, not a file's 120
	for i := range runs {
		if r := &runs[i]; r.test() == "" {
			settings[runKey{r.round(), r.config(), ""}] = r
		}
	}
	var timed []*importRun
	for i := range runs {
		r := &runs[i]
		if r.test() == "" {
			continue
		}
		if !slices.ContainsFunc(r.files, func(f importFile) bool { return f.kind == "psql" || f.kind == "vacuum" }) {
			fail(r.files[0], "round %d, config %s, test %s has no psql or vacuum output, so no timed statement", r.round(), r.config(), r.test())
			continue
		}
		if s := settings[runKey{r.round(), r.config(), ""}]; s != nil {
			r.settings, s.used = s, true
		}
		timed = append(timed, r)
	}
	for i := range runs {
		if r := &runs[i]; r.test() == "" && !r.used {
			fail(r.files[0], "settings of config %s in round %d, which has no run", r.config(), r.round())
		}
	}
	return timed
}

// sortRuns puts runs in the order they ran: by round, then position
// (unknown last), then start time, then the order the files were given.
func sortRuns(timed []*importRun) {
	slices.SortStableFunc(timed, func(a, b *importRun) int {
		if a.round() != b.round() {
			return a.round() - b.round()
		}
		pa, pb := a.position, b.position
		if pa == 0 {
			pa = 1 << 30
		}
		if pb == 0 {
			pb = 1 << 30
		}
		if pa != pb {
			return pa - pb
		}
		return a.files[0].started.Compare(b.files[0].started)
	})
}
