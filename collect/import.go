package collect

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgstudy/pgstudy/samples/study"

	"github.com/pgstudy/pgstudy/samples/infile"
)

// Import turns files captured by hand (psql logs, EXPLAIN output, copies
// of /proc/diskstats, pg_settings dumps) into a capture that the analysis
// reads like a collected one. Like collect, it stores what it finds
// verbatim and leaves the reading of it to the parsers; the one exception
// is a settings file, whose rows become rows of the settings table (the
// file itself is kept too).

// ImportKinds are the kinds of file an import knows.
var ImportKinds = []string{"psql", "vacuum", "explain-json", "explain-text", "diskstats-before", "diskstats-after", "settings", "attachment"}

// ImportOptions are what an import needs besides its files.
type ImportOptions struct {
	Out         string
	ToolVersion string
	Command     string
	// Stop, when closed, ends the import before its next run is read:
	// an import is whole or nothing, so it leaves nothing, and returns an
	// error wrapping ErrInterrupted.
	Stop <-chan struct{}

	manifest string // the manifest's text, as read (UTF-8 when it had a byte order mark)
}

// ImportSummary says what an import wrote.
type ImportSummary struct {
	Dir   string
	Runs  int
	Files int
	// Notes are for the user: temporary folders beside Dir that an
	// earlier import, stopped half-way, left (never removed by another),
	// and the tables whose text was not UTF-8 (kept in raw_bytes).
	Notes []string
}

// importFile is one file to import and what it is.
type importFile struct {
	line     int // in the manifest; 0 for a pattern match
	round    int
	position int
	config   string
	test     string
	kind     string
	rel      string // relative to the imported folder, slash-separated
	started  time.Time
	ord      int // its place among the files given, set by groupRuns
}

func (f importFile) where(src string) string {
	if f.line > 0 {
		return fmt.Sprintf("%s:%d", src, f.line)
	}
	return src + ": " + f.rel
}

// ImportManifest imports the files a manifest lists. The manifest is CSV
// with the header round,position,config,test,kind,path and an optional
// started_at (RFC 3339); paths are relative to its folder and may not
// leave it.
func ImportManifest(manifest string, opt ImportOptions) (*ImportSummary, error) {
	f, err := infile.Open(manifest)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxManifestBytes {
		return nil, fmt.Errorf("import: %w", &infile.TooLarge{Path: manifest, Limit: maxManifestBytes, What: "a manifest"})
	}
	text, err := infile.ReadAll(f, manifest, maxManifestBytes, "a manifest")
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	// Excel's "CSV UTF-8" starts with a byte order mark, its "Unicode
	// text" is UTF-16: both read as the study file's text does. Other bytes
	// that are not UTF-8 (a Latin-1 file name) are kept, as names of files.
	if bytes.HasPrefix(text, []byte{0xEF, 0xBB, 0xBF}) {
		text = text[3:]
	} else if bytes.HasPrefix(text, []byte{0xFF, 0xFE}) || bytes.HasPrefix(text, []byte{0xFE, 0xFF}) {
		if text, err = study.DecodeText(manifest, text); err != nil {
			return nil, err
		}
	}
	files, errs := readManifest(bytes.NewReader(text), manifest, bytes.Count(text, []byte{'\n'}))
	if len(files) == 0 && len(errs) > 0 {
		return nil, errs
	}
	opt.manifest = string(text)
	return importFiles(manifest, filepath.Dir(manifest), files, errs, opt)
}

var manifestHeader = []string{"round", "position", "config", "test", "kind", "path"}

// A manifest's line names one file; its size is that of a million rows.
// Both bound what reading one holds (encoding/csv holds a line whole).
const (
	maxManifestLine  = 64 << 10
	maxManifestBytes = 256 << 20
)

// readManifest returns the files a manifest of about lines lines lists
// and the problems of the lines it could not read, so that every mistake
// is reported at once. What a file holds is its own: a manifest of a
// million rows is held once, not once a row and once in a slice grown by
// doubling, and its few names of configurations, tests and kinds once
// each.
func readManifest(r io.Reader, name string, lines int) ([]importFile, study.ErrorList) {
	cr := csv.NewReader(infile.CSVRecords(r, maxManifestLine))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	intern := interner{}
	var errs study.ErrorList
	fail := func(line int, format string, args ...any) {
		errs = append(errs, &study.Error{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, study.ErrorList{{File: name, Msg: "the manifest is empty; expected the header " + strings.Join(manifestHeader, ",")}}
	}
	if err != nil {
		return nil, study.ErrorList{csvError(name, err)}
	}
	withStart := len(header) == 7 && header[6] == "started_at"
	if !slices.Equal(header[:min(6, len(header))], manifestHeader) || (len(header) != 6 && !withStart) {
		return nil, study.ErrorList{{File: name, Line: 1, Msg: fmt.Sprintf("expected the header %s[,started_at], found %s",
			strings.Join(manifestHeader, ","), strings.Join(header, ","))}}
	}
	header = slices.Clone(header) // the next records reuse its slice
	// Made at its size (a million rows, the most maxManifestBytes holds, at
	// most), whatever the number of lines says.
	files := make([]importFile, 0, min(max(lines, 0), 1<<20))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// FieldPos is only valid after a record was read.
			errs = append(errs, csvError(name, err))
			break
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			fail(line, "expected %d fields (%s), found %d", len(header), strings.Join(header, ","), len(rec))
			continue
		}
		f := importFile{line: line, config: intern.of(rec[2]), test: intern.of(rec[3]), kind: intern.of(rec[4]), rel: strings.Clone(filepath.ToSlash(rec[5]))}
		var err1, err2 error
		f.round, err1 = positive(rec[0])
		if rec[1] != "" {
			f.position, err2 = positive(rec[1])
		}
		switch {
		case err1 != nil:
			fail(line, "round: expected a whole number from 1 to %d, found %q", study.MaxRounds, rec[0])
			continue
		case err2 != nil:
			fail(line, "position: expected a whole number from 1 to %d or nothing, found %q", study.MaxRounds, rec[1])
			continue
		}
		if withStart && rec[6] != "" {
			if f.started, err = time.Parse(time.RFC3339Nano, rec[6]); err != nil {
				fail(line, "started_at: expected a time such as 2026-05-01T14:03:00Z, found %q", rec[6])
				continue
			}
		}
		if !filepath.IsLocal(rec[5]) {
			fail(line, "path %q leaves the manifest's folder; paths are relative to it", rec[5])
			continue
		}
		if filepath.Clean(rec[5]) == "." {
			fail(line, "path %q names the manifest's folder; expected a file in it", rec[5])
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 && len(errs) == 0 {
		return nil, study.ErrorList{{File: name, Msg: "the manifest lists no file"}}
	}
	return files, errs
}

// interner holds one copy of each of a manifest's few names.
type interner map[string]string

func (in interner) of(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	s = strings.Clone(s) // not a substring of the record's line, which it would keep
	in[s] = s
	return s
}

func csvError(name string, err error) *study.Error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &study.Error{File: name, Line: pe.Line, Col: pe.Column, Msg: "not valid CSV: " + pe.Err.Error()}
	}
	var long *infile.LineTooLong
	if errors.As(err, &long) {
		return &study.Error{File: name, Line: long.Line, Msg: fmt.Sprintf("a record longer than %d KiB; a manifest's line names one file (is this the manifest?)", long.Max>>10)}
	}
	return &study.Error{File: name, Msg: err.Error()}
}

// positive reads a round or a position: a whole number from 1 to
// study.MaxRounds, the most a study has (a larger one would wrap in the
// capture's 32-bit columns).
func positive(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err == nil && (n < 1 || n > study.MaxRounds) {
		err = errors.New("out of range")
	}
	return n, err
}

var placeholderRE = regexp.MustCompile(`\{([a-z_]+)\}`)

// ImportPattern imports the files under folder whose paths match a
// pattern such as round{round}/{config}/{test}/{kind}.out. The pattern
// must name round, config, test and kind; position is optional.
func ImportPattern(folder, pattern string, opt ImportOptions) (*ImportSummary, error) {
	re, names, err := compilePattern(pattern)
	if err != nil {
		return nil, badPattern{err}
	}
	var files []importFile
	var unmatched []string
	err = filepath.WalkDir(folder, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(folder, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			// Not followed: it could lead outside the folder.
			unmatched = append(unmatched, rel+" (a symbolic link, not followed)")
			return nil
		}
		if !d.Type().IsRegular() {
			if !d.IsDir() {
				unmatched = append(unmatched, rel+" ("+infile.Kind(d.Type())+", not read)")
			}
			return nil
		}
		m := re.FindStringSubmatch(rel)
		if m == nil {
			unmatched = append(unmatched, rel)
			return nil
		}
		f := importFile{rel: rel}
		for i, name := range names {
			v := m[i+1]
			switch name {
			case "round":
				f.round, err = positive(v)
			case "position":
				f.position, err = positive(v)
			case "config":
				f.config = v
			case "test":
				f.test = v
			case "kind":
				f.kind = v
			}
			if err != nil {
				return fmt.Errorf("%s: {%s} must be a whole number from 1 to %d, found %q", rel, name, study.MaxRounds, v)
			}
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", folder, err)
	}
	if len(files) == 0 {
		example := ""
		if len(unmatched) > 0 {
			example = ", for example " + unmatched[0]
		}
		return nil, fmt.Errorf("import %s: no file matches %q (%d files looked at%s)", folder, pattern, len(unmatched), example)
	}
	sum, err := importFiles(folder, folder, files, nil, opt)
	if err == nil && len(unmatched) > 0 {
		err = fmt.Errorf("%d files under %s do not match %q and were not imported, for example %s: %w",
			len(unmatched), folder, pattern, unmatched[0], errUnmatched)
	}
	return sum, err
}

// ErrBadPattern marks an import refused for its --pattern: a mistake of
// the command line.
var ErrBadPattern = errors.New("bad pattern")

type badPattern struct{ error }

func (badPattern) Is(target error) bool { return target == ErrBadPattern }

// errUnmatched marks an import that succeeded but left files out.
var errUnmatched = errors.New("some files were not imported")

func compilePattern(pattern string) (*regexp.Regexp, []string, error) {
	var b strings.Builder
	b.WriteString("^")
	var names []string
	last := 0
	for _, loc := range placeholderRE.FindAllStringSubmatchIndex(pattern, -1) {
		b.WriteString(regexp.QuoteMeta(pattern[last:loc[0]]))
		name := pattern[loc[2]:loc[3]]
		switch name {
		case "round", "position":
			b.WriteString(`(\d+)`)
		case "config", "test", "kind":
			b.WriteString(`([^/]+?)`)
		default:
			return nil, nil, fmt.Errorf("pattern %q: unknown placeholder {%s}; expected {round}, {position}, {config}, {test}, {kind}", pattern, name)
		}
		if slices.Contains(names, name) {
			return nil, nil, fmt.Errorf("pattern %q: {%s} appears twice", pattern, name)
		}
		names = append(names, name)
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(pattern[last:]))
	b.WriteString("$")
	for _, need := range []string{"round", "config", "test", "kind"} {
		if !slices.Contains(names, need) {
			return nil, nil, fmt.Errorf("pattern %q must name {%s}; it names %v", pattern, need, names)
		}
	}
	if path.IsAbs(pattern) || strings.HasPrefix(pattern, "../") {
		return nil, nil, fmt.Errorf("pattern %q must be relative to the folder", pattern)
	}
	// Text that is not UTF-8 cannot be a regular expression's literal.
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, nil, fmt.Errorf("pattern %q: expected UTF-8 text: %w", pattern, err)
	}
	return re, names, nil
}

// importFiles checks the files as a whole and writes the capture.
//
// Files are read through an os.Root of the folder: a symbolic link in it
// that points outside is refused, so a manifest or pattern cannot make
// pgstudy read anything but the folder it was given.
func importFiles(src, folder string, files []importFile, errs study.ErrorList, opt ImportOptions) (*ImportSummary, error) {
	root, err := os.OpenRoot(folder)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	defer root.Close()
	fail := func(f importFile, format string, args ...any) {
		e := &study.Error{File: src, Line: f.line, Msg: fmt.Sprintf(format, args...)}
		if f.line == 0 {
			e.Msg = f.rel + ": " + e.Msg
		}
		errs = append(errs, e)
	}
	runs := groupRuns(root, src, folder, files, fail)
	timed := timedRuns(runs, fail)
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *study.Error) int { return a.Line - b.Line })
		return nil, errs
	}
	sortRuns(timed)
	return writeImport(root, src, timed, opt)
}
