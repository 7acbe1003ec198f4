// Package outdir decides what pgstudy may write, replace or remove in a
// folder, so that a mistyped -o never costs a user a file.
//
// An output folder (a report, an analysis, a folder of figures) is written
// whole into a new temporary folder beside its place, then swapped in. The
// folder carries a record of what pgstudy wrote in it (Record, the file
// named RecordName: every file's path, size and SHA-256); only a folder
// holding exactly what its record lists, unchanged, is ever replaced. A
// capture carries no record (it grows run by run) and is recognised by its
// table folders.
//
// The steps of Replace, in order:
//
//  1. Check the place: not a file, not inside a capture or another output,
//     not holding a capture, and either absent, empty, or holding exactly
//     what its record lists.
//  2. Write into a temporary sibling created exclusively under a unique
//     name, and record what was written.
//  3. Move the old folder aside (another unique sibling), move the new one
//     into place, then check the old one again and remove it only if it
//     still holds only what its record lists; otherwise leave it, and say
//     where.
//
// Temporary siblings left by a pgstudy that was killed are never removed by
// a later one: their names are unique, and Leftovers lists them.
package outdir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pgstudy/pgstudy/samples/infile"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// recordName is the file, in an output folder, that lists what pgstudy
// wrote there.
const recordName = ".pgstudy-output.json"

// recordFormat is the version of the record's layout.
const recordFormat = 1

// Kinds of output folder.
const (
	Report   = "report"
	Analysis = "analysis"
	Figures  = "figures"
)

// record is what pgstudy wrote in an output folder.
type record struct {
	Format int     `json:"format"`
	Kind   string  `json:"kind"`
	Files  []entry `json:"files"`
}

// entry is one file pgstudy wrote, relative to the folder, with '/'.
type entry struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// maxRecordBytes bounds the record read back: a record is a list of paths
// and hashes, far below this for any report.
const maxRecordBytes = 16 << 20

// refusal is an error saying why pgstudy will not write a folder; nothing
// was written or removed.
type refusal struct {
	Dir    string
	Reason string
}

func (e *refusal) Error() string { return fmt.Sprintf("%s: %s", e.Dir, e.Reason) }

// Check refuses a place Replace would refuse before it writes anything:
// a command checks its output folder before its long work.
func Check(dir, kind string, inputs []string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := CheckPlace(dir, inputs); err != nil {
		return err
	}
	// The absolute path: an empty name is the current folder, which a
	// relative "" would have found missing and moved aside.
	_, err = owned(abs, kind)
	return err
}

// Replace writes a folder of kind in dir's place (see the package doc).
// write gets the new, empty folder and writes into it; it must not write
// RecordName. inputs are the folders the output is made from (captures):
// dir may not be one of them, hold one or be inside one. Replace returns
// the files written, relative to dir, and notes for the user (a previous
// folder left in place, leftovers of an earlier run).
func Replace(dir, kind string, inputs []string, write func(tmp string) error) (files, notes []string, err error) {
	if err := Check(dir, kind, inputs); err != nil {
		return nil, nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, nil, err
	}
	notes = LeftoverNotes(abs)
	tmp, err := os.MkdirTemp(parent, "."+base+".pgstudy-new-")
	if err != nil {
		return nil, nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it 0700; a report is made to be shared
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	rec, err := fill(tmp, kind, write)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	note, err := swap(abs, tmp, kind)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	for _, e := range rec.Files {
		files = append(files, filepath.FromSlash(e.Path))
	}
	return files, notes, nil
}

// fill runs write in tmp and records what it wrote.
func fill(tmp, kind string, write func(string) error) (*record, error) {
	if err := write(tmp); err != nil {
		return nil, err
	}
	rec, err := scan(tmp)
	if err != nil {
		return nil, err
	}
	rec.Kind = kind
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, recordName), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return rec, nil
}

// swap puts tmp in abs's place. The old folder, if any, is removed only if
// it still holds exactly what its record lists.
func swap(abs, tmp, kind string) (string, error) {
	base := filepath.Base(abs)
	st, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", renameNew(tmp, abs)
	}
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", notAFolder(abs, st.Mode(), "")
	}
	old, err := aside(abs)
	if err != nil {
		return "", err
	}
	if err := renameNew(tmp, abs); err != nil {
		if back := renameNew(old, abs); back != nil {
			return "", fmt.Errorf("%w; the previous folder is at %s", err, old)
		}
		return "", err
	}
	// Something may have been put in the folder after it was checked.
	if _, err := owned(old, kind); err != nil {
		return fmt.Sprintf("the previous %s was kept at %s: %v", base, old, err), nil
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Sprintf("the previous %s could not be removed from %s: %v", base, old, err), nil
	}
	return "", nil
}

// owned checks that dir may be replaced by an output of kind: it is
// absent, an empty folder, or a folder holding exactly the files its
// record lists, each as pgstudy wrote it. It returns the record (nil for an
// absent or empty folder), or a Refusal naming the first file in the way.
func owned(dir, kind string) (*record, error) {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, notAFolder(dir, st.Mode(), "")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, nil
	}
	rec, err := readRecord(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &refusal{dir, fmt.Sprintf("holds %s and no record of what pgstudy wrote there (%s): pgstudy replaces only a folder it wrote; name a new or empty folder",
			entries[0].Name(), recordName)}
	}
	if err != nil {
		return nil, &refusal{dir, err.Error()}
	}
	if rec.Kind != kind {
		return nil, &refusal{dir, fmt.Sprintf("is a pgstudy %s folder, not a %s one; name another folder", rec.Kind, kind)}
	}
	have, err := scan(dir)
	if err != nil {
		return nil, err
	}
	want := map[string]entry{}
	for _, e := range rec.Files {
		if !filepath.IsLocal(filepath.FromSlash(e.Path)) {
			return nil, &refusal{dir, fmt.Sprintf("its %s lists %q, a path outside the folder: not a record pgstudy wrote", recordName, e.Path)}
		}
		want[e.Path] = e
	}
	for _, e := range have.Files {
		w, ok := want[e.Path]
		switch {
		case !ok:
			return nil, &refusal{dir, fmt.Sprintf("holds %s, which pgstudy did not write; move it away or name another folder", e.Path)}
		case w.Size != e.Size || w.SHA256 != e.SHA256:
			return nil, &refusal{dir, fmt.Sprintf("%s was changed since pgstudy wrote it; move it away or name another folder", e.Path)}
		}
	}
	// Every file it had, each once: a file the record lists that is gone
	// means the folder is not as pgstudy left it either.
	if len(have.Files) != len(want) {
		return nil, &refusal{dir, fmt.Sprintf("does not hold what its %s lists (%d files listed, %d there): changed since pgstudy wrote it; move it away or name another folder",
			recordName, len(want), len(have.Files))}
	}
	return rec, nil
}

// readRecord reads dir's record.
func readRecord(dir string) (*record, error) {
	f, err := os.Open(filepath.Join(dir, recordName))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", recordName)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxRecordBytes {
		return nil, fmt.Errorf("%s is larger than any record pgstudy writes", recordName)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil || rec.Format != recordFormat {
		return nil, fmt.Errorf("%s is not a record pgstudy wrote (format %d)", recordName, recordFormat)
	}
	return &rec, nil
}

// scan lists every file under dir (the record excepted), with its size and
// hash. Anything but a regular file or a folder (a symbolic link, a FIFO)
// is listed with an empty hash, so that it never matches a record.
func scan(dir string) (*record, error) {
	rec := &record{Format: recordFormat}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." || rel == recordName {
			return nil
		}
		if d.IsDir() {
			return nil
		}
		e := entry{Path: rel}
		if d.Type().IsRegular() {
			e.Size, e.SHA256, err = hashFile(path)
			if err != nil {
				return err
			}
		} else {
			e.Size = -1
		}
		rec.Files = append(rec.Files, e)
		return nil
	})
	slices.SortFunc(rec.Files, func(a, b entry) int { return strings.Compare(a.Path, b.Path) })
	return rec, err
}

func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Leftovers lists the temporary siblings of dir that a pgstudy stopped
// half-way left behind (".NAME.pgstudy-*").
func Leftovers(dir string) []string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	parent, prefix := filepath.Dir(abs), "."+filepath.Base(abs)+".pgstudy-"
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			out = append(out, filepath.Join(parent, e.Name()))
		}
	}
	return out
}

// LeftoverNotes are Leftovers in words, a note each.
func LeftoverNotes(dir string) []string {
	var notes []string
	for _, l := range Leftovers(dir) {
		// A previous output moved aside is kept only when something not
		// pgstudy's was found in it, or it could not be removed: it is not
		// a stopped pgstudy's temporary folder, and may hold a user's file.
		if strings.Contains(filepath.Base(l), ".pgstudy-old-") {
			notes = append(notes, fmt.Sprintf("%s is a previous %s that an earlier pgstudy kept, because it held files pgstudy did not write or could not be removed: look inside before you remove it", l, filepath.Base(dir)))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s is left from an earlier pgstudy that was stopped; remove it once no pgstudy runs", l))
	}
	return notes
}

// aside renames abs to a new, unique sibling and returns its name.
func aside(abs string) (string, error) {
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	for range 100 {
		old := filepath.Join(parent, "."+base+".pgstudy-old-"+strconv.FormatUint(rand.Uint64(), 36))
		err := renameNew(abs, old)
		if !errors.Is(err, fs.ErrExist) {
			return old, err
		}
	}
	return "", fmt.Errorf("no free name beside %s to move it aside", abs)
}

// notAFolder is the refusal of an output path that is not a folder; a
// symbolic link is not followed, since what it leads to may be anything.
func notAFolder(path string, mode fs.FileMode, what string) error {
	if mode&fs.ModeSymlink != 0 {
		return &refusal{path, "is a symbolic link: pgstudy writes only into a real folder, to know it owns what it replaces; name the folder it leads to, or a new one" + what}
	}
	return &refusal{path, "exists and is not a folder (it is " + infile.Kind(mode) + "); name a new or empty folder" + what}
}
